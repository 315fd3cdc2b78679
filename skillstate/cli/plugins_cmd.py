"""``skillstate plugins [--json] [--hook NAME]``: every plugin, bundled or not, and its status.

Essential plugins (merge, schema, budgets) are listed first with status ``essential``;
the table ends with the store's durability level and where it comes from.
After the table, any name two plugins register (a skill, store scheme, environment or
command) is reported on stderr, one ``skillstate: conflict: …`` line each, and the
exit code is then 1.
"""

from __future__ import annotations

import argparse
import json

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    parser.add_argument(
        "--hook",
        metavar="NAME",
        help="only plugins implementing this hook (with or without prefix)",
    )


def _conflicts(ctx: CliContext) -> list[str]:
    """The message of each registry that cannot be built because of a name conflict."""
    from skillstate.errors import PluginConflictError

    out = []
    for registry in ("skills", "stores", "environments", "commands"):
        try:
            getattr(ctx.host, registry)
        except PluginConflictError as exc:
            out.append(str(exc))
    return out


def run(ctx: CliContext) -> int:
    code = _table(ctx)
    for message in _conflicts(ctx):
        print(f"skillstate: conflict: {message}", file=ctx.err)
        code = 1
    return code


def _table(ctx: CliContext) -> int:
    rows = ctx.host.pm.plugin_table
    if ctx.args.hook:
        wanted = ctx.args.hook.removeprefix("skillstate_")
        rows = [row for row in rows if wanted in row.hooks]
    if ctx.args.json:
        print(json.dumps([row.to_dict() for row in rows], indent=2), file=ctx.out)
        return 0
    header = ("Name", "Distribution", "Version", "Status", "Hooks")
    table = [
        (
            row.name,
            row.distribution or "(local)",
            row.version or "-",
            row.status,
            (row.error or "-") if row.status == "error" else (", ".join(row.hooks) or "-"),
        )
        for row in rows
    ]
    widths = [
        max(len(header[i]), *(len(r[i]) for r in table)) if table else len(header[i])
        for i in range(4)
    ]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    print(fmt.format(*header), file=ctx.out)
    print("-" * (sum(widths) + 2 * 4 + 20), file=ctx.out)
    for row_values in table:
        print(fmt.format(*row_values), file=ctx.out)
    if not table:
        print("(no plugins loaded)", file=ctx.out)
    print(f"\n{_durability_line(ctx)}", file=ctx.out)
    return 0


def _durability_line(ctx: CliContext) -> str:
    """The configured store's durability level and where it comes from (store not opened)."""
    from skillstate.durability import effective_level

    config = ctx.config
    level, source = effective_level(config.store, config.durability, config.source("durability"))
    return f"durability: {level} (from {source}; docs/reliability.md)"
