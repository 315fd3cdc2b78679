"""The skillstate MCP server: the SKILL.state protocol for any MCP client (stdio, Streamable HTTP).

- :func:`build_server` — an SDK ``MCPServer`` with the session tools, the skill-store
  tools, the ``skill-state://`` resources and the turn prompts;
- :func:`skillstate_tools` / :func:`add_tools` — the same surface on a server of your own;
- :func:`serve_stdio` (``skillstate_plugins.mcp.stdio``) and :func:`http_app` (``skillstate_plugins.mcp.http``).

Everything here imports the ``mcp`` SDK, so this package is imported lazily. See ``docs/mcp.md``.
"""

from __future__ import annotations

from typing import Any

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_getattr

if TYPE_CHECKING:
    from skillstate_plugins.mcp.http import http_app
    from skillstate_plugins.mcp.server import (
        add_prompts,
        add_resources,
        add_tools,
        build_server,
        skillstate_tools,
    )
    from skillstate_plugins.mcp.stdio import serve_stdio

__all__ = [
    "add_prompts",
    "add_resources",
    "add_tools",
    "build_server",
    "http_app",
    "serve_stdio",
    "skillstate_tools",
]

_LAZY = {
    "add_prompts": "skillstate_plugins.mcp.server",
    "add_resources": "skillstate_plugins.mcp.server",
    "add_tools": "skillstate_plugins.mcp.server",
    "build_server": "skillstate_plugins.mcp.server",
    "skillstate_tools": "skillstate_plugins.mcp.server",
    "http_app": "skillstate_plugins.mcp.http",
    "serve_stdio": "skillstate_plugins.mcp.stdio",
}


__getattr__ = lazy_getattr("skillstate_plugins.mcp", _LAZY, globals())


from skillstate.plugin import hookimpl  # noqa: E402


@hookimpl
def skillstate_register_commands(register: Any) -> None:
    from skillstate.plugin import CommandSpec

    register(CommandSpec.from_module("mcp", "the MCP server (stdio, or --http): SKILL.state for any MCP client", f"{__name__}.command"))
