"""The run inspector: a local, read-only web page over any store (``skillstate ui``).

A thin adapter over the store and history API (:meth:`Store.list
<skillstate.store.Store.list>`, :meth:`~skillstate.store.Store.history`,
:meth:`~skillstate.store.Store.state_at`, :mod:`skillstate.history`,
:mod:`skillstate.exports`): :mod:`~skillstate_plugins.inspector.queries` reads, the templates render
(Jinja2, autoescape on), :mod:`~skillstate_plugins.inspector.listing` keeps the list page's store
listing for a moment, :mod:`~skillstate_plugins.inspector.gate` checks every request (GET/HEAD
only, Host/Origin, optional bearer token) and :mod:`~skillstate_plugins.inspector.app` ties them
together. Its libraries are the ``ui`` extra (``pip install 'skillstate[ui]'``);
nothing here is imported unless the inspector runs.

:func:`ui_app` is the whole inspector as one ASGI app; ``skillstate mcp --http --ui``
mounts it under ``/ui`` of the MCP server (one process serves both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["EXTRA_MODULES", "MISSING_EXTRA", "extra_installed", "ui_app"]

EXTRA_MODULES = ("starlette", "jinja2", "uvicorn", "anyio")
"""What ``skillstate/ui`` imports from the ``ui`` extra."""
MISSING_EXTRA = (
    "the run inspector needs the 'ui' extra, which is not installed: pip install 'skillstate[ui]'"
)

if TYPE_CHECKING:
    from skillstate_plugins.inspector.app import ui_app


def extra_installed() -> bool:
    """Whether every library of the ``ui`` extra can be imported."""
    import importlib.util

    try:
        return all(importlib.util.find_spec(name) is not None for name in EXTRA_MODULES)
    except (ImportError, ValueError):  # a broken or half-removed install
        return False


def __getattr__(name: str) -> Any:
    if name == "ui_app":
        from skillstate_plugins.inspector.app import ui_app

        return ui_app
    raise AttributeError(name)


from skillstate.plugin import hookimpl  # noqa: E402


@hookimpl
def skillstate_register_commands(register: Any) -> None:
    from skillstate.plugin import CommandSpec

    register(CommandSpec.from_module("ui", "the run inspector: a local, read-only web page over the store", f"{__name__}.command"))
