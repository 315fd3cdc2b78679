"""The skillstate MCP server: the SKILL.state protocol for any MCP client (stdio, Streamable HTTP).

- :func:`build_server` — an SDK ``MCPServer`` with the session tools, the skill-store
  tools, the ``skill-state://`` resources and the turn prompts;
- :func:`skillstate_tools`, :func:`add_resources`, :func:`add_prompts` — the same
  surface on a server of your own;
- :func:`serve_stdio` (``.stdio``) and :func:`http_app` (``.http``).

It registers the ``skillstate mcp`` command and adds one hook of its own,
``skillstate_register_http_apps`` (:mod:`.hookspecs`): the web apps ``--http`` serves
beside ``/mcp`` (``--ui``). Everything here but the hooks imports the ``mcp`` SDK, so
it is imported on first use. See ``docs/mcp.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from skillstate.plugin import hookimpl

if TYPE_CHECKING:
    from .http import http_app
    from .server import add_prompts, add_resources, build_server, skillstate_tools
    from .stdio import serve_stdio

__all__ = [
    "add_prompts",
    "add_resources",
    "build_server",
    "http_app",
    "serve_stdio",
    "skillstate_tools",
]

_WHERE = {
    "add_prompts": ".server",
    "add_resources": ".server",
    "build_server": ".server",
    "skillstate_tools": ".server",
    "http_app": ".http",
    "serve_stdio": ".stdio",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name], __name__), name)


@hookimpl
def skillstate_addhooks(pluginmanager: Any) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@hookimpl
def skillstate_register_commands(register: Any) -> None:
    from skillstate.plugin import CommandSpec

    register(
        CommandSpec.from_module(
            "mcp",
            "the MCP server (stdio, or --http): SKILL.state for any MCP client",
            f"{__name__}.command",
        )
    )
