"""``skillstate migrate-rig-epics [--root DIR] [--apply]``: old epic files → rig-epic runs.

Before rig-state, rig-epic kept one hand-written file per epic,
``.rig/epics/<integration-branch>.json``. Each becomes a ``rig-epic`` run in
``<root>/.rig/state/`` whose id is the integration branch (the file's name; ``/`` and
other characters a run id cannot hold become ``-``). Key mapping:

- ``parent`` (a string) → ``parent.id``; ``parentTitle`` → ``parent.title``;
  ``--source`` sets ``parent.source`` (``linear``, ``github`` or ``none``);
- ``integrationBranch``, ``whyEpic`` and ``children[].{id,title,blockedBy,branch,status}``
  are kept; ``null`` members of a child (``branch: null``) are dropped;
- the run starts at ``--phase`` (default ``run``: the epic was started).

Every converted state is checked exactly like ``rig-state init`` would (schema,
budgets, guards). Dry run by default: nothing is written without ``--apply``, and the
old files are never deleted.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillstate.plugin import Host, SkillDefinition
    from skillstate.plugin.cli import CliContext

__all__ = ["configure", "convert_epic", "epic_run_id", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", metavar="DIR", default=".", help="the project (default: .)")
    parser.add_argument("--apply", action="store_true", help="create the runs (default: dry run)")
    parser.add_argument(
        "--phase", default="run", help="the phase the migrated runs start at (default: run)"
    )
    parser.add_argument(
        "--source",
        choices=("linear", "github", "none"),
        help="the tracker the parent issue lives in (parent.source)",
    )


def epic_run_id(name: str) -> str:
    """A valid run id for an integration branch name (``alice/abc-42`` → ``alice-abc-42``)."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-._")
    cleaned = re.sub(r"\.{2,}", ".", cleaned)
    return cleaned[:80] or "epic"


def convert_epic(old: Any, phase: str = "run", source: str | None = None) -> dict[str, Any]:
    """The rig-epic seed for one old epic file's content (which must be a JSON object)."""
    if not isinstance(old, dict):
        raise ValueError(f"expected a JSON object, got {type(old).__name__}")
    seed: dict[str, Any] = {"phase": phase}
    parent: dict[str, Any] = {}
    for key, value in old.items():
        if key == "parent":
            if isinstance(value, dict):
                parent.update(value)
            elif value is not None:
                parent["id"] = value
        elif key == "parentTitle":
            if value is not None:
                parent["title"] = value
        elif key == "children" and isinstance(value, list):
            seed["children"] = [
                {k: v for k, v in child.items() if v is not None}
                if isinstance(child, dict)
                else child
                for child in value
            ]
        elif value is not None:
            seed[key] = value
    if source is not None:
        parent["source"] = source
    if parent:
        seed = {"phase": phase, "parent": parent, **{k: v for k, v in seed.items() if k != "phase"}}
    return seed


def _problems(host: Host, skill: SkillDefinition, run_id: str, seed: dict[str, Any]) -> list[str]:
    from skillstate.plugin import now_iso

    candidate = host.merge(skill.initial_state(run_id, now_iso()), seed)
    problems = host.validate(skill, candidate) + host.check_budget(skill, candidate)
    if not problems:
        problems = host.guards(skill, None, candidate)
    return [p.message for p in problems]


def run(ctx: CliContext) -> int:
    from skillstate.plugin import InvalidInput, RunExists, compact, create_run, parse_json

    root = Path(ctx.args.root).resolve()
    folder = root / ".rig" / "epics"
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not files:
        print(f"no old epic files in {folder}: nothing to migrate", file=ctx.out)
        return 0
    host = ctx.host
    skill = host.skill("rig-epic")
    store = host.open_store(f"file:{root / '.rig' / 'state'}")
    failed = 0
    for path in files:
        shown = path.relative_to(root)
        run_id = epic_run_id(path.stem)
        try:
            seed = convert_epic(
                parse_json(path.read_bytes(), str(shown)), ctx.args.phase, ctx.args.source
            )
        except (InvalidInput, ValueError, OSError) as exc:
            ctx.error(f"cannot migrate {shown}: {exc}")
            failed += 1
            continue
        if store.exists(run_id):
            print(f"skip {shown}: run '{run_id}' already exists", file=ctx.out)
            continue
        problems = _problems(host, skill, run_id, seed)
        if problems:
            reasons = "".join(f"\n  - {m}" for m in problems)
            ctx.error(f"cannot migrate {shown} to run '{run_id}':{reasons}")
            failed += 1
            continue
        if not ctx.args.apply:
            print(
                f"would create rig-epic run '{run_id}' from {shown}: {compact(seed)}", file=ctx.out
            )
            continue
        try:
            outcome = create_run(host, store, skill, run_id, seed, label="migrate")
        except RunExists:
            print(f"skip {shown}: run '{run_id}' already exists", file=ctx.out)
            continue
        if not outcome.accepted:
            reasons = "".join(f"\n  - {p.message}" for p in outcome.problems)
            ctx.error(f"cannot migrate {shown} to run '{run_id}':{reasons}")
            failed += 1
            continue
        print(f"created rig-epic run '{run_id}' from {shown}", file=ctx.out)
    if not ctx.args.apply:
        print("dry run: nothing written (add --apply to create the runs)", file=ctx.out)
    else:
        print(
            f"the old files are left in {folder}; delete them once the runs look right",
            file=ctx.out,
        )
    return 1 if failed else 0
