"""The local-HTTP serving kit: what every surface serving HTTP on this machine shares.

- :mod:`~skillstate.http.options` — the command-line options (address, token, limits)
  and the :class:`~skillstate.http.options.ServeSettings` they resolve to;
- :mod:`~skillstate.http.guard` — the Host, Origin and bearer-token checks
  (:func:`~skillstate.http.guard.check_request`) and the listening socket;
- :mod:`~skillstate.http.server` — uvicorn, bounded, stopped by SIGINT and SIGTERM
  with a graceful shutdown (:func:`~skillstate.http.server.serve`).

Plugins reach it through :mod:`skillstate.plugin.http`. Nothing here imports a web
library at import time: uvicorn (an extra's) is imported by ``serve`` only.
"""
