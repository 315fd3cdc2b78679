"""``skillstate config list [--json]|get KEY|set [--user] KEY VALUE``: effective values and where they came from."""

from __future__ import annotations

import argparse
import json
from typing import Any

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="every key, its effective value and its source")
    listing.add_argument(
        "--json", action="store_true", help='{"KEY": {"value": VALUE, "source": SOURCE}, ...}'
    )
    get = sub.add_parser("get", help="one key's effective value")
    get.add_argument("key")
    put = sub.add_parser(
        "set", help="write KEY = VALUE into the project's skillstate.toml (other keys kept)"
    )
    put.add_argument(
        "--user",
        action="store_true",
        help="into the user's file instead: $XDG_CONFIG_HOME/skillstate/config.toml",
    )
    put.add_argument(
        "key", help="a key, or budget.string_chars / budget.array_items / budget.document_bytes"
    )
    put.add_argument("value", help="lists are comma-separated; booleans true/false")


def _show(value: Any, name: str = "") -> str:
    """A value as ``config`` prints it: JSON, a store URL with its credentials masked."""
    from skillstate.records import Budget

    if name == "store" and isinstance(value, str):
        from skillstate.masking import mask_url

        return json.dumps(mask_url(value), ensure_ascii=False)

    if isinstance(value, Budget):
        return json.dumps(
            {
                "string_chars": value.string_chars,
                "array_items": value.array_items,
                "document_bytes": value.document_bytes,
            }
        )
    if isinstance(value, tuple):
        return json.dumps(list(value))
    return json.dumps(value)


def run(ctx: CliContext) -> int:
    from skillstate.config import KEYS, set_config_value

    action = ctx.args.action
    if action == "set":
        import os

        from skillstate.config import user_config_path
        from skillstate.config_keys import usage_error

        user = user_config_path(os.environ) if ctx.args.user else None
        if ctx.args.user and user is None:
            raise usage_error("--user: no user config directory (set HOME or XDG_CONFIG_HOME)")
        root = user.parent if user else ctx.config.root  # --user: no project file is read
        path = set_config_value(root, ctx.args.key, ctx.args.value, user)
        print(f"wrote {ctx.args.key} to {path}", file=ctx.out)
        return 0
    config = ctx.config
    if action == "get":
        name = ctx.args.key.split(".", 1)[0]
        value = config.get(name)
        if "." in ctx.args.key:
            value = (
                getattr(value, ctx.args.key.split(".", 1)[1], None) if value is not None else None
            )
        print(_show(value, name), file=ctx.out)
        return 0
    if ctx.args.json:
        values = {name: json.loads(_show(config.get(name), name)) for name in sorted(KEYS)}
        payload = {name: {"value": values[name], "source": config.source(name)} for name in values}
        print(json.dumps(payload, indent=2, ensure_ascii=False), file=ctx.out)
        return 0
    width = max(len(k) for k in KEYS)
    for name in sorted(KEYS):
        print(
            f"{name:<{width}}  {_show(config.get(name), name):<40}  ({config.source(name)})",
            file=ctx.out,
        )
    return 0
