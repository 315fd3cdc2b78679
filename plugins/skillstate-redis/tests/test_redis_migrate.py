"""``skillstate migrate`` to and from Redis (file, SQLite, PostgreSQL), and the same
operations on every store end in the same runs (a differential test), through the
``skillstate`` command."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redisserver import RedisServer
from skillstate_testing import make_host, run_command, temporary_store_url

OPERATIONS: list[tuple[str, ...]] = [
    ("init", "rig-task", "t1", "--json", '{"branch": "feat/a"}'),
    ("patch", "t1", "--step", "red", "--json", '{"phase": "red", "tests": {"fail": 2}}'),
    ("patch", "t1", "--step", "green", "--json", '{"phase": "green", "tests": {"fail": 0}}'),
    ("patch", "t1", "--json", '{"phase": "banana"}'),  # rejected: nothing written
    ("fork", "--at", "2", "t1", "t2"),
    ("patch", "t2", "--step", "again", "--json", '{"tests": null}'),
    ("init", "rig-task", "t3"),
    ("rewind", "--to", "2", "t1"),
]


def _cli(store: str, *args: str, cwd: Path, ok: bool = True) -> str:
    result = run_command("skillstate", "--store", store, *args, cwd=cwd)
    if ok:
        assert result.returncode == 0, (args, result.stdout, result.stderr)
    return result.stdout


def _runs(store: str, cwd: Path) -> dict[str, Any]:
    """Every run: its record and its journal, as the store gives them back."""
    host = make_host(store)
    try:
        opened = host.open_store(store)
        return {
            summary.id: {
                "record": opened.get(summary.id).to_dict(),
                "journal": [entry.to_dict() for entry in opened.journal(summary.id)],
            }
            for summary in opened.list()
        }
    finally:
        host.close()


def _timeless(value: Any) -> Any:
    """``value`` without its times (each store's run of the operations has its own)."""
    if isinstance(value, dict):
        return {
            k: _timeless(v)
            for k, v in value.items()
            if k not in ("ts", "createdAt", "updatedAt", "created", "updated", "set")
        }
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


@pytest.fixture
def stores(redis_server: RedisServer, tmp_path: Path) -> Iterator[dict[str, str]]:
    """Every store kind on disk or a server: PostgreSQL in a schema of its own (the
    test skips without the server, fails under ``CI=true``)."""
    with temporary_store_url("postgresql", tmp_path) as postgresql:
        yield {
            "file": f"file:{tmp_path / 'files'}",
            "sqlite": f"sqlite:///{tmp_path / 'runs.db'}",
            "postgresql": postgresql,
            "redis": redis_server.url(),
        }


def test_the_same_operations_give_the_same_runs_on_every_store(
    stores: dict[str, str], tmp_path: Path
) -> None:
    seen = {}
    for name, store in stores.items():
        for op in OPERATIONS:
            _cli(store, *op, cwd=tmp_path, ok=op[-1] != '{"phase": "banana"}')
        seen[name] = _timeless(_runs(store, tmp_path))
        assert set(seen[name]) == {"t1", "t2", "t3"}
        assert len(seen[name]["t1"]["journal"]) == 4
    first = seen["file"]
    for name, runs in seen.items():
        assert runs == first, name


def test_migrate_to_redis_and_back_copies_every_run_exactly(
    stores: dict[str, str], tmp_path: Path
) -> None:
    source, redis, sqlite, postgresql = (
        stores[k] for k in ("file", "redis", "sqlite", "postgresql")
    )
    for op in OPERATIONS:
        _cli(source, *op, cwd=tmp_path, ok=op[-1] != '{"phase": "banana"}')
    before = _runs(source, tmp_path)
    _cli("file:unused", "migrate", "--from", source, "--to", redis, cwd=tmp_path)
    assert _runs(redis, tmp_path) == before
    again = _cli("file:unused", "migrate", "--from", source, "--to", redis, cwd=tmp_path)
    assert "nothing to copy" in again
    back = f"file:{tmp_path / 'back'}"
    _cli("file:unused", "migrate", "--from", redis, "--to", back, cwd=tmp_path)
    _cli("file:unused", "migrate", "--from", redis, "--to", sqlite, cwd=tmp_path)
    _cli("file:unused", "migrate", "--from", redis, "--to", postgresql, cwd=tmp_path)
    assert _runs(back, tmp_path) == before
    assert _runs(sqlite, tmp_path) == before
    assert _runs(postgresql, tmp_path) == before
    redis_again = redis.replace("prefix=", "prefix=again-", 1)
    _cli("file:unused", "migrate", "--from", postgresql, "--to", redis_again, cwd=tmp_path)
    assert _runs(redis_again, tmp_path) == before
    for store in (redis, back, sqlite, postgresql, redis_again):
        _cli(store, "verify", cwd=tmp_path)
