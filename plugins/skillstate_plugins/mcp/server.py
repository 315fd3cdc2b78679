"""Building the MCP server: the SDK's ``MCPServer`` with the skillstate tools, resources, prompts.

>>> from skillstate_plugins.mcp import build_server
>>> server = build_server()            # doctest: +SKIP  (the configured store)
>>> server.run()                        # doctest: +SKIP  (stdio)

To add the skillstate surface to a server of your own::

    from mcp.server import MCPServer
    from skillstate_plugins.mcp import add_tools, skillstate_tools
    from skillstate.runtime import Runtime

    runtime = Runtime()                                   # or Runtime("sqlite:/srv/s.db")
    server = MCPServer("my-agent", tools=skillstate_tools(runtime))   # at construction
    # or, on an existing server (tools, resources and prompts):
    add_tools(server, runtime)

See ``docs/mcp.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import Field

from skillstate.display import excerpt
from skillstate.errors import SkillstateError
from skillstate.jsondoc import json_kind, pretty
from skillstate_plugins.mcp import sdk
from skillstate_plugins.mcp.offload import shared_policy
from skillstate_plugins.mcp.scrub import scrub
from skillstate_plugins.mcp.skill_tools import skill_tools
from skillstate_plugins.mcp.tooling import StrictTool
from skillstate_plugins.mcp.tools import INSTRUCTIONS, session_tools

if TYPE_CHECKING:
    from skillstate.runtime import Runtime
    from skillstate_plugins.skill_store import SkillStore

__all__ = [
    "HISTORY_PAGE_URI",
    "HISTORY_URI",
    "INDEX_URI",
    "SERVER_NAME",
    "SESSION_URI",
    "add_prompts",
    "add_resources",
    "add_tools",
    "build_server",
    "skillstate_tools",
]

SERVER_NAME = "skillstate"
INDEX_URI = "skill-state://sessions"
SESSION_URI = "skill-state://{session_id}"
HISTORY_URI = "skill-state://{session_id}/history"
HISTORY_PAGE_URI = "skill-state://{session_id}/history/{after}"

T = TypeVar("T")


def skillstate_tools(
    runtime: Runtime,
    *,
    skills: SkillStore | None = None,
    allow_skill_writes: bool = False,
    offload: bool = True,
) -> list[Tool]:
    """The session tools, plus the skill-store tools when ``skills`` is given.

    Pass them to ``MCPServer(..., tools=...)``. ``offload`` lets calls run on worker
    threads while they are slow (right for HTTP, where requests overlap; see
    :mod:`skillstate_plugins.mcp.offload`); ``False`` runs every call on the event loop.
    """
    tools: list[Tool] = [*session_tools(runtime, offload=offload)]
    if skills is not None:
        tools.extend(skill_tools(skills, allow_writes=allow_skill_writes, offload=offload))
    return tools


async def _call(offload: bool, fn: Callable[[], T]) -> T:
    if offload:
        return await shared_policy().run(fn)
    return fn()


def _resource_call(fn: Callable[[], str]) -> str:
    from skillstate.runtime.errors import InvalidSessionId, SessionNotFound

    try:
        return fn()
    except (SessionNotFound, InvalidSessionId) as exc:
        raise ResourceNotFoundError(scrub(str(exc))) from None
    except SkillstateError as exc:
        raise ResourceError(scrub(str(exc))) from None


def add_resources(server: MCPServer[Any], runtime: Runtime, *, offload: bool = True) -> None:
    """``skill-state://sessions`` (the index), ``skill-state://{session_id}`` (one session)
    and ``skill-state://{session_id}/history[/{after}]`` (its history, paged)."""

    @server.resource(
        INDEX_URI,
        name="sessions-index",
        title="SKILL.state session index",
        description="Index of all active skill sessions with step counts, statuses and state "
        "keys. Developer-facing inspection only; never fed to the LLM.",
        mime_type="application/json",
    )
    async def sessions_index() -> str:
        return await _call(offload, lambda: _resource_call(lambda: pretty(runtime.list_sessions())))

    @server.resource(
        SESSION_URI,
        name="skill-session",
        title="SKILL.state session inspector",
        description="Read-only inspection of one skill session: the immutable spec P, the live "
        "execution state Σ, and server-side metadata (never any reasoning). Reading this "
        "resource consumes ZERO LLM context tokens — it exists so developers can debug without "
        "polluting the agent's context window.",
        mime_type="application/json",
    )
    async def skill_session(session_id: str) -> str:
        return await _call(
            offload, lambda: _resource_call(lambda: pretty(runtime.get_session(session_id)))
        )

    def history_page(session_id: str, after: int) -> str:
        page = runtime.session_history(session_id, after=after)
        following = page["next_after"]
        page["next"] = (
            None if following is None else f"skill-state://{session_id}/history/{following}"
        )
        return pretty(page)

    @server.resource(
        HISTORY_URI,
        name="skill-session-history",
        title="SKILL.state session history",
        description="The session's history, a page of 50 versions: for each its step, time, "
        "label, the state keys it changed, the action, the observation's SHA-256, the status "
        "and any rollback (never any reasoning). 'next' is the URI of the next page.",
        mime_type="application/json",
    )
    async def session_history(session_id: str) -> str:
        return await _call(offload, lambda: _resource_call(lambda: history_page(session_id, 0)))

    @server.resource(
        HISTORY_PAGE_URI,
        name="skill-session-history-page",
        title="SKILL.state session history (a later page)",
        description="The versions after {after} of the session's history (see "
        "skill-state://{session_id}/history).",
        mime_type="application/json",
    )
    async def session_history_page(session_id: str, after: str) -> str:
        def read() -> str:
            if not after.isascii() or not after.isdigit():
                raise ResourceNotFoundError(f"{after!r} is not a version (a whole number >= 0)")
            return history_page(session_id, int(after))

        return await _call(offload, lambda: _resource_call(read))


