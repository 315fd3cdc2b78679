"""``skillstate_serving``: serving HTTP on this machine — options, checks and a bounded server.

A kit beside the core, shipped with skillstate (as the test kit ``skillstate_testing``
is): it imports only :mod:`skillstate.plugin`, so it is exactly what a third party
could write, and the core itself imports no web library.

``skillstate ui`` and ``skillstate mcp --http`` are built from these four names, so a
plugin serving pages or an API of its own gets the same options, the same refusals
and the same limits, with the same messages:

- :func:`add_serve_options` — ``--host --port --allowed-host --token --token-file
  --allow-no-token --max-connections --header-timeout`` on your command's parser;
- :class:`ServeSettings` — what they resolve to (``ServeSettings.from_args(args)``),
  checked: an empty ``--token``, an unreadable token file, a token no client could
  send, a public ``--host`` without a token are each one line and exit 2;
- :func:`check_request` — the Host (421), Origin (403) and bearer-token (401) checks
  for one request, against DNS rebinding and cross-site reads;
- :func:`serve` — uvicorn on the settings' address, its connections bounded (at most
  ``--max-connections`` open, headers within ``--header-timeout`` seconds, idle
  keep-alive connections closed after 5 s); Ctrl-C and SIGTERM shut it down
  gracefully and it returns 130 or 143. A taken port is one line and exit 3.

A command serving a page, start to finish
-----------------------------------------

``hello/__init__.py``::

    from skillstate.plugin import CommandSpec, hookimpl
    from skillstate_serving import ServeSettings, add_serve_options, check_request, serve

    def configure(parser):
        add_serve_options(parser, port=3300, token_env="HELLO_TOKEN", exposes="read the page")

    def hello_app(settings):                              # any ASGI app
        async def app(scope, receive, send):
            if scope["type"] != "http":
                return
            refusal = check_request(settings, scope)     # None: let it in
            if refusal is not None:
                await refusal(scope, receive, send)      # {"error": "..."} and its status
                return
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"hello"})
        return app

    def run(ctx):
        settings = ServeSettings.from_args(ctx.args)    # one line and exit 2 when wrong
        try:
            return serve(hello_app(settings), settings,
                         ready=lambda port: print(f"http://127.0.0.1:{port}/", flush=True))
        finally:
            ctx.host.close()                             # the store, before the exit code

    @hookimpl
    def skillstate_register_commands(register):
        register(CommandSpec("hello", "a page", configure, run))

``skillstate hello --port 0`` prints its URL and serves loopback only; ``--host
0.0.0.0`` is refused without ``--token``, ``--token-file`` or ``$HELLO_TOKEN``
(unless ``--allow-no-token``); ``kill PID`` ends it with exit 143 after the requests
in flight. The library :func:`serve` runs on (uvicorn, imported only when it runs) is your
extra's to require.

A surface mounted inside another server (the inspector under ``skillstate mcp --http
--ui``) builds its checks from the other's address and token:
``ServeSettings(host=bind, allowed_hosts=allowed_hosts, token=token)``.
"""

from __future__ import annotations

from skillstate_serving.guard import check_request
from skillstate_serving.options import ServeSettings, add_serve_options
from skillstate_serving.server import serve

__all__ = ["ServeSettings", "add_serve_options", "check_request", "serve"]
