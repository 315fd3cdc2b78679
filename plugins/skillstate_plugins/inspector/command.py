"""``skillstate ui``: the run inspector, a local read-only web page over the configured store.

``skillstate ui [--store URL] [--host 127.0.0.1] [--port 3212]`` serves the list of runs
and sessions, each run's state, timeline and diffs, and prints its URL. The libraries
are the ``ui`` extra (``pip install 'skillstate[ui]'``); without them the command says
so in one line and exits 3.

Security (``docs/ui.md``): loopback by default; Host and Origin are checked; every
request but GET and HEAD is refused (405). An optional bearer token comes from
``--token``, ``--token-file`` or ``SKILLSTATE_UI_TOKEN``; binding to an address other
than loopback without one is refused unless ``--allow-no-token`` says it is meant.

Ctrl-C (SIGINT) stops it cleanly — uvicorn finishes the requests in flight, the store
is closed — and the exit code is 130 (``exits.INTERRUPT``). SIGTERM does the same and
exits 143 (``exits.TERMINATED``).
"""

from __future__ import annotations

import argparse
import errno
import os
import sys

from skillstate.cli.context import CliContext
from skillstate.cli.serve_options import (
    TOKEN_FILE_HELP,
    TokenFileError,
    add_serve_options,
    is_loopback,
    read_token_file,
    sigint_heard,
    unsendable_token,
)
from skillstate_plugins.inspector.serve import DEFAULT_PORT

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    add_serve_options(
        parser,
        port_default=DEFAULT_PORT,
        host_help="bind address (default 127.0.0.1, loopback only)",
        port_help=f"port (default {DEFAULT_PORT}; 0 = any free port)",
        token_help="require this bearer token (or a browser cookie set by opening "
        "/?token=TOKEN once); default $SKILLSTATE_UI_TOKEN",
        token_file_help=f"read the token from FILE ({TOKEN_FILE_HELP})",
        allow_no_token_help="serve a non-loopback address without a token "
        "(anyone who can reach it can read every run)",
        exclusive_token=True,
    )


def _token(ctx: CliContext) -> str | bool | None:
    """The token, ``None`` for none, ``False`` after a usage error was printed."""
    args = ctx.args
    if args.token is not None:
        if not args.token.strip():
            ctx.error("--token must not be empty (omit it to serve without a token)")
            return False
        if problem := unsendable_token(args.token.strip()):
            ctx.error(f"--token: {problem}")
            return False
        return str(args.token.strip())
    if args.token_file is not None:
        try:
            return read_token_file(args.token_file)
        except TokenFileError as exc:
            ctx.error(str(exc))
            return False
    value = os.environ.get("SKILLSTATE_UI_TOKEN", "").strip()
    if value and (problem := unsendable_token(value)):
        ctx.error(f"SKILLSTATE_UI_TOKEN: {problem}")
        return False
    return value or None


def run(ctx: CliContext) -> int:
    from skillstate.cli.exits import (
        ERROR,
        INTERRUPT,
        OK,
        TERMINATED,
        USAGE,
        Terminated,
        sigterm_raises,
    )
    from skillstate_plugins.inspector import MISSING_EXTRA, extra_installed

    args = ctx.args
    token = _token(ctx)
    if token is False:
        return USAGE
    assert token is not True
    if not is_loopback(args.host) and token is None and not args.allow_no_token:
        ctx.error(
            f"refusing to serve {args.host} without a token: anyone who can reach it could read "
            "every run. Give --token/--token-file/SKILLSTATE_UI_TOKEN, or --allow-no-token"
        )
        return USAGE
    if not extra_installed():
        ctx.error(MISSING_EXTRA)
        return ERROR

    from skillstate.masking import mask_url
    from skillstate_plugins.inspector.app import ui_app
    from skillstate_plugins.inspector.serve import bind, serve

    store = ctx.store
    store_url = mask_url(str(ctx.config.store))
    app = ui_app(ctx.host, store, bind=args.host, allowed_hosts=args.allowed_host, token=token)
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        shown = f"[{args.host}]" if ":" in args.host else args.host
        reason = exc.strerror or str(exc)
        if exc.errno == errno.EADDRINUSE:  # as skillstate mcp --http says it
            reason = (
                "the address is already in use (another server is there; choose another "
                "--port, or 0 for any free port)"
            )
        ctx.error(f"cannot listen on {shown}:{args.port}: {reason}")
        return ERROR

    def ready(port: int) -> None:
        shown = f"[{args.host}]" if ":" in args.host else args.host
        note = " (token required: open the URL with ?token=TOKEN once)" if token else ""
        print(f"skillstate ui: http://{shown}:{port}/ (store {store_url}){note}", flush=True)

    code = OK
    try:
        with sigint_heard():  # 130 even when SIGINT was ignored at start
            sigterm_raises(lambda: serve(app, sock, ready))
    except KeyboardInterrupt:  # uvicorn shut down first, then re-raised the SIGINT
        code = INTERRUPT
    except Terminated:  # the same for SIGTERM
        code = TERMINATED
    finally:
        ctx.host.close()  # the store, before the process ends
        sys.stdout.flush()
    return code
