"""``skillstate doctor [--fix]``: the checks every plugin contributes through ``skillstate_doctor``.

Read-only by default. ``--fix`` applies only the one safe, automatic kind of fix: a
finding whose fix reads ``append PATTERN to .gitignore`` gets PATTERN appended to
the project's ``.gitignore``. Every other fix is printed for a human to run.
Exit 0 when nothing is worse than a ``nit``, 1 when a ``warn`` or ``error`` is found.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from skillstate.cli.context import CliContext

if TYPE_CHECKING:
    from skillstate.host import Host
    from skillstate.records import DoctorFinding
    from skillstate.store import Store

__all__ = ["GITIGNORE_FIX", "append_gitignore", "configure", "report", "run"]

GITIGNORE_FIX = re.compile(r"append (\S+) to \.gitignore")


class _Ctx(Protocol):
    out: TextIO
    err: TextIO

    @property
    def host(self) -> Host: ...

    def error(self, message: str) -> None: ...


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe fixes (append missing entries to .gitignore); nothing else changes",
    )


def append_gitignore(root: Path, pattern: str) -> bool:
    """Append ``pattern`` to ``root/.gitignore`` unless a line already says it; True if written."""
    path = root / ".gitignore"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if pattern in (line.strip() for line in text.splitlines()):
        return False
    prefix = "" if not text or text.endswith("\n") else "\n"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f"{prefix}{pattern}\n")
    return True


def _print(findings: Sequence[DoctorFinding], out: TextIO) -> None:
    for finding in findings:
        print(f"{finding.severity}: {finding.check}: {finding.message}", file=out)
        if finding.fix:
            print(f"  fix: {finding.fix}", file=out)


def report(ctx: _Ctx, root: Path, store: Store | None, fix: bool = False) -> int:
    """Collect every plugin's findings for ``root``, print them, apply ``--fix``; the exit code."""
    findings = ctx.host.doctor(root, store)
    if not findings:
        print("doctor: no findings", file=ctx.out)
        return 0
    _print(findings, ctx.out)
    if fix:
        for finding in findings:
            match = GITIGNORE_FIX.fullmatch(finding.fix or "")
            if match is None:
                continue
            if append_gitignore(root, match.group(1)):
                print(f"fixed: appended {match.group(1)} to .gitignore", file=ctx.out)
    return 1 if any(f.severity in ("warn", "error") for f in findings) else 0


def run(ctx: CliContext) -> int:
    from skillstate.errors import SkillstateError

    try:
        store: Store | None = ctx.store
    except SkillstateError as exc:
        ctx.error(f"the configured store could not be opened ({exc}); checking without it")
        store = None
    return report(ctx, ctx.config.root.resolve(), store, fix=ctx.args.fix)
