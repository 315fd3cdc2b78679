"""The ``sqlite:`` store plugin: registers the scheme; :mod:`.backend` is the store.

The implementation (and :mod:`sqlite3`) is imported only when a ``sqlite:`` URL is
opened, so loading the plugin costs the CLI's start-up nothing. Its modules:
:mod:`.url` (URLs and their options), :mod:`.tables` (schema, migrations, rows),
:mod:`.connections` (a connection per thread, the write transaction), :mod:`.backend`
(:class:`~.backend.SQLiteStore`, the store contract).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skillstate.plugin import Store, StoreSpec, hookimpl

__all__ = ["open_store", "parse_sqlite_url", "skillstate_register_stores"]


def open_store(url: str) -> Store:
    """The factory: opens a :class:`~.backend.SQLiteStore`."""
    from .backend import SQLiteStore

    return SQLiteStore(url)


def parse_sqlite_url(url: str) -> Any:
    """See :func:`.url.parse_sqlite_url`."""
    from .url import parse_sqlite_url as parse

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
