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
  result made by :func:`skillstate_plugins.mcp.results.ok_result` carries its wire form, built
  once with the result, so the runner does not validate and dump it twice more (see
  :mod:`skillstate_plugins.mcp.results`);
- :func:`install_call_fast_path` — ``ServerRunner._on_request``: a plain ``tools/call``
  of one of skillstate's own tools (``StrictTool``) on an initialized 2025-era
  connection goes to the tool directly, skipping what cannot change its answer (the
  request context, the ``tools/call`` params validated twice, the pass-through
  ``requestState`` middleware, the tool manager); anything else takes the SDK's path;
- :func:`http_exchange_kit` — the low-level server's ``_session_manager`` (its lifespan
  state, whether it runs) and the single-request driver ``mcp.server.runner.serve_one``
  with the pieces the SDK's stateless Streamable HTTP path builds a request from, for
  the single-exchange path of :mod:`skillstate_plugins.mcp.exchange`.

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
    "HttpExchangeKit",
    "drop_tracing",
    "http_exchange_kit",
    "install_call_fast_path",
    "install_result_fast_path",
    "internals_allowed",
    "internals_refusal",
    "lowlevel_server",
    "passes_tools_call",
    "sdk_version",
    "serve_loop",
    "tool_table",
]

log = logging.getLogger("skillstate_plugins.mcp")

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
    ``CallToolResult`` of plain JSON — :mod:`skillstate_plugins.mcp.results`) with no cache hint
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


_call_installed: list[type] = []

_PASSES_TOOLS_CALL: list[Any] = []
"""skillstate's own server middleware that hands a ``tools/call`` on untouched."""


def passes_tools_call(middleware: Any) -> Any:
    """Mark ``middleware`` (a server middleware of skillstate's) as one that calls
    ``call_next(ctx)`` for a ``tools/call`` and returns its result unchanged, so the call
    fast path may skip it; any other middleware on the server sends calls the SDK's way."""
    _PASSES_TOOLS_CALL.append(middleware)
    return middleware


class _SDK:
    """The SDK names the call fast path checks against, bound once when it is installed."""

    handshake_versions: frozenset[str] = frozenset()
    request_state_boundary: Any = type(None)
    mcp_server: Any = type(None)
    runner: Any = type(None)
    params_type: Any = type(None)
    handle_call_tool: Any = None
    server_call_tool: Any = None
    manager_call_tool: Any = None

    @classmethod
    def bind(cls) -> None:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.tools import ToolManager
        from mcp.server.request_state import RequestStateBoundary
        from mcp.server.runner import ServerRunner
        from mcp_types import CallToolRequestParams
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

        cls.handshake_versions = frozenset(HANDSHAKE_PROTOCOL_VERSIONS)
        cls.request_state_boundary = RequestStateBoundary
        cls.mcp_server = MCPServer
        cls.runner = ServerRunner
        cls.params_type = CallToolRequestParams
        cls.handle_call_tool = MCPServer._handle_call_tool
        cls.server_call_tool = MCPServer.call_tool
        cls.manager_call_tool = ToolManager.call_tool


