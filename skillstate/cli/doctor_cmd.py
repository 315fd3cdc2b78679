"""``skillstate doctor [--fix] [--json]``: the checks every plugin contributes through ``skillstate_doctor``.

The core checks first: plugins that failed to load, plugin name conflicts, and whether
the configured store opens. Read-only by default. ``--fix`` applies each finding's ``autofix`` (the safe,
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

__all__ = ["configure", "core_findings", "doctor_report", "open_store_problem", "run"]


class _StoreCtx(Protocol):
    @property
    def store(self) -> Store: ...


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
    parser.add_argument(
        "--json",
        action="store_true",
        help='{"findings": [{check, severity, message, fix, source}], "fixed": [...]}',
    )


def _print(findings: Sequence[DoctorFinding], out: TextIO) -> None:
    for finding in findings:
        print(f"{finding.severity}: {finding.check}: {finding.message}", file=out)
        if finding.fix:
            print(f"  fix: {finding.fix}", file=out)


def core_findings(host: Host, store_problem: str | None = None) -> list[DoctorFinding]:
    """The core's own checks: plugins that failed to load, name conflicts, the store.

    ``store_problem`` is why the configured store could not be opened (``None``: it opened).
    """
    from skillstate.errors import PluginConflictError
    from skillstate.records import DoctorFinding

    findings = []
    for row in host.pm.plugin_table:
        if row.status == "error":
            where = f" ({row.distribution} {row.version})" if row.distribution else ""
            findings.append(
                DoctorFinding(
                    "plugins",
                    "error",
                    f"plugin '{row.name}'{where} failed to load: {row.error}",
                    f"fix or reinstall it, or block it: SKILLSTATE_DISABLE_PLUGINS={row.name}",
                )
            )
    for registry in ("skills", "stores", "environments", "commands"):
        try:
            getattr(host, registry)
        except PluginConflictError as exc:
            findings.append(DoctorFinding("plugin-conflicts", "error", str(exc)))
    if store_problem is not None:
        findings.append(
            DoctorFinding(
                "store",
                "error",
                f"the configured store cannot be opened: {store_problem}",
                "check its URL and source with `skillstate config list`",
            )
        )
    return findings


def open_store_problem(ctx: _StoreCtx) -> tuple[Store | None, str | None]:
    """The context's store, opened and touched once, or why it cannot be (a message)."""
    from skillstate.errors import SkillstateError

    try:
        store = ctx.store
        store.exists("doctor-probe")  # stores connect lazily: this opens it for real
    except SkillstateError as exc:
        return None, str(exc)
    return store, None


def doctor_report(
    ctx: _Ctx,
    root: Path,
    store: Store | None,
    fix: bool = False,
    store_problem: str | None = None,
    as_json: bool = False,
    notes: Sequence[DoctorFinding] = (),
) -> int:
    """Collect the core's and every plugin's findings for ``root``, print them, apply
    ``--fix``; the exit code (1 when a ``warn`` or ``error`` is found). ``as_json``: one
    object, ``{"findings": [{check, severity, message, fix, source}], "fixed": [line]}``.
    ``notes``: findings of the caller's own, listed first."""
    findings = [*notes, *core_findings(ctx.host, store_problem), *ctx.host.doctor(root, store)]
    fixed: list[str] = []
    if not findings and not as_json:
        print("doctor: no findings", file=ctx.out)
        return 0
    if not as_json:
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
            if done and not as_json:
                print(f"fixed: {done}", file=ctx.out)
            elif done:
                fixed.append(done)
    if as_json:
        import json

        keys = ("check", "severity", "message", "fix", "source")
        payload = {
            "findings": [{k: getattr(f, k) for k in keys} for f in findings],
            "fixed": fixed,
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False), file=ctx.out)
    return 1 if any(f.severity in ("warn", "error") for f in findings) else 0


def run(ctx: CliContext) -> int:
    from skillstate.errors import SkillstateError
    from skillstate.masking import mask_url
    from skillstate.records import DoctorFinding

    store: Store | None = None
    problem: str | None = None
    notes: list[DoctorFinding] = []
    try:
        opened = ctx.store
    except SkillstateError as exc:
        problem = str(exc)
    else:
        if opened.found():
            store, problem = open_store_problem(ctx)
        else:  # reported, never created by a probe; a new project has none yet: a nit
            url = mask_url(getattr(opened, "url", "") or ctx.config.store)
            notes.append(
                DoctorFinding(
                    "store",
                    "nit",
                    f"no store at {url} yet: reads refuse it (exit 2) until a write such as "
                    "'skillstate init' creates it",
                    "if runs were expected there, check the URL and its source with "
                    "`skillstate config list`",
                )
            )
    return doctor_report(
        ctx,
        ctx.config.root.resolve(),
        store,
        fix=ctx.args.fix,
        store_problem=problem,
        as_json=ctx.args.json,
        notes=notes,
    )
