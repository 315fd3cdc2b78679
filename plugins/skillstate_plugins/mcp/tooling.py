"""The tool machinery: a strict SDK ``Tool`` subclass and the result shapes.

:class:`StrictTool` is an ``mcp.server.mcpserver.tools.Tool`` whose ``run`` checks the
raw ``arguments`` object itself (:mod:`skillstate_plugins.mcp.args`) instead of going through
the SDK's per-function Pydantic model, which would silently drop unknown keys and
JSON-decode strings. Everything else (listing, dispatch, the JSON-RPC protocol) is
the SDK's.

Results follow the reference server: success is one text block holding the pretty
JSON of the payload (:func:`skillstate.plugin.pretty`: 2-space indent, non-ASCII kept)
plus the same payload as ``structuredContent``; a failure is an ``isError`` result
whose text is the error message. No exception escapes a tool: an unexpected one is
logged (with its traceback, on stderr) and reported as ``SKILL.state runtime error:
...`` without internals.

With ``offload`` (the HTTP server, where requests overlap) every call runs on a worker
thread (:func:`run_offloaded`): the event loop never waits on a store — a call that
blocks on another process's commit lock, a slow disk or a remote database would
otherwise hold up every other request, ``/health`` included.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import anyio.to_thread
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from skillstate.plugin import SkillstateError, pretty

from .args import ArgumentError, Param, check_arguments, input_schema
from .scrub import scrub

__all__ = [
    "StrictTool",
    "error_result",
    "make_tool",
    "ok_result",
    "run_guarded",
    "run_offloaded",
]

log = logging.getLogger("skillstate_plugins.mcp")

Handler = Callable[[dict[str, Any]], CallToolResult]
T = TypeVar("T")


async def run_offloaded(fn: Callable[[], T]) -> T:
    """Run ``fn`` on a worker thread (anyio's default limiter) and return its result."""
    return await anyio.to_thread.run_sync(fn)


def ok_result(data: dict[str, Any]) -> CallToolResult:
    """Success: pretty JSON text (2-space indent, non-ASCII kept) plus ``structuredContent``."""
    return CallToolResult(
        content=[TextContent(type="text", text=pretty(data))], structured_content=data
    )


def error_result(message: str) -> CallToolResult:
    """A tool error the model can read: ``isError`` with the message as text (scrubbed of
    server paths and store credentials, bounded: :func:`.scrub.scrub`)."""
    return CallToolResult(content=[TextContent(type="text", text=scrub(message))], is_error=True)


def run_guarded(tool: str, call: Callable[[], CallToolResult]) -> CallToolResult:
    """Run ``call``; a skillstate error becomes its message, anything else a logged runtime error."""
    try:
        return call()
    except SkillstateError as exc:
        return error_result(str(exc))
    except RecursionError:
        return error_result(
            f"SKILL.state runtime error: the arguments of {tool} are nested too deeply"
        )
    except Exception as exc:
        log.exception("tool %s failed unexpectedly", tool)
        return error_result(
            f"SKILL.state runtime error: {tool} failed unexpectedly ({type(exc).__name__}); "
            "nothing is reported beyond this — see the server log"
        )


async def _placeholder() -> None:
    """Stands in for the SDK's function metadata; :class:`StrictTool` never calls it."""


_PLACEHOLDER_METADATA = func_metadata(_placeholder, structured_output=False)


class StrictTool(Tool):
    """An SDK tool with hand-written, strictly enforced arguments.

    ``fn`` takes the checked arguments dict and returns a ``CallToolResult``;
    ``offload`` runs it on a worker thread (for servers handling concurrent requests)
    instead of on the event loop.
    """

    params: Any = Field(default=(), exclude=True)
    offload: bool = Field(default=True, exclude=True)

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        try:
            checked = check_arguments(self.name, self.params, arguments)
        except ArgumentError as exc:
            return error_result(str(exc))
        fn: Handler = self.fn
        if self.offload:
            return await run_offloaded(lambda: fn(checked))
        return fn(checked)


def make_tool(
    name: str,
    title: str,
    description: str,
    params: Sequence[Param],
    handler: Handler,
    *,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool = False,
    offload: bool = True,
) -> StrictTool:
    """A :class:`StrictTool` whose advertised input schema is exactly ``params``."""

    def guarded(args: dict[str, Any]) -> CallToolResult:
        return run_guarded(name, lambda: handler(args))

    return StrictTool(
        fn=guarded,
        name=name,
        title=title,
        description=description,
        parameters=input_schema(params),
        fn_metadata=_PLACEHOLDER_METADATA,
        is_async=False,
        context_kwarg=None,
        annotations=ToolAnnotations(
            title=title,
            read_only_hint=read_only,
            destructive_hint=destructive,
            idempotent_hint=idempotent,
            open_world_hint=False,
        ),
        params=tuple(params),
        offload=offload,
    )
