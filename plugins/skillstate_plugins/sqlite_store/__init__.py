"""The ``sqlite:`` store plugin: registers the scheme; :mod:`.sqlite_backend` is the store.

The implementation (and :mod:`sqlite3`) is imported only when a ``sqlite:`` URL is
opened, so loading the plugin costs the CLI's start-up nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skillstate.plugin import Store, StoreSpec, hookimpl

__all__ = ["open_store", "parse_sqlite_url", "skillstate_register_stores"]


def open_store(url: str) -> Store:
    """The factory: opens a :class:`~skillstate_plugins.sqlite_backend.SQLiteStore`."""
    from .backend import SQLiteStore

    return SQLiteStore(url)


def parse_sqlite_url(url: str) -> Any:
    """See :func:`skillstate_plugins.sqlite_backend.parse_sqlite_url`."""
    from .backend import parse_sqlite_url as parse

    return parse(url)


@hookimpl
def skillstate_register_stores(register: Callable[[StoreSpec], None]) -> None:
    register(
        StoreSpec(
            scheme="sqlite",
            factory=open_store,
            description="one SQLite file (WAL): transactional, several processes on one machine",
        )
    )
