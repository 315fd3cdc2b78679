"""The run inspector: a local, read-only web page over any store (``skillstate ui``).

A thin adapter over the store and history API (:meth:`Store.list
<skillstate.plugin.Store.list>`, :meth:`~skillstate.plugin.Store.history`,
:meth:`~skillstate.plugin.Store.state_at`, :mod:`skillstate.plugin.history`):
:mod:`.queries` reads, the templates render (Jinja2, autoescape on), :mod:`.listing`
keeps the list page's store listing for a moment, :mod:`.gate` checks every request
(GET/HEAD only, Host/Origin, optional bearer token) and :mod:`.app` ties them
together; :mod:`skillstate_serving` serves it. Its libraries are the ``ui`` extra
(``pip install 'skillstate[ui]'``); nothing here is imported unless the inspector runs.

:func:`ui_app` is the whole inspector as one ASGI app. The MCP server mounts it under
``/ui`` (``skillstate mcp --http --ui``) through the ``skillstate_register_http_apps``
hook, without importing this package: :func:`skillstate_register_http_apps`
registers it as ``ui``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from skillstate.plugin import hookimpl

__all__ = ["EXTRA_MODULES", "MISSING_EXTRA", "extra_installed", "ui_app"]

EXTRA_MODULES = ("starlette", "jinja2", "uvicorn", "anyio")
"""What the inspector imports from the ``ui`` extra."""
MISSING_EXTRA = (
    "the run inspector needs the 'ui' extra, which is not installed: pip install -e '.[ui]' "
    "from a checkout (pip install 'skillstate[ui]' after the first release)"
)

if TYPE_CHECKING:
    from skillstate.plugin import CommandSpec, Host, Store


def extra_installed() -> bool:
    """Whether every library of the ``ui`` extra can be imported."""
    import importlib.util

    try:
        return all(importlib.util.find_spec(name) is not None for name in EXTRA_MODULES)
    except (ImportError, ValueError):  # a broken or half-removed install
        return False


def ui_app(
    host: Host,
    store: Store,
    *,
    bind: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    token: str | None = None,
    prefix: str = "",
) -> Any:
    """The inspector as one ASGI app, behind its gate; ``prefix`` mounts it under a path.

    Raises :class:`~skillstate.plugin.SkillstateError` (:data:`MISSING_EXTRA`) when
    the ``ui`` extra is not installed. See :func:`.app.ui_app`.
    """
    if not extra_installed():
        from skillstate.plugin import SkillstateError

        raise SkillstateError(MISSING_EXTRA)
    from .app import ui_app as build

    return build(host, store, bind=bind, allowed_hosts=allowed_hosts, token=token, prefix=prefix)


@hookimpl
def skillstate_register_commands(register: Callable[[CommandSpec], None]) -> None:
    from skillstate.plugin import CommandSpec

    register(
        CommandSpec.from_module(
            "ui",
            "the run inspector: a local, read-only web page over the store",
            f"{__name__}.command",
        )
    )


@hookimpl(optionalhook=True)
def skillstate_register_http_apps(register: Callable[..., None]) -> None:
    """The inspector, for a server that mounts apps of other plugins (``mcp --http --ui``):
    ``register("ui", ui_app)``, ``ui_app(host, store, *, bind, allowed_hosts, token,
    prefix)`` returning the ASGI app."""
    register("ui", ui_app)
