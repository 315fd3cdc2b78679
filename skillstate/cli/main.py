"""``skillstate``: the entry point. Sub-commands live in their own modules, imported lazily."""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "main"]

# (command, module, one-line help). A module provides ``configure(parser)`` and
# ``run(ctx) -> int``; it is imported only when its command runs (or for --help).
COMMANDS: list[tuple[str, str, str]] = [
    (
        "plugins",
        "skillstate.cli.plugins_cmd",
        "list every plugin: name, distribution, version, status, hooks",
    ),
    ("config", "skillstate.cli.config_cmd", "show or change the configuration (list, get, set)"),
    ("migrate", "skillstate.cli.migrate_cmd", "copy every run with its journal to another store"),
    ("init", "skillstate.cli.init_cmd", "create a run of a skill, seeded with --json"),
    ("patch", "skillstate.cli.patch_cmd", "apply a patch to a run (checked; rejected = no change)"),
    ("get", "skillstate.cli.get_cmd", "print a run's state as JSON, or one --field"),
    ("show", "skillstate.cli.show_cmd", "print a run's state compactly (what a step reads)"),
    ("list", "skillstate.cli.list_cmd", "list runs: id, skill, phase, updated, next action"),
    ("journal", "skillstate.cli.journal_cmd", "print a run's journal of accepted writes"),
    ("rm", "skillstate.cli.rm_cmd", "delete a run and its journal"),
    ("verify", "skillstate.cli.verify_cmd", "replay journals; report runs whose record differs"),
    ("doctor", "skillstate.cli.doctor_cmd", "check the project (plugins add checks); --fix"),
    ("skills", "skillstate.cli.skills_cmd", "the skill store: SKILL.md skills, list/view/edit"),
    (
        "bench",
        "skillstate.cli.bench_cmd",
        "run benchmarks: 'bench warehouse' (the paper's episodes)",
    ),
    (
        "demo",
        "skillstate.cli.demo_cmd",
        "a short warehouse episode, turn by turn, on the file store",
    ),
    (
        "mcp",
        "skillstate.cli.mcp_cmd",
        "the MCP server (stdio, or --http): SKILL.state for any MCP client",
    ),
    (
        "migrate-rig-epics",
        "skillstate_plugins.rig.epics",
        "convert rig's old .rig/epics/*.json files into rig-epic runs (dry run unless --apply)",
    ),
]


def _build_parser(only: str | None = None) -> object:
    import argparse
    import importlib

    from skillstate._version import __version__

    parser = argparse.ArgumentParser(
        prog="skillstate",
        description="Durable, typed, patch-only working state for long-running agents.",
    )
    parser.add_argument("--version", action="version", version=f"skillstate {__version__}")
    parser.add_argument(
        "--store", metavar="URL", help="store URL (overrides SKILLSTATE_STORE and the config)"
    )
    parser.add_argument(
        "--disable-plugin",
        metavar="NAME",
        action="append",
        help="do not load this plugin (entry-point or distribution name); repeatable",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name, help_text in COMMANDS:
        command = sub.add_parser(name, help=help_text, description=help_text)
        if only is None or only == name:
            module = importlib.import_module(module_name)
            module.configure(command)
            command.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list in (["--version"], ["-V"]):
        from skillstate._version import __version__

        print(f"skillstate {__version__}")
        return 0
    only = next((a for a in args_list if not a.startswith("-")), None)
    known = {name for name, _, _ in COMMANDS}
    parser = _build_parser(only if only in known else None)
    args = parser.parse_args(args_list)  # type: ignore[attr-defined]
    if not getattr(args, "command", None):
        parser.print_help()  # type: ignore[attr-defined]
        return 2

    from skillstate.cli.context import CliContext
    from skillstate.errors import SkillstateError

    ctx = CliContext(args)
    try:
        code: int = args._module.run(ctx)
    except SkillstateError as exc:
        ctx.error(str(exc))
        return 2
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
