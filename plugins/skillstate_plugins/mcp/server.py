"""Building the MCP server: the SDK's ``MCPServer`` with the skillstate tools, resources, prompts.

>>> from skillstate_plugins.mcp import build_server
>>> server = build_server()            # doctest: +SKIP  (the configured store)
>>> server.run()                        # doctest: +SKIP  (stdio)

To put the skillstate surface on a server of your own, give the SDK the tools when it
builds the server (it has no public call that adds a ready-made tool to a built one),
then add the resources and prompts::

    from mcp.server import MCPServer
    from skillstate.plugin.runtime import Runtime
    from skillstate_plugins.mcp import add_prompts, add_resources, skillstate_tools

    runtime = Runtime()                                   # or Runtime("sqlite:/srv/s.db")
    server = MCPServer("my-agent", tools=skillstate_tools(runtime))
    add_resources(server, runtime)
    add_prompts(server, runtime)

or start from :func:`build_server` and add tools of your own with ``@server.tool()``.
Everything here is the SDK's public API. See ``docs/mcp.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import Field

from skillstate.plugin import InvalidRunId, RunNotFound, SkillstateError, excerpt, pretty

from .args import json_kind
from .scrub import public_session, scrub
from .skill_tools import skill_tools
from .tooling import run_offloaded
from .tools import INSTRUCTIONS, session_tools

if TYPE_CHECKING:
    from skillstate.plugin.runtime import Runtime

__all__ = [
    "HISTORY_PAGE_URI",
    "HISTORY_URI",
    "INDEX_URI",
    "SERVER_NAME",
    "SESSION_URI",
    "add_prompts",
    "add_resources",
    "build_server",
    "skillstate_tools",
    "skillstate_version",
]

SERVER_NAME = "skillstate"
INDEX_URI = "skill-state://sessions"
SESSION_URI = "skill-state://{session_id}"
HISTORY_URI = "skill-state://{session_id}/history"
HISTORY_PAGE_URI = "skill-state://{session_id}/history/{after}"

T = TypeVar("T")


def skillstate_version() -> str:
    """The installed skillstate distribution's version (``"unknown"`` without metadata)."""
    try:
        return version("skillstate")
    except PackageNotFoundError:
        return "unknown"


def skillstate_tools(
    runtime: Runtime,
    *,
    skills: Any = None,
    allow_skill_writes: bool = False,
    offload: bool = True,
) -> list[Tool]:
    """The session tools, plus the skill-store tools when ``skills`` (a skill store:
    ``host.skill_store()``) is given.

    Pass them to ``MCPServer(..., tools=...)``. ``offload`` runs every call on a worker
    thread (right for HTTP, where requests overlap); ``False`` runs every call on the
    event loop (stdio, one request at a time).
    """
    tools: list[Tool] = [*session_tools(runtime, offload=offload)]
    if skills is not None:
        tools.extend(skill_tools(skills, allow_writes=allow_skill_writes, offload=offload))
    return tools


async def _call(offload: bool, fn: Callable[[], T]) -> T:
    if offload:
        return await run_offloaded(fn)
    return fn()


def _resource_call(fn: Callable[[], str]) -> str:
    try:
        return fn()
    except (RunNotFound, InvalidRunId) as exc:  # a missing session, a malformed id
        raise ResourceNotFoundError(scrub(str(exc))) from None
    except SkillstateError as exc:  # the caller's mistake (a page past the end): -32602
        if exc.kind == "usage":
            raise ResourceNotFoundError(scrub(str(exc))) from None
        raise ResourceError(scrub(str(exc))) from None


_MAX_VERSION_DIGITS = 18
"""A history page's ``after`` longer than this is past any session's history."""


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
            offload,
            lambda: _resource_call(lambda: pretty(public_session(runtime.get_session(session_id)))),
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
                raise ResourceNotFoundError(
                    f"'{excerpt(after, 40)}' is not a version (a whole number >= 0)"
                )
            if len(after) > _MAX_VERSION_DIGITS:  # past any history (and int() refuses 4,301)
                raise ResourceNotFoundError(
                    f"after={excerpt(after, 40)} is past the session's history"
                )
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
            f"unknown prompt '{excerpt(name, 80)}'; the prompts are: {', '.join(known)}",
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
            f"prompt {name} has no argument '{excerpt(unknown[0], 80)}' (it takes: {accepted})",
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


