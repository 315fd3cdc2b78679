"""``skillstate mcp``: the SKILL.state MCP server on stdio (default) or Streamable HTTP.

The store is the configured one (``--store``, ``SKILLSTATE_STORE``, the config file).
Only this command imports the MCP SDK, and only when it runs. The SDK and the web
libraries are the ``mcp`` extra (``pip install 'skillstate[mcp]'``); without them the
command says so in one line and exits 2.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]

DEFAULT_PORT = 3211
EXTRA_MODULES = ("mcp", "mcp_types", "anyio", "starlette", "pydantic", "uvicorn")
"""What ``skillstate/mcp`` imports from the ``mcp`` extra."""
MISSING_EXTRA = (
    "the MCP server needs the 'mcp' extra, which is not installed: "
    "pip install 'skillstate[mcp]' (or: uvx --from 'skillstate[mcp]' skillstate mcp)"
)


def extra_installed() -> bool:
    """Whether every library of the ``mcp`` extra can be imported."""
    import importlib.util

    try:
        return all(importlib.util.find_spec(name) is not None for name in EXTRA_MODULES)
    except (ImportError, ValueError):  # a broken or half-removed install
        return False


DEFAULT_MAX_BODY = 1024 * 1024


def _port_default() -> int:
    text = os.environ.get("SKILL_STATE_PORT", "")
    return int(text) if text.isdigit() and 0 < int(text) < 65536 else DEFAULT_PORT


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of bytes, got {text!r}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of bytes, got {value}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value < 65536:
        raise argparse.ArgumentTypeError(f"a port is 0-65535 (0 = any free port), got {value}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--http", action="store_true", help="serve Streamable HTTP at /mcp instead of stdio"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1, loopback only)"
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=None,
        help=f"HTTP port (default $SKILL_STATE_PORT or {DEFAULT_PORT}; 0 = any free port)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also accept this Host name (and its Origins); repeatable",
    )
    parser.add_argument(
        "--token",
        default=None,
        help="require 'Authorization: Bearer TOKEN' on every HTTP request "
        "(default $SKILLSTATE_MCP_TOKEN)",
    )
    parser.add_argument(
        "--max-body",
        type=_positive,
        default=DEFAULT_MAX_BODY,
        metavar="BYTES",
        help=f"largest HTTP request body (default {DEFAULT_MAX_BODY})",
    )
    parser.add_argument(
        "--allow-skill-writes",
        action="store_true",
        help="offer the skill_manage tool (create/edit/patch/delete skills); off by default",
    )
    parser.add_argument(
        "--ui",
        action="store_true",
        help="with --http: also serve the run inspector at /ui (needs the 'ui' extra)",
    )
    parser.add_argument(
        "--transport",
        choices=("fast", "sdk"),
        default="fast",
        help="stdio: 'fast' (asyncio pipes into the SDK's transport, default) or 'sdk' "
        "(the SDK's own threaded reader/writer)",
    )


def run(ctx: CliContext) -> int:
    args = ctx.args
    token = args.token if args.token is not None else os.environ.get("SKILLSTATE_MCP_TOKEN") or None
    if not args.http and (args.token is not None or args.allowed_host or args.port is not None):
        ctx.error("--token, --allowed-host and --port apply to --http only")
        return 2
    if not extra_installed():
        ctx.error(MISSING_EXTRA)
        return 2
    if args.ui:
        from skillstate.ui import MISSING_EXTRA as MISSING_UI
        from skillstate.ui import extra_installed as ui_installed

        if not args.http:
            ctx.error("--ui applies to --http only")
            return 2
        if not ui_installed():
            ctx.error(MISSING_UI)
            return 3

    from skillstate.mcp.server import build_server
    from skillstate.runtime import Runtime
    from skillstate.skills import SkillStore

    runtime = Runtime(host=ctx.host)
    skills = SkillStore.from_config(ctx.config)
    server = build_server(
        runtime, skills=skills, allow_skill_writes=args.allow_skill_writes, offload=args.http
    )
    try:
        if args.http:
            _serve_http(ctx, runtime, server, token)
        else:
            from skillstate.mcp.stdio import serve_stdio

            serve_stdio(server, args.transport)
    finally:
        runtime.close()
    return 0


def _serve_http(ctx: CliContext, runtime: Any, server: Any, token: str | None) -> None:
    import anyio.to_thread

    from skillstate._version import __version__
    from skillstate.durability import durability_of
    from skillstate.mcp.http import http_app, mask_url, run_http

    args = ctx.args
    store_url = mask_url(str(ctx.config.store))

    async def health() -> dict[str, Any]:
        index = await anyio.to_thread.run_sync(runtime.list_sessions)
        return {
            "status": "ok",
            "server": {"name": server.name, "version": __version__},
            "version": __version__,
            "store": store_url,
            "durability": durability_of(runtime.store),
            "active_skill_sessions": index["active_sessions"],
            "active_mcp_sessions": 0,
        }

    ui = None
    if args.ui:
        from skillstate.ui import ui_app

        ui = ui_app(
            ctx.host,
            ctx.store,
            bind=args.host,
            allowed_hosts=args.allowed_host,
            token=token,
            prefix="/ui",
        )
    app = http_app(
        server,
        host=args.host,
        allowed_hosts=args.allowed_host,
        token=token,
        max_body=args.max_body,
        health=health,
        ui=ui,
    )
    port = args.port if args.port is not None else _port_default()

    def banner(bound: int) -> str:
        host = f"[{args.host}]" if ":" in args.host else args.host
        inspector = f", inspector at http://{host}:{bound}/ui/" if args.ui else ""
        return (
            f"[skillstate] v{__version__} listening on http://{host}:{bound}/mcp "
            f"(store {store_url}{', token required' if token else ''}){inspector}"
        )

    try:
        run_http(app, args.host, port, banner)
    except KeyboardInterrupt:
        pass
