"""``skillstate mcp``: the SKILL.state MCP server on stdio (default) or Streamable HTTP.

The store is the configured one (``--store``, ``SKILLSTATE_STORE``, the config file).
Only this command imports the MCP SDK, and only when it runs. The SDK and the web
libraries are the ``mcp`` extra (``pip install 'skillstate[mcp]'``); without them the
command says so in one line and exits 3 (an optional extra is missing: ``ExitCode.ERROR``).
The skill tools are offered when a plugin provides the skill store
(``host.skill_store()``); with it blocked, the server has the session tools only.
``--ui`` serves, at ``/ui``, the app a plugin registered as ``"ui"``
(:mod:`.hookspecs`; the inspector plugin does).

The HTTP options (address, port, token) are resolved by one function,
:func:`http_settings`, for every command that serves HTTP.

Ctrl-C (SIGINT) stops either transport cleanly — over HTTP uvicorn finishes the
requests in flight — and closes the store; the exit code is 130 (``ExitCode.INTERRUPT``).
Over HTTP SIGTERM does the same and exits 143 (``ExitCode.TERMINATED``); on stdio it
still ends the process at once (the default action).
The end of stdin (the client closed the pipe) is the normal end of a stdio server: 0.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
from skillstate_serving import ServeSettings, add_serve_options, serve

from skillstate.plugin import InvalidInput, PluginError, SkillstateError
from skillstate.plugin.cli import ExitCode

if TYPE_CHECKING:
    from skillstate.plugin.cli import CliContext

__all__ = [
    "TOKEN_ENV",
    "HttpSettings",
    "HttpUsageError",
    "add_http_options",
    "configure",
    "http_settings",
    "run",
]

TOKEN_ENV = "SKILLSTATE_MCP_TOKEN"

DEFAULT_PORT = 3211
EXTRA_MODULES = ("mcp", "mcp_types", "anyio", "starlette", "pydantic", "uvicorn")
"""What this plugin imports from the ``mcp`` extra."""
MISSING_EXTRA = (
    "the MCP server needs the 'mcp' extra, which is not installed: "
    "pip install -e '.[mcp]' from a checkout (pip install 'skillstate[mcp]' after the first "
    "release)"
)


def extra_installed() -> bool:
    """Whether every library of the ``mcp`` extra can be imported."""
    import importlib.util

    try:
        return all(importlib.util.find_spec(name) is not None for name in EXTRA_MODULES)
    except (ImportError, ValueError):  # a broken or half-removed install
        return False


DEFAULT_MAX_BODY = 1024 * 1024
EXPOSES = "read and change every session"


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


class HttpUsageError(SkillstateError):
    """The HTTP options are wrong (an empty token, no token on a public address)."""

    kind = "usage"


@attrs.frozen
class HttpSettings:
    """What the MCP server listens on, whom it lets in, and its limits (:func:`http_settings`):
    the serving kit's :class:`~skillstate_serving.ServeSettings` and the body limit."""

    serve: ServeSettings
    max_body: int = DEFAULT_MAX_BODY

    @property
    def host(self) -> str:
        return self.serve.host

    @property
    def port(self) -> int:
        return self.serve.port

    @property
    def token(self) -> str | None:
        return self.serve.token

    @property
    def allowed_hosts(self) -> tuple[str, ...]:
        return self.serve.allowed_hosts


def http_settings(
    args: argparse.Namespace, environ: Mapping[str, str] = os.environ
) -> HttpSettings:
    """The address, token and limits from the options of :func:`add_http_options`, checked.

    The serving kit's rules (:meth:`~skillstate_serving.ServeSettings.from_args`):
    the token comes from ``--token``, else ``--token-file``, else ``$SKILLSTATE_MCP_TOKEN``
    (an empty variable counts as unset); ``--token ""``, both options, a token file
    that is not one token, and a non-loopback ``--host`` without a token (unless
    ``--allow-no-token``) raise :class:`HttpUsageError` with the kit's one line.
    """
    try:
        serve_settings = ServeSettings.from_args(args, environ)
    except InvalidInput as exc:
        raise HttpUsageError(str(exc)) from None
    return HttpSettings(
        serve=serve_settings,
        max_body=DEFAULT_MAX_BODY if args.max_body is None else args.max_body,
    )