def _prompt_failure(name: str, exc: Exception) -> MCPError | None:
    """The -32602 answer for a failed render of one of our prompts (``None``: not ours)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, MCPError):
            return cause
        cause = cause.__cause__
    if name not in _PROMPT_ARGS:
        return None
    return MCPError(INVALID_PARAMS, f"prompt {name} failed: {excerpt(scrub(str(exc)))}")


def _prompt_guard(server: MCPServer[Any]) -> Callable[..., Any]:
    """Server middleware (``MCPServer.middleware``, the SDK's public hook that runs before
    it validates a request) answering bad ``prompts/get`` requests as -32602 naming what
    was wrong, never the SDK's code 0 or its bare "Invalid request parameters":

    - an argument that is not a string names the argument and the type wanted;
    - a missing or unknown argument, or an unknown prompt, names it (and what is known);
    - a failed render of one of our prompts (an unknown session) carries its message.

    Every other message passes straight through, and so does a notification (no id)
    named ``prompts/get``: it has no one to answer, and an error raised for it is logged
    by the SDK with a traceback (it drops it quietly)."""

    async def guard(ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        if ctx.method != "prompts/get" or ctx.request_id is None:
            return await call_next(ctx)
        problem = _argument_type_problem(ctx.params)
        if problem is not None:
            raise MCPError(INVALID_PARAMS, problem)
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        name = params.get("name")
        if not isinstance(name, str):
            return await call_next(ctx)  # the SDK's own answer
        known = [prompt.name for prompt in await server.list_prompts()]
        _check_prompt(name, params.get("arguments"), known)
        try:
            return await call_next(ctx)
        except MCPError:
            raise
        except Exception as exc:
            failure = _prompt_failure(name, exc)
            if failure is None:
                raise
            raise failure from None

    return guard


def _params_problem(method: str, params: Mapping[str, Any]) -> str | None:
    """Why ``tools/call`` or ``resources/read`` params are not of the types MCP asks for,
    naming the field; ``None`` if they are (the SDK's own check then names nothing)."""
    if method == "tools/call":
        if "name" not in params:
            return "tools/call: name is missing (the tool to call, a string)"
        if not isinstance(params["name"], str):
            return f"tools/call: name must be a string, got {json_kind(params['name'])}"
        arguments = params.get("arguments")
        if arguments is not None and not isinstance(arguments, Mapping):
            return f"tools/call: arguments must be an object, got {json_kind(arguments)}"
    elif method == "resources/read":
        if "uri" not in params:
            return "resources/read: uri is missing (the resource to read, a string)"
        if not isinstance(params["uri"], str):
            return f"resources/read: uri must be a string, got {json_kind(params['uri'])}"
    return None


async def _escaped_resource_errors(ctx: Any, call_next: Callable[[Any], Any]) -> Any:
    """``resources/read`` through ``call_next``, its error (``Unknown resource: URI``,
    with the URI in ``data``) escaped and bounded when the caller's URI is not printable
    or is long."""
    uri = ctx.params["uri"]
    try:
        return await call_next(ctx)
    except MCPError as exc:
        if excerpt(uri, 200) == uri and excerpt(exc.message, 1000) == exc.message:
            raise
        data = {"uri": excerpt(uri, 200)} if isinstance(exc.data, Mapping) else None
        raise MCPError(exc.code, excerpt(exc.message, 1000), data) from None


def _params_guard(server: MCPServer[Any]) -> Callable[..., Any]:
    """Server middleware for ``tools/call`` and ``resources/read`` requests:

    - params of the wrong type are -32602 naming the field and what it got, not the
      SDK's bare "Invalid request parameters" with empty data;
    - an unknown tool's name reaches the SDK (which answers ``Unknown tool: NAME``)
      escaped and bounded (:func:`~skillstate.plugin.excerpt`), and so does the URI in
      a ``resources/read`` error: a caller's control characters never come back raw.
    """

    async def guard(ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        if ctx.method not in ("tools/call", "resources/read") or ctx.request_id is None:
            return await call_next(ctx)
        if not isinstance(ctx.params, Mapping):
            return await call_next(ctx)  # no params: the SDK's own answer
        problem = _params_problem(ctx.method, ctx.params)
        if problem is not None:
            raise MCPError(INVALID_PARAMS, problem)
        if ctx.method == "resources/read":
            return await _escaped_resource_errors(ctx, call_next)
        name = ctx.params.get("name")
        if excerpt(name, 80) != name:
            if name not in {tool.name for tool in await server.list_tools()}:
                ctx = replace(ctx, params={**ctx.params, "name": excerpt(name, 80)})
        return await call_next(ctx)

    return guard


def add_prompts(server: MCPServer[Any], runtime: Runtime, *, offload: bool = True) -> None:
    """``skill_state_turn`` (tool-calling agents) and ``skill_state_paper_turn`` (the A.4 format).

    A bad prompt request (a missing or unknown argument, an unknown session) is answered
    as JSON-RPC ``-32602`` with a message naming what was wrong.
    """
    server.middleware.append(_prompt_guard(server))

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


def build_server(
    runtime: Runtime | None = None,
    *,
    skills: Any = None,
    allow_skill_writes: bool = False,
    offload: bool = True,
    name: str = SERVER_NAME,
) -> MCPServer[Any]:
    """The skillstate MCP server over ``runtime`` (default: the configured store), with
    the skill-store tools when ``skills`` (``host.skill_store()``) is given.

    The SDK's OpenTelemetry span per request is the SDK's: recorded when a tracer
    provider is installed (``opentelemetry-instrument``), a no-op otherwise.
    """
    if runtime is None:
        from skillstate.plugin.runtime import Runtime

        runtime = Runtime()
    server: MCPServer[Any] = MCPServer(
        name,
        title="SKILL.state runtime (skillstate)",
        instructions=INSTRUCTIONS,
        version=skillstate_version(),
        tools=skillstate_tools(
            runtime, skills=skills, allow_skill_writes=allow_skill_writes, offload=offload
        ),
        log_level="WARNING",
    )
    server.middleware.append(_params_guard(server))
    add_resources(server, runtime, offload=offload)
    add_prompts(server, runtime, offload=offload)
    return server
