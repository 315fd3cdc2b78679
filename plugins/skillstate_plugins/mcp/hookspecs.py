"""The MCP plugin's own hook: other plugins' web apps, served beside ``/mcp``.

The MCP plugin adds this spec to the plugin manager (``skillstate_addhooks``), as the
bench harness adds its own: a plugin implementing it marks the implementation
``@hookimpl(optionalhook=True)``, so it still loads when the MCP plugin is blocked or
not installed. The docstring is the hook's reference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

__all__ = ["HTTP_APP_PREFIX", "hookspec", "skillstate_register_http_apps"]

hookspec = pluggy.HookspecMarker("skillstate")

HTTP_APP_PREFIX = "/ui"
"""Where ``skillstate mcp --http --ui`` mounts the app registered as ``"ui"``."""


@hookspec
def skillstate_register_http_apps(register: Callable[[str, Any], None]) -> None:
    """Offer a web app that ``skillstate mcp --http`` can serve beside ``/mcp``.

    **When:** once, when ``skillstate mcp --http`` starts with an option that serves
    such an app (``--ui``: the app named ``"ui"``), before it listens.

    **Semantics:** collected. Call ``register(name, factory)`` for each app. ``factory``
    is called only if the app is served, as ``factory(host, store, *, bind,
    allowed_hosts, token, prefix)`` and returns an ASGI app that answers every path
    under ``prefix`` (``/ui``) itself: ``host`` is the command's
    :class:`~skillstate.plugin.Host`, ``store`` its open store, ``bind`` the address
    served on, ``allowed_hosts`` the extra Host names allowed (``--allowed-host``, a
    list), ``token`` the bearer token or ``None``. The app must check Host, Origin and
    the token itself: requests under ``prefix`` are handed to it before the MCP gate.
    A factory that raises (a missing extra) makes ``skillstate mcp`` exit 3 with its
    message.

    **Order:** pluggy's. Two plugins registering one name: the command exits 3 naming
    the name.

    **Isolation:** fail open: an implementation that raises is one warning line naming
    its plugin; the others still register.

    **Arguments:** ``register`` — ``register(name: str, factory)``.

    **Returns:** nothing.

    **Example** (the inspector plugin)::

        from skillstate.plugin import hookimpl

        @hookimpl(optionalhook=True)
        def skillstate_register_http_apps(register):
            def factory(host, store, *, bind, allowed_hosts, token, prefix):
                from .app import ui_app

                return ui_app(host, store, bind=bind, allowed_hosts=allowed_hosts,
                              token=token, prefix=prefix)

            register("ui", factory)
    """