def add_http_options(parser: argparse.ArgumentParser) -> None:
    """The serving kit's options (:func:`~skillstate_serving.add_serve_options`:
    ``--host --port --allowed-host --token --token-file --allow-no-token
    --max-connections --header-timeout``) and ``--max-body``: what :func:`http_settings` reads."""
    add_serve_options(
        parser,
        port=DEFAULT_PORT,
        port_env="SKILL_STATE_PORT",
        token_env=TOKEN_ENV,
        exposes=EXPOSES,
    )
    parser.add_argument(
        "--max-body",
        type=_positive,
        default=None,  # None: DEFAULT_MAX_BODY (a given value on stdio is refused)
        metavar="BYTES",
        help=f"largest HTTP request body (default {DEFAULT_MAX_BODY})",
    )


_HTTP_ONLY = (
    "token",
    "token_file",
    "allowed_host",
    "port",
    "allow_no_token",
    "max_body",
    "max_connections",
    "header_timeout",
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--http", action="store_true", help="serve Streamable HTTP at /mcp instead of stdio"
    )
    add_http_options(parser)
    parser.add_argument(
        "--allow-skill-writes",
        action="store_true",
        help="offer the skill_manage tool (create/edit/patch/delete skills); off by default",
    )
    parser.add_argument(
        "--ui",
        action="store_true",
        help="with --http: also serve the run inspector at /ui (the inspector plugin, "
        "with the 'ui' extra)",
    )
    parser.add_argument(
        "--transport",
        choices=("fast", "sdk"),
        default=None,
        help="stdio: 'fast' (asyncio pipes into the SDK's transport, default) or 'sdk' "
        "(the SDK's own threaded reader/writer)",
    )


NO_UI = (
    "--ui: no plugin serves the inspector app ('ui'): the inspector plugin is blocked or "
    "not installed (pip install -e '.[ui]' from a checkout)"
)


def http_apps(ctx: CliContext) -> dict[str, Any]:
    """The web apps plugins registered (``skillstate_register_http_apps``), by name.

    A name registered twice raises :class:`~skillstate.plugin.PluginError`; an
    implementation that fails is one warning line naming its plugin."""
    apps: dict[str, Any] = {}

    def register(name: str, factory: Any) -> None:
        if name in apps:
            raise PluginError(f"two plugins register the web app {name!r}")
        apps[name] = factory

    try:
        failures = ctx.host.pm.hook.skillstate_register_http_apps(register=register)
    except PluginError:
        raise
    except Exception as exc:  # an implementation the host's isolation did not guard
        ctx.error(
            f"warning: a plugin failed to register its web apps ({type(exc).__name__}: {exc})"
        )
        return apps
    for failure in failures or ():
        if failure is not None:  # the host's isolation: a failed implementation's report
            ctx.error(
                f"warning: plugin {getattr(failure, 'plugin', '?')!r} failed to register "
                f"its web apps ({getattr(failure, 'error', failure)})"
            )
    return apps


def _ui_app(ctx: CliContext, settings: HttpSettings) -> Any:
    """The app registered as ``"ui"``, built for ``/ui``; :class:`SkillstateError` if none."""
    from .hookspecs import HTTP_APP_PREFIX

    factory = http_apps(ctx).get("ui")
    if factory is None:
        raise SkillstateError(NO_UI)
    try:
        return factory(
            ctx.host,
            ctx.store,
            bind=settings.host,
            allowed_hosts=list(settings.allowed_hosts),
            token=settings.token,
            prefix=HTTP_APP_PREFIX,
        )
    except SkillstateError:
        raise
    except Exception as exc:  # e.g. the app's extra is missing
        raise SkillstateError(f"--ui: the inspector app cannot be built: {exc}") from None


def _skill_store(ctx: CliContext) -> Any:
    """The skill store the plugins provide, or ``None`` (none: no skill tools)."""
    try:
        return ctx.host.skill_store()
    except PluginError:
        return None


