"""``skillstate doctor [--fix]``: the checks every plugin contributes through ``skillstate_doctor``.

Read-only by default. ``--fix`` applies each finding's ``autofix`` (the safe,
automatic fixes a plugin offers, e.g. rig's "append .rig/ to .gitignore") and
prints the line it returns; every other ``fix`` is printed for a human to run.
Exit 0 when nothing is worse than a ``nit``, 1 when a ``warn`` or ``error`` is found.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from skillstate.cli.context import CliContext

if TYPE_CHECKING:
    from skillstate.host import Host
    from skillstate.records import DoctorFinding
    from skillstate.store import Store

__all__ = ["configure", "doctor_report", "run"]


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
        help="apply the safe automatic fixes plugins offer (e.g. a missing .gitignore entry)",
    )


def _print(findings: Sequence[DoctorFinding], out: TextIO) -> None:
    for finding in findings:
        print(f"{finding.severity}: {finding.check}: {finding.message}", file=out)
        if finding.fix:
            print(f"  fix: {finding.fix}", file=out)


def doctor_report(ctx: _Ctx, root: Path, store: Store | None, fix: bool = False) -> int:
    """Collect every plugin's findings for ``root``, print them, apply ``--fix``; the exit code."""
    findings = ctx.host.doctor(root, store)
    if not findings:
        print("doctor: no findings", file=ctx.out)
        return 0
    _print(findings, ctx.out)
    if fix:
        for finding in findings:
            if finding.autofix is None:
                continue
            try:
                done = finding.autofix()
            except Exception as exc:  # a plugin's fix failing is reported, never fatal
                ctx.error(f"fix for {finding.check} ({finding.source}) failed: {exc}")
                continue
            if done:
                print(f"fixed: {done}", file=ctx.out)
    return 1 if any(f.severity in ("warn", "error") for f in findings) else 0


def run(ctx: CliContext) -> int:
    from skillstate.errors import SkillstateError

    try:
        store: Store | None = ctx.store
    except SkillstateError as exc:
        ctx.error(f"the configured store could not be opened ({exc}); checking without it")
        store = None
    return doctor_report(ctx, ctx.config.root.resolve(), store, fix=ctx.args.fix)