def _fast_tool(runner: Any, params: Any, tool_type: type) -> Any | None:
    """The ``tool_type`` tool a ``tools/call`` with these params reaches, if the fast path may
    serve it; ``None`` sends the request down the SDK's own path.

    Every condition under which the SDK's path could answer differently than the tool
    itself is a ``None`` here: params other than exactly ``name`` (a string) and
    ``arguments`` (an object, absent or null) — a ``_meta`` (progress token, log level,
    the 2026 envelope), ``requestState``, ``task`` —; a connection not yet initialized
    or of the 2026 era; server middleware other than the SDK's ``RequestStateBoundary``
    (a pass-through for such params: it acts only on ``requestState``) and those
    :func:`passes_tools_call` marks, e.g. tracing; a
    cache hint for ``tools/call``; a ``tools/call`` handler that is not ``MCPServer``'s own;
    any step of the SDK's path replaced (the runner's class, the params type, or the
    ``call_tool`` of the server or of its tool manager — overridden in a subclass or
    patched on the instance, as an audit or authorization hook would be: the fast path
    must not go around it).
    """
    if type(params) is not dict or not 1 <= len(params) <= 2:
        return None
    name = params.get("name")
    if type(name) is not str:
        return None
    arguments = params.get("arguments")
    if len(params) == 2 and (
        "arguments" not in params or not (arguments is None or type(arguments) is dict)
    ):
        return None
    if type(runner) is not _SDK.runner:
        return None
    connection = runner.connection
    if connection.protocol_version not in _SDK.handshake_versions:
        return None
    if not connection.initialize_accepted:
        return None
    server = runner.server
    for middleware in server.middleware:
        if type(middleware) is not _SDK.request_state_boundary and not any(
            middleware is known for known in _PASSES_TOOLS_CALL
        ):
            return None
    if server.cache_hints.get("tools/call") is not None:
        return None
    entry = server.get_request_handler("tools/call")
    if getattr(entry, "params_type", None) is not _SDK.params_type:
        return None
    handler = getattr(entry, "handler", None)
    owner: Any = getattr(handler, "__self__", None)
    if getattr(handler, "__func__", None) is not _SDK.handle_call_tool or not isinstance(
        owner, _SDK.mcp_server
    ):
        return None
    # _handle_call_tool goes through these two; a replaced one takes the SDK's path
    if getattr(owner.call_tool, "__func__", None) is not _SDK.server_call_tool:
        return None
    manager = owner._tool_manager
    if getattr(manager.call_tool, "__func__", None) is not _SDK.manager_call_tool:
        return None
    tool = manager.get_tool(name)
    return tool if type(tool) is tool_type else None