def run(ctx: CliContext) -> int:
    args = ctx.args
    settings: HttpSettings | None = None
    if not args.http:
        if any(getattr(args, name) not in (None, [], False) for name in _HTTP_ONLY):
            ctx.error(
                "--token, --token-file, --allow-no-token, --allowed-host, --port, --max-body, "
                "--max-connections and --header-timeout apply to --http only"
            )
            return ExitCode.USAGE
        if args.ui:
            ctx.error("--ui applies to --http only")
            return ExitCode.USAGE
    else:
        if args.transport is not None:
            ctx.error("--transport applies to stdio only")
            return ExitCode.USAGE
        try:
            settings = http_settings(args)
        except HttpUsageError as exc:
            ctx.error(str(exc))
            return ExitCode.USAGE
    if not extra_installed():
        ctx.error(MISSING_EXTRA)
        return ExitCode.ERROR

    from skillstate.plugin.runtime import Runtime

    from . import scrub
    from .server import build_server

    ui = None
    if settings is not None and args.ui:
        try:
            ui = _ui_app(ctx, settings)
        except SkillstateError as exc:
            ctx.error(str(exc))
            return ExitCode.ERROR
    runtime = Runtime(host=ctx.host)
    skills = _skill_store(ctx)
    roots = [root for _, root in getattr(skills, "roots", ())]
    scrub.configure(str(ctx.config.store), roots)
    server = build_server(
        runtime, skills=skills, allow_skill_writes=args.allow_skill_writes, offload=args.http
    )
    code: int = ExitCode.OK
    try:
        if settings is not None:
            code = _serve_http(ctx, runtime, server, settings, ui)
        else:
            from .stdio import serve_stdio

            serve_stdio(server, args.transport or "fast")  # Ctrl-C: KeyboardInterrupt, exit 130
    finally:
        runtime.close()
        ctx.host.close()  # the store (pending syncs flushed), before the process ends
    return code


def _serve_http(ctx: CliContext, runtime: Any, server: Any, settings: HttpSettings, ui: Any) -> int:
    """Serve until stopped: ``ExitCode.INTERRUPT`` after Ctrl-C, ``ExitCode.TERMINATED``
    after SIGTERM (the caller closes the store)."""
    import anyio
    import anyio.to_thread

    from skillstate.plugin import excerpt, mask_url

    from .http import http_app
    from .scrub import public_store_url
    from .server import skillstate_version

    version = skillstate_version()
    store_url = mask_url(str(ctx.config.store))
    shown_store = public_store_url(store_url)  # /health: no server path (the banner keeps it)
    # the banner is one line of text a terminal shows: control characters escaped
    banner_store = excerpt(store_url).replace("\n", "\\n").replace("\t", "\\t")
    health_threads = anyio.CapacityLimiter(2)  # a stuck store never takes the tool calls' threads

    async def health() -> dict[str, Any]:
        index = await anyio.to_thread.run_sync(
            runtime.list_sessions, limiter=health_threads, abandon_on_cancel=True
        )
        return {
            "status": "ok",
            "server": {"name": server.name, "version": version},
            "version": version,
            "store": shown_store,
            "durability": str(getattr(runtime.store, "durability", "unstated")),
            "active_skill_sessions": index["active_sessions"],
            "active_mcp_sessions": 0,
        }

    app = http_app(
        server,
        host=settings.host,
        allowed_hosts=settings.allowed_hosts,
        token=settings.token,
        max_body=settings.max_body,
        health=health,
        ui=ui,
    )

    def ready(bound: int) -> None:
        host = f"[{settings.host}]" if ":" in settings.host else settings.host
        inspector = f", inspector at http://{host}:{bound}/ui/" if ui is not None else ""
        print(
            f"[skillstate] v{version} listening on http://{host}:{bound}/mcp "
            f"(store {banner_store}{', token required' if settings.token else ''}){inspector}",
            file=sys.stderr,
            flush=True,
        )

    return serve(app, settings.serve, ready=ready)  # 130 after Ctrl-C, 143 after SIGTERM