_PROMPT_ARGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "skill_state_turn": (("session_id",), ()),
    "skill_state_paper_turn": (("session_id",), ("compact",)),
}
"""Each prompt's (required, optional) arguments."""


def _prompt_call(fn: Callable[[], str]) -> str:
    try:
        return fn()
    except SkillstateError as exc:
        raise MCPError(INVALID_PARAMS, scrub(str(exc))) from None


def _check_prompt(name: str, arguments: dict[str, Any] | None, known: Sequence[str]) -> None:
    """Refuse, as JSON-RPC -32602 with a clear message, what the SDK answers as code 0."""
    if name not in _PROMPT_ARGS:
        if name in known:
            return  # a prompt of the host application: the SDK's own handling
        raise MCPError(
            INVALID_PARAMS,
            f"unknown prompt {excerpt(name, 80)!r}; the prompts are: {', '.join(known)}",
        )
    required, optional = _PROMPT_ARGS[name]
    given = arguments or {}
    missing = [arg for arg in required if arg not in given]
    if missing:
        raise MCPError(
            INVALID_PARAMS, f"prompt {name} needs the argument {', '.join(missing)} (a string)"
        )
    unknown = [key for key in given if key not in required and key not in optional]
    if unknown:
        accepted = ", ".join((*required, *optional))
        raise MCPError(
            INVALID_PARAMS,
            f"prompt {name} has no argument {excerpt(unknown[0], 80)!r} (it takes: {accepted})",
        )


_PROMPT_ARG_HINTS = {"compact": "a string ('true' or 'false')"}
"""What a prompt argument holds, where more than "a string" helps."""