async def _run_fast(runner: Any, tool: Any, params: dict[str, Any]) -> dict[str, Any]:
    """What the SDK's path returns for this call: the tool's result, shaped by ``_serialize``.

    An exception from the tool is answered as ``MCPServer._handle_call_tool`` answers it
    (an ``MCPError`` goes on to the dispatcher; anything else is logged and becomes an
    ``isError`` result with its text). skillstate's tools catch their own errors, so
    this is a safety net, not a path they take.
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.shared.exceptions import MCPError
    from mcp_types import CallToolResult, TextContent
    from pydantic import ValidationError

    name = params["name"]
    try:
        result = await tool.run(params.get("arguments") or {}, None, convert_result=True)
    except MCPError:
        raise
    except Exception as exc:
        # the same log lines as _handle_call_tool: an UnexpectedToolError (a ToolError
        # subclass) is a crash with its traceback; a rejected argument logs field names
        # only, never the caller's values
        sdk_log = logging.getLogger(MCPServer.__module__)
        if isinstance(exc, ToolError) and not isinstance(exc, UnexpectedToolError):
            if isinstance(exc.__cause__, ValidationError):
                fields = sorted(
                    {".".join(str(part) for part in e["loc"]) for e in exc.__cause__.errors()}
                )
                sdk_log.info("Tool %r rejected arguments: %r", name, fields)
            else:
                sdk_log.info("Tool %r failed: %r", name, str(exc))
        else:
            sdk_log.exception("Tool %r raised an unexpected exception", name)
        result = CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)
    version = runner.connection.protocol_version
    return dict(runner._serialize("tools/call", version, result))


def install_call_fast_path(tool_type: type) -> bool:
    """Serve plain ``tools/call`` requests for ``tool_type`` tools directly; whether on.

    For a request :func:`_fast_tool` accepts, the runner's ``_on_request`` runs the tool
    and shapes its result with the runner's own ``_serialize`` (so the answer is the
    SDK's, byte for byte — tests/mcp/test_mcp_call_fast_path.py compares the two paths
    on generated calls), without the request context, the two validations of the
    params (which such params always pass), the middleware chain and the tool manager.
    The dispatcher around it (a task per request, cancellation, the response) is the
    SDK's. Any other request — other methods, other tools, params with ``_meta`` — goes
    to the SDK's ``_on_request``. Installed once per process, for one tool type.
    """
    if _call_installed:
        return _call_installed[0] is tool_type
    if not internals_allowed():
        return False
    from mcp.server.runner import ServerRunner

    _SDK.bind()
    original = ServerRunner._on_request

    async def _on_request(self: Any, dctx: Any, method: str, params: Any) -> dict[str, Any]:
        if method == "tools/call":
            tool = _fast_tool(self, params, tool_type)
            if tool is not None:
                return await _run_fast(self, tool, params)
        result: dict[str, Any] = await original(self, dctx, method, params)
        return result

    _on_request.__wrapped__ = original  # type: ignore[attr-defined]
    ServerRunner._on_request = _on_request  # type: ignore[method-assign]
    _call_installed.append(tool_type)
    return True


class HttpExchangeKit:
    """The SDK pieces a stateless 2025-era POST is served with (:mod:`skillstate_plugins.mcp.exchange`).

    The same ones the SDK's stateless path (``StreamableHTTPSessionManager.
    _handle_stateless_request``) uses: a born-ready ``Connection`` seeded with the
    request's ``MCP-Protocol-Version`` (or the spec's default), the message metadata
    its transport attaches in JSON-response mode, the runner's single-request driver,
    and the dispatcher's mapping of a handler's exception to a JSON-RPC error.
    """

    def __init__(self, lowlevel: Any, manager: Any) -> None:
        from mcp.server.connection import Connection
        from mcp.server.runner import serve_one
        from mcp.server.streamable_http import StreamableHTTPServerTransport
        from mcp.shared.exceptions import NoBackChannelError
        from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
        from mcp.shared.message import ServerMessageMetadata
        from mcp.shared.transport_context import TransportContext
        from mcp_types import DEFAULT_NEGOTIATED_VERSION
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

        self.lowlevel = lowlevel
        self._manager = manager
        self.serve_one = serve_one
        self.from_envelope = Connection.from_envelope
        self.metadata = ServerMessageMetadata
        self.transport = TransportContext(kind="streamable-http", can_send_request=False)
        self.no_back_channel: type[Exception] = NoBackChannelError
        self.error_data: Callable[[BaseException], Any] = handler_exception_to_error_data
        self.handshake_versions = frozenset(HANDSHAKE_PROTOCOL_VERSIONS)
        self.default_version: str = DEFAULT_NEGOTIATED_VERSION
        self.dispatcher_log = logging.getLogger(handler_exception_to_error_data.__module__)
        self.transport_log = logging.getLogger(StreamableHTTPServerTransport.__module__)

    def running(self) -> bool:
        """Whether the session manager runs (its lifespan entered; otherwise the SDK refuses)."""
        return self._manager._task_group is not None

    def lifespan_state(self) -> Any:
        """The server's lifespan state, entered once by the session manager."""
        return self._manager._lifespan_state


def http_exchange_kit(server: Any) -> HttpExchangeKit | None:
    """The kit for ``server``'s Streamable HTTP app, built (``streamable_http_app``) stateless
    with JSON responses and no SDK auth in front; ``None`` otherwise or when the internals
    are off."""
    lowlevel = lowlevel_server(server)
    manager = getattr(lowlevel, "_session_manager", None)
    if manager is None or not (manager.stateless and manager.json_response):
        return None
    settings = getattr(server, "settings", None)
    if getattr(settings, "auth", None) is not None or getattr(server, "_token_verifier", None):
        return None  # the SDK's own bearer auth sits in front of its path: keep it there
    if not all(hasattr(manager, name) for name in ("_task_group", "_lifespan_state")):
        return None  # pragma: no cover - a known version has them
    return HttpExchangeKit(lowlevel, manager)
