"""The inspector's Starlette app: routes, templates and error pages.

A thin adapter: each route parses its parameters, calls one function of
:mod:`.queries` in a worker thread (the store API is synchronous) and renders a
template or JSON. :func:`ui_app` builds the app behind its :class:`.gate.UiGate`;
``prefix`` mounts it under a path (``/ui`` in ``skillstate mcp --http --ui``).

Pages (``{prefix}`` first):

- ``/`` — runs and sessions (``?skill=``, ``?status=``, ``?q=`` id search, ``?page=``);
- ``/runs/RUN`` — a run: Σ, P and its source (sessions), metadata, environment, and
  the timeline of versions, newest first (``?page=``);
- ``/runs/RUN/at/V`` — Σ at version V;
- ``/runs/RUN/diff/V`` — version V against V − 1; ``/runs/RUN/diff?from=A&to=B`` any two;
- ``/runs/RUN/prompt?v=V&style=S`` — a session's prompt at version V (default: now), as the
  runtime rendered it, P, Σ and O marked; ``/runs/RUN/prompt.txt`` — the same, exact bytes;
- ``/runs/RUN/export`` — the export file (``skillstate export``'s format), as a download;
- ``/api/runs/RUN/versions?after=V`` — JSON: the head version and the rows after V
  (what the page's script polls for live updates);
- ``/health`` — JSON: ``status``, the store URL without its path (``file:<store>``) or
  password, its durability, how many runs it lists; 503 when the store cannot be read;
- ``/static/…`` — the stylesheet and the script.
"""

from __future__ import annotations

import logging
import re
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.to_thread
import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from skillstate.plugin import (
    InvalidInput,
    RunNotFound,
    SkillstateError,
    check_run_id,
    mask_url,
    now_iso,
)

from . import queries
from .gate import UiGate
from .listing import Listing
from .prompt_page import NotASession, prompt_view

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from starlette.types import ASGIApp

    from skillstate.plugin import Host, Store

__all__ = [
    "EXPORTS_AT_ONCE",
    "POLL_MS",
    "public_message",
    "public_store_url",
    "ui_app",
    "ui_routes",
    "url_secrets",
]

log = logging.getLogger(__package__)
HERE = Path(__file__).parent
STATIC = {"ui.css": "text/css", "live.js": "text/javascript"}
POLL_MS = 1500
"""How often an open run page asks for new versions."""
EXPORTS_AT_ONCE = 2
"""How many export downloads check their journal's replay at once (the rest wait)."""
T = TypeVar("T")

_PATH = re.compile(r"(?<![\w.:/-])(?:[A-Za-z]:)?(?:/[\w.@+~-]+){2,}/?")


_STORE_PATH = re.compile(r"\b(file|sqlite):(?![<])[\w.@+~/-]+")
"""A path-based store URL (``file:/srv/state``, ``sqlite:////srv/runs.db``): all path."""


_SECRET_OPTION = re.compile(r"pass|pwd|secret|token|key", re.I)
"""A store URL's query option whose value is a secret (``password=``, ``sslpassword=``...)."""


def url_secrets(url: str) -> list[str]:
    """The secrets written in a store URL: its password and the values of its secret
    options (``?password=``, ``?token=``...), each as written and percent-decoded."""
    try:
        parts = urllib.parse.urlsplit(url)
        found = [parts.password or ""]
    except ValueError:  # not a URL one can split: no userinfo to find
        return []
    for pair in re.split(r"[&;]", parts.query):
        key, _, value = pair.partition("=")
        if _SECRET_OPTION.search(key):
            found.append(value)
    forms = {f for v in found for f in (v, urllib.parse.unquote(v), urllib.parse.unquote_plus(v))}
    return sorted((f for f in forms if f), key=len, reverse=True)