def _argument_type_problem(params: Any) -> str | None:
    """Why ``prompts/get`` params do not hold string arguments (MCP: every prompt argument
    is a string), naming the prompt, the argument and the type wanted; ``None`` if they do."""
    if not isinstance(params, Mapping) or "name" not in params:
        return None  # the SDK's own answer (framing.py's for params that are not an object)
    name, arguments = params["name"], params.get("arguments")
    if not isinstance(name, str):
        return f"prompts/get: name must be a string, got {json_kind(name)}"
    prompt = f"prompt {excerpt(name, 80)}"
    if arguments is None:
        return None
    if not isinstance(arguments, Mapping):
        return f"{prompt}: arguments must be an object of strings, got {json_kind(arguments)}"
    for key, value in arguments.items():
        if not isinstance(value, str):
            takes = key in sum(_PROMPT_ARGS.get(name, ((), ())), ())  # a hint for its own
            wanted = _PROMPT_ARG_HINTS.get(key, "a string") if takes else "a string"
            return (
                f"{prompt}: the argument {excerpt(key, 80)} must be {wanted}, "
                f"got {json_kind(value)}"
            )
    return None


@sdk.passes_tools_call
async def _prompt_argument_types(ctx: Any, call_next: Callable[[Any], Any]) -> Any:
    """Server middleware: a ``prompts/get`` whose arguments are not strings is -32602 naming
    the argument and the type wanted (the SDK's own answer, before any handler runs, is
    a bare "Invalid request parameters"). Every other message passes straight through, and
    so does a notification (no id) named ``prompts/get``: it has no one to answer, and an
    error raised for it is logged by the SDK with a traceback (it drops it quietly)."""
    if ctx.method == "prompts/get" and ctx.request_id is not None:
        problem = _argument_type_problem(ctx.params)
        if problem is not None:
            raise MCPError(INVALID_PARAMS, problem)
    return await call_next(ctx)


