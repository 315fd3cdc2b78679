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
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

# TRANSITIONAL (issue 25): the serving options move behind skillstate.plugin.http
from skillstate.cli.serve_options import (
    TOKEN_FILE_HELP,
    TokenFileError,
    add_serve_options,
    is_loopback,
    read_token_file,
    sigint_heard,
    unsendable_token,
)
from skillstate.plugin import PluginError, SkillstateError
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
    "is_loopback",
    "run",
]

TOKEN_ENV = "SKILLSTATE_MCP_TOKEN"

DEFAULT_PORT = 3211
EXTRA_MODULES = ("mcp", "mcp_types", "anyio", "starlette", "pydantic", "uvicorn")
"""What this plugin imports from the ``mcp`` extra."""
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


def _port_default(environ: Mapping[str, str] = os.environ) -> int:
    text = environ.get("SKILL_STATE_PORT", "")
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


class HttpUsageError(SkillstateError):
    """The HTTP options are wrong (an empty token, no token on a public address)."""

    kind = "usage"


@attrs.frozen
class HttpSettings:
    """What an HTTP server listens on and whom it lets in (:func:`http_settings`)."""

    host: str
    port: int
    token: str | None
    allowed_hosts: tuple[str, ...] = ()
    max_body: int = DEFAULT_MAX_BODY
    max_connections: int = 64
    header_timeout: float = 10.0


def http_settings(
    args: argparse.Namespace, environ: Mapping[str, str] = os.environ
) -> HttpSettings:
    """The host, port and token for an HTTP server, from the options of :func:`add_http_options`.

    The token comes from ``--token``, else ``--token-file``, else ``$SKILLSTATE_MCP_TOKEN``
    (an empty variable counts as unset). Raises :class:`HttpUsageError` for ``--token ""``
    (what ``--token "$TOKEN"`` becomes when the variable is unset: it must not turn
    authentication off), for both ``--token`` and ``--token-file``, for a token file
    :func:`~skillstate.cli.serve_options.read_token_file` refuses, and for a
    non-loopback ``--host`` without a token unless ``--allow-no-token`` is given.
    """
    token: str | None
    if args.token is not None and args.token_file is not None:
        raise HttpUsageError("give --token or --token-file, not both")
    if args.token is not None:
        if not args.token.strip():
            raise HttpUsageError(
                '--token is empty (is the variable in --token "$TOKEN" unset?); give a '
                f"token, or use --token-file FILE or ${TOKEN_ENV}"
            )
        token = args.token
    elif args.token_file is not None:
        try:
            token = read_token_file(args.token_file)
        except TokenFileError as exc:
            raise HttpUsageError(str(exc)) from None
    else:
        token = environ.get(TOKEN_ENV, "").strip() or None
    if token is not None and token != token.strip():
        raise HttpUsageError("the token starts or ends with whitespace, which a client cannot send")
    if token is not None and (problem := unsendable_token(token)):
        raise HttpUsageError(problem)
    if token is None and not is_loopback(args.host) and not args.allow_no_token:
        raise HttpUsageError(
            f"refusing to serve on {args.host} without a token: anyone who can reach it could "
            f"read and change every session; set ${TOKEN_ENV} or --token-file FILE, or pass "
            "--allow-no-token to serve it open"
        )
    port = args.port if args.port is not None else _port_default(environ)
    return HttpSettings(
        host=args.host,
        port=port,
        token=token,
        allowed_hosts=tuple(args.allowed_host),
        max_body=DEFAULT_MAX_BODY if args.max_body is None else args.max_body,
        max_connections=64 if args.max_connections is None else args.max_connections,
        header_timeout=10.0 if args.header_timeout is None else args.header_timeout,
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"expected 0 < seconds <= 3600, got {text}")
    return value


def add_http_options(parser: argparse.ArgumentParser) -> None:
    """``--host --port --allowed-host --token --token-file --allow-no-token --max-body
    --max-connections``: the options :func:`http_settings` reads."""
    add_serve_options(
        parser,
        port_default=None,
        host_help="HTTP bind address (default 127.0.0.1, loopback only)",
        port_help=f"HTTP port (default $SKILL_STATE_PORT or {DEFAULT_PORT}; 0 = any free port)",
        token_help="require 'Authorization: Bearer TOKEN' on every HTTP request; prefer "
        f"${TOKEN_ENV} or --token-file, since any user can read a command line (ps)",
        token_file_help=f"read the bearer token from FILE ({TOKEN_FILE_HELP})",
        allow_no_token_help="serve a non-loopback --host without a token (refused otherwise)",
    )
    parser.add_argument(
        "--max-body",
        type=_positive,
        default=None,  # None: DEFAULT_MAX_BODY (a given value on stdio is refused)
        metavar="BYTES",
        help=f"largest HTTP request body (default {DEFAULT_MAX_BODY})",
    )
    parser.add_argument(
        "--max-connections",
        type=_positive,
        default=None,  # None: 64
        metavar="N",
        help="most HTTP connections open at once; more get 503 (default 64)",
    )
    parser.add_argument(
        "--header-timeout",
        type=_seconds,
        default=None,  # None: 10
        metavar="SECONDS",
        help="drop a connection whose request headers are not complete in time (default 10)",
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
    "not installed (pip install 'skillstate[ui]')"
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

    from skillstate.plugin import mask_url

    from .http import ServerLimits, http_app, run_http
    from .server import skillstate_version
    from .serving import Terminated, sigterm_raises

    version = skillstate_version()
    store_url = mask_url(str(ctx.config.store))
    health_threads = anyio.CapacityLimiter(2)  # a stuck store never takes the tool calls' threads

    async def health() -> dict[str, Any]:
        index = await anyio.to_thread.run_sync(
            runtime.list_sessions, limiter=health_threads, abandon_on_cancel=True
        )
        return {
            "status": "ok",
            "server": {"name": server.name, "version": version},
            "version": version,
            "store": store_url,
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

    def banner(bound: int) -> str:
        host = f"[{settings.host}]" if ":" in settings.host else settings.host
        inspector = f", inspector at http://{host}:{bound}/ui/" if ui is not None else ""
        return (
            f"[skillstate] v{version} listening on http://{host}:{bound}/mcp "
            f"(store {store_url}{', token required' if settings.token else ''}){inspector}"
        )

    limits = ServerLimits(
        max_connections=settings.max_connections, header_timeout=settings.header_timeout
    )
    try:
        with sigint_heard():  # 130 even when SIGINT was ignored at start
            sigterm_raises(lambda: run_http(app, settings.host, settings.port, banner, limits))
    except KeyboardInterrupt:  # uvicorn shut down first, then re-raised the SIGINT
        return ExitCode.INTERRUPT
    except Terminated:  # the same for SIGTERM
        return ExitCode.TERMINATED
    return ExitCode.OK