def _masked(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret (longest first) replaced by ``***``; one shorter than 8
    characters only where it stands alone (a password ``pw`` leaves "pwd" alone)."""
    for secret in secrets:
        if len(secret) >= 8:
            text = text.replace(secret, "***")
        else:
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", "***", text)
    return text


def public_message(text: str, secrets: Sequence[str] = ()) -> str:
    """An error message fit for a page: credentials masked, file system paths cut out
    (store URLs naming a path included)."""
    text = _STORE_PATH.sub(r"\1:<path>", _masked(text, sorted(secrets, key=len, reverse=True)))
    return _PATH.sub("<path>", text)


def public_store_url(url: str) -> str:
    """A store URL fit for a client (``/health``): credentials masked, a ``file:`` or
    ``sqlite:`` path as ``<store>`` (``file:<store>?durability=process``), any other
    absolute path as ``<path>``."""
    masked = mask_url(url)
    return _PATH.sub("<path>", _STORE_PATH.sub(r"\1:<store>", masked))


def _templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(HERE / "templates")),
        autoescape=True,  # every string an agent wrote is escaped; no template uses |safe
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env


class _Pages:
    """The routes' shared parts: store access (one at a time), rendering, errors."""

    def __init__(self, host: Host, store: Store, prefix: str, title: str) -> None:
        self.host = host
        self.store = store
        self.prefix = prefix
        self.title = title
        self.listing = Listing()
        self.exports = anyio.Semaphore(EXPORTS_AT_ONCE)
        self.env = _templates()
        self.store_url = str(getattr(store, "url", "") or "")
        self.secrets = url_secrets(self.store_url)
        try:
            configured = str(host.config.store)
            self.secrets += url_secrets(configured)
            self.store_url = self.store_url or configured
        except Exception:  # a host built without a configuration: nothing more to mask
            pass

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(host, store, ...)`` in a worker thread (the bundled stores are thread-safe)."""

        def run() -> T:
            return fn(self.host, self.store, *args, **kwargs)

        return await anyio.to_thread.run_sync(run)

    def page(self, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        template = self.env.get_template(name)
        text = template.render(base=self.prefix, title=self.title, poll_ms=POLL_MS, **values)
        return HTMLResponse(text, status_code=status, headers={"cache-control": "no-store"})

    def error(self, request: Request, status: int, message: str) -> Response:
        text = public_message(message, self.secrets)
        if request.url.path.startswith(f"{self.prefix}/api/"):
            return JSONResponse({"error": text}, status_code=status)
        return self.page("error.html", status=status, status_code=status, message=text)

    async def guarded(self, request: Request, body: Callable[[], Any]) -> Response:
        try:
            result: Response = await body()
            return result
        except (RunNotFound, queries.NoSuchVersion, NotASession) as exc:
            return self.error(request, 404, str(exc))
        except SkillstateError as exc:
            if getattr(exc, "kind", "error") == "usage":  # a bad id, version or bound
                return self.error(request, 400, str(exc))
            return self.error(request, 503, f"the store could not be read: {exc}")
        except Exception as exc:
            log.exception(
                "inspector page %s failed: %s",
                request.url.path,
                public_message(f"{type(exc).__name__}: {exc}", self.secrets),
            )
            return self.error(request, 500, "internal error (the server's log has the details)")


def _digits(value: str) -> bool:
    """ASCII digits only, at most 12: ``str.isdigit`` also takes ``²`` (``int()`` refuses it)
    and ``١`` (which ``int()`` reads)."""
    return 0 < len(value) <= 12 and value.isascii() and value.isdigit()


def _whole(request: Request, name: str, default: int | None = None, low: int = 1) -> int:
    value = request.query_params.get(name) if name in request.query_params else None
    if value is None or value == "":
        if default is None:
            raise InvalidInput(f"{name} is required (a version number)")
        return default
    if not _digits(value) or int(value) < low:
        raise InvalidInput(f"{name} must be a whole number >= {low}, got {value[:40]!r}")
    return int(value)


def _path_version(request: Request) -> int:
    value = str(request.path_params["version"])
    if not _digits(value) or int(value) < 1:
        raise InvalidInput(f"a version is a whole number >= 1, got {value[:40]!r}")
    return int(value)


def _run_id(request: Request) -> str:
    return check_run_id(request.path_params["run_id"])


def ui_routes(
    host: Host, store: Store, *, prefix: str = "", title: str = "skillstate"
) -> list[Route]:
    """The inspector's routes under ``prefix`` (no gate: :func:`ui_app` adds it)."""
    pages = _Pages(host, store, prefix.rstrip("/"), title)
    p = pages.prefix

    async def runs(request: Request) -> Response:
        async def body() -> Response:
            q = request.query_params
            view = await pages.call(
                queries.list_view,
                skill=q.get("skill") or None,
                status=q.get("status") or None,
                query=(q.get("q") or "").strip()[:80] or None,
                page=_whole(request, "page", 1),
                listing=pages.listing,
            )
            return pages.page("list.html", view=view, store=public_store_url(pages.store_url))

        return await pages.guarded(request, body)

    async def run(request: Request) -> Response:
        async def body() -> Response:
            run_id = _run_id(request)
            page = _whole(request, "page", 1)
            view = await pages.call(queries.run_view, run_id)
            line = await pages.call(queries.timeline, run_id, page=page)
            return pages.page("run.html", run=view, timeline=line)

        return await pages.guarded(request, body)

    async def state_at(request: Request) -> Response:
        async def body() -> Response:
            view = await pages.call(queries.state_view, _run_id(request), _path_version(request))
            return pages.page("state.html", view=view)

        return await pages.guarded(request, body)

    async def diff_one(request: Request) -> Response:
        async def body() -> Response:
            version = _path_version(request)
            run_id = _run_id(request)
            old = max(1, version - 1)
            view = await pages.call(queries.diff_view, run_id, old, version)
            return pages.page("diff.html", view=view)

        return await pages.guarded(request, body)

    async def diff_any(request: Request) -> Response:
        async def body() -> Response:
            run_id = _run_id(request)
            new = _whole(request, "to", 0, low=1) if request.query_params.get("to") else None
            old = _whole(request, "from")
            if new is None:
                record = await pages.call(lambda h, s: s.get(run_id))
                new = record.version
            view = await pages.call(queries.diff_view, run_id, old, new)
            return pages.page("diff.html", view=view)

        return await pages.guarded(request, body)

    async def prompt(request: Request) -> Response:
        async def body() -> Response:
            run_id = _run_id(request)
            version = _whole(request, "v", 0) or None
            style = request.query_params.get("style") or "paper"
            view = await pages.call(prompt_view, run_id, version, style[:40])
            if request.url.path.endswith(".txt"):  # the exact bytes the model was shown
                kind = "text/plain; charset=utf-8"
                return Response(
                    view["text"], media_type=kind, headers={"cache-control": "no-store"}
                )
            return pages.page("prompt.html", view=view)

        return await pages.guarded(request, body)

    async def export(request: Request) -> Response:
        async def body() -> Response:
            run_id = _run_id(request)
            # the replay check reads the whole journal: EXPORTS_AT_ONCE at a time, and
            # none for a client that left while it waited
            async with pages.exports:
                if await request.is_disconnected():
                    return Response(status_code=499)
                pieces = await pages.call(queries.export_stream, run_id, now_iso())
            # then streamed a page of the journal at a time, read as the client takes
            # it: a client that does not read holds a page, and one that leaves frees it
            return StreamingResponse(
                pieces,
                media_type="application/json",
                headers={
                    "content-disposition": f'attachment; filename="{run_id}.skillstate.json"',
                    "cache-control": "no-store",
                },
            )

        return await pages.guarded(request, body)

    async def versions(request: Request) -> Response:
        async def body() -> Response:
            run_id = _run_id(request)
            after = _whole(request, "after", 0, low=0)
            answer = await pages.call(queries.versions_after, run_id, after)
            return JSONResponse(answer, headers={"cache-control": "no-store"})

        return await pages.guarded(request, body)

    async def health(request: Request) -> Response:
        """200 with the store (no path) and how many runs it lists, or 503 with JSON."""
        try:
            summaries, skipped, _ = await pages.call(lambda h, s: pages.listing.get(h, s))
        except Exception as exc:  # the health check must answer whatever the store does
            why = public_message(f"the store could not be read: {exc}", pages.secrets)
            return JSONResponse({"status": "unavailable", "error": why}, status_code=503)
        answer = {
            "status": "ok",
            "store": public_store_url(pages.store_url),
            "durability": str(getattr(store, "durability", "unstated")),
            "runs": len(summaries),
            "unreadable_runs": skipped,
        }
        return JSONResponse(answer, headers={"cache-control": "no-store"})

    async def static(request: Request) -> Response:
        name = str(request.path_params["name"])
        if name not in STATIC:
            return pages.error(request, 404, "no such file")
        return FileResponse(HERE / "static" / name, media_type=STATIC[name])

    async def not_found(request: Request) -> Response:
        return pages.error(request, 404, "no such page")

    return [
        Route(f"{p}/", runs, methods=["GET", "HEAD"]),
        Route(f"{p}/runs/{{run_id}}", run, methods=["GET", "HEAD"]),
        Route(f"{p}/runs/{{run_id}}/at/{{version}}", state_at, methods=["GET", "HEAD"]),
        Route(f"{p}/runs/{{run_id}}/diff", diff_any, methods=["GET", "HEAD"]),
        Route(f"{p}/runs/{{run_id}}/diff/{{version}}", diff_one, methods=["GET", "HEAD"]),
        Route(f"{p}/runs/{{run_id}}/prompt", prompt, methods=["GET", "HEAD"]),
        Route(f"{p}/runs/{{run_id}}/prompt.txt", prompt, methods=["GET", "HEAD"]),
        Route(f"{p}/runs/{{run_id}}/export", export, methods=["GET", "HEAD"]),
        Route(f"{p}/api/runs/{{run_id}}/versions", versions, methods=["GET", "HEAD"]),
        Route(f"{p}/health", health, methods=["GET", "HEAD"]),
        Route(f"{p}/static/{{name}}", static, methods=["GET", "HEAD"]),
        Route(f"{p}/{{rest:path}}", not_found, methods=["GET", "HEAD"]),
    ]


def ui_app(
    host: Host,
    store: Store,
    *,
    bind: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    token: str | None = None,
    prefix: str = "",
) -> ASGIApp:
    """The inspector as one ASGI app, behind its gate; ``prefix`` mounts it under a path.

    In ``skillstate mcp --http --ui`` the MCP server hands every request under
    ``/ui`` to this app (``prefix="/ui"``), with the MCP server's bind address,
    allowed hosts and token.
    """
    prefix = prefix.rstrip("/")
    app = Starlette(routes=ui_routes(host, store, prefix=prefix))
    return UiGate(
        app, bind=bind, allowed_hosts=allowed_hosts, token=token, cookie_path=prefix or "/"
    )
