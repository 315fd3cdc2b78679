"""Shared by the PostgreSQL tests: is the server there, and a fresh schema per test.

``SKILLSTATE_TEST_POSTGRES`` overrides the server URL (default: trust auth on
127.0.0.1:5432, database ``test``, user ``postgres``). When the server is missing the
tests skip with the reason, except under ``CI=true`` where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from functools import cache

import pytest

__all__ = ["PG_URL", "fresh_schema_url", "require_postgres"]

PG_URL = os.environ.get("SKILLSTATE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


@cache
def _unavailable() -> str | None:
    try:
        import psycopg
    except ImportError as exc:
        return f"psycopg is not installed ({exc}); pip install 'skillstate[postgres]'"
    try:
        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return f"PostgreSQL is not reachable at {PG_URL}: {str(exc).strip()}"
    return None


def require_postgres() -> None:
    """Skip (or, under ``CI=true``, fail) when the server cannot be used."""
    reason = _unavailable()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and {reason}")
    pytest.skip(reason)


def fresh_schema_url(**options: str) -> Iterator[str]:
    """Yield a store URL in a new schema (with an application_name naming it); drop it after."""
    require_postgres()
    import psycopg

    name = f"ss_test_{uuid.uuid4().hex[:12]}"
    query = "&".join(
        f"{k}={v}" for k, v in {"schema": name, "application_name": name, **options}.items()
    )
    yield f"{PG_URL}?{query}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (name,),
        )
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
