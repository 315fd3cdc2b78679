"""Every use of the MCP SDK's internals, in one place, behind a version check.

skillstate speaks MCP through the SDK's public API; a few speed-ups and one
convenience need more, and they all live here:

- :func:`lowlevel_server` — ``MCPServer._lowlevel_server``: the fast stdio transport
  feeds the SDK's own loop-mode driver (``mcp.server.runner.serve_loop``) with it;
- :func:`tool_table` — ``MCPServer._tool_manager._tools``: :func:`add_tools` inserts
  ready-made tool objects into an existing server (there is no public call for it);
- :func:`drop_tracing` — removes ``mcp.server._otel.OpenTelemetryMiddleware`` (a no-op
  span per request when no tracer provider is installed);
- :func:`install_result_fast_path` — ``ServerRunner._serialize``: a ``tools/call``
  result made by :func:`skillstate.mcp.results.ok_result` carries its wire form, built
  once with the result, so the runner does not validate and dump it twice more (see
  :mod:`skillstate.mcp.results`).

They are used only on an SDK version listed in :data:`KNOWN_SDK_VERSIONS` (each one
checked by the test suite: tests/mcp/test_mcp_sdk_internals.py). On any other version,
or with ``SKILLSTATE_MCP_SDK_INTERNALS=off``, :func:`internals_allowed` is false and
every caller takes the public path instead: the SDK's stdio transport, no fast result
path, tracing kept, and :func:`add_tools` refusing with a clear message (build the
server with ``MCPServer(..., tools=skillstate_tools(runtime))``). One warning says so.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from functools import cache
from typing import Any

__all__ = [
    "INTERNALS_ENV",
    "KNOWN_SDK_VERSIONS",
    "drop_tracing",
    "install_result_fast_path",
    "internals_allowed",
    "internals_refusal",
    "lowlevel_server",
    "sdk_version",
    "serve_loop",
    "tool_table",
]

log = logging.getLogger("skillstate.mcp")

KNOWN_SDK_VERSIONS = ("2.3.0",)
"""The ``mcp`` distributions whose internals this module was written and tested against."""

INTERNALS_ENV = "SKILLSTATE_MCP_SDK_INTERNALS"
"""Set to ``off`` to use only the SDK's public API (the fallback of an unknown version)."""


def sdk_version() -> str:
    """The installed ``mcp`` distribution's version (``"unknown"`` if it has no metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp")
    except PackageNotFoundError:
        return "unknown"


@cache
def internals_refusal() -> str | None:
    """Why the SDK's internals are not used here, or ``None`` when they are."""
    setting = os.environ.get(INTERNALS_ENV, "").strip().lower()
    if setting in ("off", "0", "false", "no"):
        return f"{INTERNALS_ENV}={setting}"
    found = sdk_version()
    if found not in KNOWN_SDK_VERSIONS:
        return (
            f"MCP SDK {found} is not one skillstate knows ({', '.join(KNOWN_SDK_VERSIONS)}); "
            "using its public API only (the SDK's stdio transport, no fast result path)"
        )
    return None


_warned: list[bool] = []


def internals_allowed() -> bool:
    """Whether the SDK's internals may be used; warns once (on stderr's log) when not."""
    refusal = internals_refusal()
    if refusal is None:
        return True
    if not _warned:
        _warned.append(True)
        log.warning("%s", refusal)
    return False


def lowlevel_server(server: Any) -> Any | None:
    """``server``'s low-level ``Server`` (the fast stdio transport drives it), or ``None``."""
    if not internals_allowed():
        return None
    return getattr(server, "_lowlevel_server", None)


def serve_loop() -> Callable[..., Any] | None:
    """The SDK's loop-mode connection driver (``mcp.server.runner.serve_loop``), or ``None``."""
    if not internals_allowed():
        return None
    try:
        from mcp.server.runner import serve_loop as driver
    except ImportError:  # pragma: no cover - a known version has it
        return None
    return driver


def tool_table(server: Any) -> dict[str, Any] | None:
    """The server's name-to-tool table (to add ready-made tools), or ``None``."""
    if not internals_allowed():
        return None
    table = getattr(getattr(server, "_tool_manager", None), "_tools", None)
    return table if isinstance(table, dict) else None


def drop_tracing(server: Any) -> bool:
    """Remove the SDK's OpenTelemetry middleware from ``server``; whether it could."""
    if not internals_allowed():
        return False
    try:
        from mcp.server._otel import OpenTelemetryMiddleware
    except ImportError:  # pragma: no cover - a known version has it
        return False
    server.middleware[:] = [
        m for m in server.middleware if not isinstance(m, OpenTelemetryMiddleware)
    ]
    return True


WIRE_ATTRIBUTE = "_skillstate_wire"
"""The attribute of a pre-encoded ``CallToolResult`` holding its wire dict (results.py)."""

_installed: list[bool] = []


def install_result_fast_path() -> bool:
    """Let pre-encoded ``tools/call`` results skip the runner's re-validation; whether on.

    The runner's ``_serialize`` shapes every handler result for the wire: it dumps the
    model, validates the dump against the protocol version's result schema and dumps
    that again. For a result that carries its wire dict (built from a validated
    ``CallToolResult`` of plain JSON — :mod:`skillstate.mcp.results`) with no cache hint
    for ``tools/call``, the wrapper returns a copy of that dict (on the 2026 era with
    ``resultType`` and the runner's ``serverInfo`` stamp, as the sieve and the runner
    add them); anything else goes to the SDK's own ``_serialize``. The tests check the two
    give the same dict for generated results on every protocol version the SDK knows.
    """
    if _installed:
        return True
    if not internals_allowed():
        return False
    from mcp.server.runner import ServerRunner
    from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    original = ServerRunner._serialize

    def _serialize(self: Any, method: str, version: str, result: Any) -> dict[str, Any]:
        wire = getattr(result, WIRE_ATTRIBUTE, None)
        if (
            wire is None
            or method != "tools/call"
            or version not in KNOWN_PROTOCOL_VERSIONS
            or self.server.cache_hints.get(method) is not None
        ):
            return original(self, method, version, result)
        if version not in MODERN_PROTOCOL_VERSIONS:
            return dict(wire)
        # the 2026 era: the sieve adds resultType, then the runner stamps serverInfo
        dumped = {
            "content": wire["content"],
            "isError": wire["isError"],
            "resultType": "complete",
            "structuredContent": wire["structuredContent"],
        }
        stamped: dict[str, Any] = self._stamp_server_info(version, dumped)
        return stamped

    _serialize.__wrapped__ = original  # type: ignore[attr-defined]
    ServerRunner._serialize = _serialize  # type: ignore[method-assign]
    _installed.append(True)
    return True
