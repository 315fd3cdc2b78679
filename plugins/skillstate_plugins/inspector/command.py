"""``skillstate ui``: the run inspector, a local read-only web page over the configured store.

``skillstate ui [--store URL] [--host 127.0.0.1] [--port 3212]`` serves the list of runs
and sessions, each run's state, timeline and diffs, and prints its URL. The libraries
are the ``ui`` extra (``pip install 'skillstate[ui]'``); without them the command says
so in one line and exits 3.

Security (``docs/ui.md``): loopback by default; Host and Origin are checked; every
request but GET and HEAD is refused (405). An optional bearer token comes from
``--token``, ``--token-file`` or ``SKILLSTATE_UI_TOKEN``; binding to an address other
than loopback without one is refused unless ``--allow-no-token`` says it is meant.
Connections are bounded as the MCP server's are (``--max-connections``,
``--header-timeout``, idle keep-alive connections closed after 5 s).

The options, their checks and the server are :mod:`skillstate_serving`'s. Ctrl-C
(SIGINT) stops it cleanly — uvicorn finishes the requests in flight, the store is
closed — and the exit code is 130; SIGTERM does the same and exits 143.
"""

from __future__ import annotations

import argparse
import sys

from skillstate_serving import ServeSettings, add_serve_options, serve

from skillstate.plugin import mask_url
from skillstate.plugin.cli import CliContext, ExitCode

__all__ = ["DEFAULT_PORT", "TOKEN_ENV", "configure", "run"]

DEFAULT_PORT = 3212
TOKEN_ENV = "SKILLSTATE_UI_TOKEN"


def configure(parser: argparse.ArgumentParser) -> None:
    add_serve_options(parser, port=DEFAULT_PORT, token_env=TOKEN_ENV, exposes="read every run")


def run(ctx: CliContext) -> int:
    from . import MISSING_EXTRA, extra_installed, ui_app

    settings = ServeSettings.from_args(ctx.args)  # a bad option: one line, exit 2
    if not extra_installed():
        ctx.error(MISSING_EXTRA)
        return ExitCode.ERROR
    store_url = mask_url(str(ctx.config.store))
    try:
        app = ui_app(
            ctx.host,
            ctx.existing_store(),  # a mistyped path: one line, exit 2, no new store
            bind=settings.host,
            allowed_hosts=settings.allowed_hosts,
            token=settings.token,
        )

        def ready(port: int) -> None:
            shown = f"[{settings.host}]" if ":" in settings.host else settings.host
            note = (
                " (token required: open the URL with ?token=TOKEN once)" if settings.token else ""
            )
            print(f"skillstate ui: http://{shown}:{port}/ (store {store_url}){note}", flush=True)

        return serve(app, settings, ready=ready)  # a taken port: one line, exit 3
    finally:
        ctx.host.close()  # the store, before the process ends
        sys.stdout.flush()
