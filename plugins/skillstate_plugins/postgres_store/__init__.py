"""The ``postgresql:`` / ``postgres:`` store plugin: registers the schemes.

:mod:`.postgres_backend` is the store (and its docs: guarantees, connections), with
:mod:`.postgres_url` (URLs and their options) and :mod:`.postgres_tables` (tables); they
and psycopg are imported only when a PostgreSQL URL is opened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skillstate.plugin import Store, StoreSpec, hookimpl

__all__ = ["open_store", "parse_postgres_url", "skillstate_register_stores"]


def open_store(url: str) -> Store:
    """The factory: opens a :class:`~skillstate_plugins.postgres_backend.PostgresStore`."""
    from .backend import PostgresStore

    return PostgresStore(url)


def parse_postgres_url(url: str) -> Any:
    """See :func:`skillstate_plugins.postgres_url.parse_postgres_url`."""
    from .url import parse_postgres_url as parse

    return parse(url)


@hookimpl
def skillstate_register_stores(register: Callable[[StoreSpec], None]) -> None:
    for scheme in ("postgresql", "postgres"):
        register(
            StoreSpec(
                scheme=scheme,
                factory=open_store,
                description="PostgreSQL (psycopg 3): shared by many processes and machines",
            )
        )
