"""The ``sqlite:`` store's URLs: the database file and the store's query options.

SQLAlchemy's convention: ``sqlite:///relative/runs.db`` (three slashes: relative to the
working directory) and ``sqlite:////abs/path/runs.db`` (four slashes: absolute); without
an authority, ``sqlite:relative/runs.db`` and ``sqlite:/abs/path/runs.db`` mean the same.
Query options:
``?timeout=SECONDS`` (how long a writer waits for the write lock, default 30) and
``durability=full|process`` (default: the ``durability`` setting; read by
:func:`skillstate.plugin.durability`). Anything else is a
:class:`~skillstate.plugin.StoreError` naming the URL.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

from skillstate.plugin import StoreError, durability

__all__ = ["bad_url", "parse_sqlite_options", "parse_sqlite_url"]


def bad_url(message: str) -> StoreError:
    """A malformed URL or option: the caller's input (exit 2), not a failed store (3)."""
    return StoreError(message, kind="usage")


def parse_sqlite_url(url: str) -> tuple[Path, float]:
    """The database path and lock timeout of a ``sqlite:`` URL; :class:`StoreError` if malformed."""
    path, timeout, _ = parse_sqlite_options(url)
    return path, timeout


def parse_sqlite_options(url: str) -> tuple[Path, float, str]:
    """The database path, lock timeout and durability level of a ``sqlite:`` URL."""
    scheme, _, rest = url.partition(":")
    if scheme.lower() != "sqlite" or not rest:
        raise bad_url(
            f"bad SQLite URL '{url}': expected sqlite:///relative.db or sqlite:////absolute/path.db"
        )
    bare, level = durability(url)
    rest, _, query = bare.partition(":")[2].partition("?")
    if rest.startswith("//"):
        host, slash, path = rest[2:].partition("/")
        if host not in ("", "localhost") or not slash:
            raise bad_url(
                f"bad SQLite URL '{url}': a host ('{host}') is not supported; "
                "use sqlite:///relative.db or sqlite:////absolute/path.db"
            )
        rest = path  # SQLAlchemy's rule: sqlite:///relative.db, sqlite:////absolute.db
    if rest in ("", "/") or rest.endswith("/"):
        raise bad_url(f"bad SQLite URL '{url}': it names no database file")
    timeout = 30.0
    for key, values in parse_qs(query, keep_blank_values=True).items():
        if key != "timeout":
            raise bad_url(
                f"bad SQLite URL '{url}': unknown option '{key}' (known: timeout, durability)"
            )
        try:
            timeout = float(values[-1])
        except ValueError:
            raise bad_url(
                f"bad SQLite URL '{url}': timeout must be a number of seconds, got '{values[-1]}'"
            ) from None
        if not timeout >= 0:
            raise bad_url(f"bad SQLite URL '{url}': timeout must be >= 0")
    return Path(rest), timeout, level