def _guard_prompts(server: MCPServer[Any]) -> None:
    """Wrap the server's ``get_prompt`` so that bad prompt requests are -32602, never code 0.

    The SDK answers a missing argument, an unknown prompt or a failed render as a plain
    exception (JSON-RPC code 0, a traceback in the log); the checks here answer them
    with ``INVALID_PARAMS`` and a message naming what was wrong. An argument that is
    not a string is refused before that, by a middleware (``MCPServer.middleware``, the
    SDK's public hook that runs before it validates a request), with a message naming
    the argument and the type wanted.
    """
    server.middleware.append(_prompt_argument_types)
    original = server.get_prompt

    async def get_prompt(
        name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> Any:
        known = [prompt.name for prompt in await server.list_prompts()]
        _check_prompt(name, arguments, known)
        try:
            return await original(name, arguments, context)
        except MCPError:
            raise
        except Exception as exc:
            cause: BaseException | None = exc
            while cause is not None:
                if isinstance(cause, MCPError):
                    raise cause from None
                cause = cause.__cause__
            if name not in _PROMPT_ARGS:
                raise
            raise MCPError(
                INVALID_PARAMS, f"prompt {name} failed: {excerpt(scrub(str(exc)))}"
            ) from None

    server.get_prompt = get_prompt  # type: ignore[method-assign]


def add_prompts(server: MCPServer[Any], runtime: Runtime, *, offload: bool = True) -> None:
    """``skill_state_turn`` (tool-calling agents) and ``skill_state_paper_turn`` (the A.4 format).

    A bad prompt request (a missing or unknown argument, an unknown session) is answered
    as JSON-RPC ``-32602`` with a message naming what was wrong.
    """
    _guard_prompts(server)

    @server.prompt(
        name="skill_state_turn",
        title="SKILL.state turn prompt",
        description="The session's (P, Σ, O) tuple and how to answer with execute_step.",
    )
    async def skill_state_turn(
        session_id: Annotated[
            str, Field(description="Session whose (P, Σ, O) tuple should be rendered.")
        ],
    ) -> str:
        return await _call(offload, lambda: _prompt_call(lambda: runtime.turn_prompt(session_id)))

    @server.prompt(
        name="skill_state_paper_turn",
        title="SKILL.state canonical paper turn prompt",
        description="The paper's Appendix A.4 prompt for the session: Instructions, Skill "
        "Execution State, Latest Observation, and the response format (reasoning, then a "
        "```json block with state_patch and action).",
    )
    async def skill_state_paper_turn(
        session_id: Annotated[
            str, Field(description="Session whose (P, Σ, O) tuple should be rendered.")
        ],
        compact: Annotated[
            str,
            Field(
                description="Whether to serialize Σ using single-line compact JSON matching the "
                "paper ('true' or 'false', default 'true')."
            ),
        ] = "true",
    ) -> str:
        flag = compact != "false"
        return await _call(
            offload,
            lambda: _prompt_call(lambda: runtime.paper_prompt(session_id, compact=flag)),
        )


def _insert_tools(server: MCPServer[Any], tools: list[Tool]) -> None:
    """Add ``tools`` to the server's tool table, all or none (a name clash adds nothing)."""
    table = sdk.tool_table(server)
    if table is None:
        raise RuntimeError(
            "this version of the MCP SDK keeps its tools differently; build the server with "
            "MCPServer(..., tools=skillstate_tools(runtime)) and call add_resources/add_prompts"
        )
    for tool in tools:
        if tool.name in table:
            raise ValueError(f"the server already has a tool named {tool.name!r}")
    for tool in tools:
        table[tool.name] = tool


def add_tools(
    server: MCPServer[Any],
    runtime: Runtime,
    *,
    skills: SkillStore | None = None,
    allow_skill_writes: bool = False,
    offload: bool = True,
    resources: bool = True,
    prompts: bool = True,
) -> None:
    """Add the skillstate tools (and, by default, resources and prompts) to ``server``.

    The SDK has no public call that adds a ready-made tool object to a constructed
    server, so this inserts into its tool table (checked; a clear error if the SDK
    changes). ``MCPServer(..., tools=skillstate_tools(runtime))`` is the fully public
    alternative.
    """
    _insert_tools(
        server,
        skillstate_tools(
            runtime, skills=skills, allow_skill_writes=allow_skill_writes, offload=offload
        ),
    )
    if resources:
        add_resources(server, runtime, offload=offload)
    if prompts:
        add_prompts(server, runtime, offload=offload)


def _tracing_configured() -> bool:
    """Whether an OpenTelemetry SDK provider is installed (else every span is a no-op)."""
    try:
        from opentelemetry import trace
    except ImportError:  # pragma: no cover - opentelemetry-api is an SDK dependency
        return False
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _drop_tracing(server: MCPServer[Any]) -> None:
    """Remove the SDK's OpenTelemetry middleware (about 0.1 ms per request of no-op spans)."""
    sdk.drop_tracing(server)  # an SDK whose internals skillstate does not know: kept


def build_server(
    runtime: Runtime | None = None,
    *,
    skills: SkillStore | None = None,
    allow_skill_writes: bool = False,
    offload: bool = True,
    name: str = SERVER_NAME,
    tracing: bool | None = None,
) -> MCPServer[Any]:
    """The skillstate MCP server over ``runtime`` (default: the configured store).

    ``tracing`` keeps the SDK's OpenTelemetry span per request; ``None`` (default)
    keeps it only when an OpenTelemetry SDK tracer provider is installed at build time
    (e.g. under ``opentelemetry-instrument``), since otherwise every span is a no-op.
    """
    from skillstate._version import __version__

    if runtime is None:
        from skillstate.runtime import Runtime

        runtime = Runtime()
    server: MCPServer[Any] = MCPServer(
        name,
        title="SKILL.state runtime (skillstate)",
        instructions=INSTRUCTIONS,
        version=__version__,
        tools=skillstate_tools(
            runtime, skills=skills, allow_skill_writes=allow_skill_writes, offload=offload
        ),
        log_level="WARNING",
    )
    add_resources(server, runtime, offload=offload)
    add_prompts(server, runtime, offload=offload)
    sdk.install_result_fast_path()
    sdk.install_call_fast_path(StrictTool)
    if not (tracing if tracing is not None else _tracing_configured()):
        _drop_tracing(server)
    return server
