"""Fixtures of the inspector's tests (helpers are in support.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from skillstate_testing import require_postgres
from skillstate_testing.helpers import postgres_url


@pytest.fixture(params=["file", "sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store of each bundled durable kind (PostgreSQL in a schema of its own)."""
    kind = request.param
    if kind == "file":
        yield f"file:{tmp_path}/state"
    elif kind == "sqlite":
        yield f"sqlite:///{tmp_path}/runs.db"
    else:
        require_postgres()
        import psycopg

        base = postgres_url()
        schema = f"ss_ui_{uuid.uuid4().hex[:10]}"
        yield f"{base}{'&' if '?' in base else '?'}schema={schema}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
