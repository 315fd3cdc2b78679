"""The ``redis:`` store against a real server: the conformance kit, URLs, keys that are
not the store's, pages, and one clear line for each outage."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from redisserver import RedisServer
from skillstate_testing import (
    StoreConformance,
    make_host,
    run_command,
    sample_skill,
    snapshot_interval,
)

from skillstate.plugin import JournalEntry, RunRecord, StoreError, VersionConflict


class TestRedisStore(StoreConformance):
    @pytest.fixture
    def store_url(self, redis_url: str) -> str:
        return redis_url


def _open(url: str) -> Any:
    return make_host(url).open_store(url)


def _record(run_id: str, version: int = 1) -> RunRecord:
    return RunRecord(id=run_id, skill="s", state={"n": version}, version=version)


def _entry(version: int) -> JournalEntry:
    return JournalEntry(
        "2026-01-01T00:00:00Z", "init" if version == 1 else "s", {"n": version}, version
    )


def _client(server: RedisServer) -> Any:
    import redis

    return redis.Redis(host="127.0.0.1", port=server.port, decode_responses=True)


def test_url_options_are_taken_out_and_the_rest_goes_to_redis_py() -> None:
    from skillstate_redis.url import parse_redis_url

    client_url, options = parse_redis_url(
        "rediss://u:pw@h:6380/2?prefix=proj:a:&durability=process&socket_timeout=3"
    )
    assert client_url == "rediss://u:pw@h:6380/2?socket_timeout=3&socket_connect_timeout=10"
    assert options == {"prefix": "proj:a:", "durability": "process", "check_aof": True}
    assert parse_redis_url("redis://h?check_aof=no")[1] == {
        "prefix": "skillstate:",
        "durability": "full",
        "check_aof": False,
    }


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis://h/0?prefix=a%20b", "prefix must be 1 to 100 letters"),
        ("redis://h/0?prefix=", "prefix must be 1 to 100 letters"),
        ("redis://u:secret@h/db", r"the database must be a number \(/0\), got '/db'"),
        ("redis:///0", "it names no host"),
        ("redis://u:secret@h:port/0", "Port could not be cast"),
        ("redis://u:secret@[::1/0", "Invalid IPv6 URL"),
        ("redis://u:secret@h/0?durability=fast", "durability must be 'full' or 'process'"),
        ("redis://u:secret@h/0?check_aof=maybe", "check_aof must be yes or no, got 'maybe'"),
    ],
)
def test_bad_urls_are_refused_in_one_line_without_the_password(url: str, message: str) -> None:
    from skillstate_redis.url import parse_redis_url

    with pytest.raises(Exception, match=message) as info:
        parse_redis_url(url)
    assert "secret" not in str(info.value) and "\n" not in str(info.value)


def test_an_option_redis_py_does_not_know_is_one_line(redis_server: RedisServer) -> None:
    store = _open(redis_server.url(colour="red"))
    with pytest.raises(StoreError, match=r"^bad Redis URL .*colour") as info:
        store.list()
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("option", ["durability=bogus", "colour=red", "check_aof=maybe"])
def test_a_bad_option_on_the_command_line_is_a_usage_error(
    redis_server: RedisServer, option: str, tmp_path: Path
) -> None:
    """As on every bundled store (tests/cli/test_store_url_options.py): exit 2, one line."""
    url = redis_server.url()
    done = run_command("skillstate", "--store", f"{url}&{option}", "list", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("skillstate: bad Redis URL") or "durability must be" in line
    assert option.split("=")[0] in line
    good = run_command("skillstate", "--store", url, "init", "rig-task", "r1", cwd=tmp_path)
    assert good.returncode == 0, good.stderr


def test_the_prefix_keeps_stores_on_one_server_apart(redis_server: RedisServer) -> None:
    a, b = _open(redis_server.url("proj-a:")), _open(redis_server.url("proj-b:"))
    for store in (a, b):
        for run_id in store.list():
            store.delete(run_id.id)
    a.create(_record("r"), _entry(1))
    assert [s.id for s in a.list()] == ["r"] and b.list() == [] and not b.exists("r")
    keys = sorted(_client(redis_server).scan_iter(match="proj-a:*"))
    assert keys == ["proj-a:journal:r", "proj-a:run:r", "proj-a:runs"]
    assert a.delete("r") and list(_client(redis_server).scan_iter(match="proj-a:*")) == []


def test_conditional_delete_deletes_only_at_the_expected_version(redis_url: str) -> None:
    store = _open(redis_url)
    store.create(_record("r"), _entry(1))
    store.commit(_record("r", 2), _entry(2), 1)
    with pytest.raises(VersionConflict) as info:
        store.delete("r", expected_version=1)
    assert (info.value.expected, info.value.actual) == (1, 2)
    assert store.get("r").version == 2 and len(store.journal("r")) == 2  # nothing changed
    assert store.delete("r", expected_version=2) is True
    assert store.delete("r", expected_version=2) is False  # a missing run
    assert not store.exists("r") and store.list() == []


def test_keys_that_are_not_the_stores_are_refused_and_never_deleted(
    redis_server: RedisServer,
) -> None:
    prefix = "foreign-test:"
    url = redis_server.url(prefix)
    client = _client(redis_server)
    client.set(f"{prefix}run:str", "someone else's")
    client.hset(f"{prefix}run:hash", mapping={"name": "theirs", "version": "1"})
    client.zadd(f"{prefix}runs", {"str": 0, "hash": 0})
    client.set(f"{prefix}journal:orphan", "theirs too")
    store = _open(url)
    for run_id in ("str", "hash"):
        for call in (
            lambda r=run_id: store.get(r),
            lambda r=run_id: store.delete(r),
            lambda r=run_id: store.delete(r, expected_version=1),
            lambda r=run_id: store.create(_record(r), _entry(1)),
            lambda r=run_id: store.commit(_record(r, 2), _entry(2), 1),
        ):
            with pytest.raises(
                StoreError, match=r"is not a run this store wrote; it is left"
            ) as info:
                call()
            assert "\n" not in str(info.value)
    with pytest.raises(StoreError, match="journal:orphan"):
        store.create(_record("orphan"), _entry(1))
    with pytest.warns(UserWarning) as caught:
        assert store.list() == []
    assert sorted(str(w.message).split(":")[0] for w in caught) == ["skipping hash", "skipping str"]
    assert client.get(f"{prefix}run:str") == "someone else's"
    assert client.hgetall(f"{prefix}run:hash") == {"name": "theirs", "version": "1"}
    assert client.get(f"{prefix}journal:orphan") == "theirs too"
    assert not client.exists(f"{prefix}run:orphan")


def test_listing_pages_through_more_runs_than_one_page(redis_url: str) -> None:
    from skillstate_redis.store import PAGE

    store = _open(redis_url)
    ids = [f"run-{n:04d}" for n in range(PAGE * 2 + 7)]
    for run_id in reversed(ids):
        store.create(_record(run_id), _entry(1))
    listed = store.list()
    assert [s.id for s in listed] == sorted(ids)
    assert store.list(skill="other") == []
    assert store.list(keys=("missing",))[0].fields == {}


def test_a_history_window_reads_only_its_versions(own_server: Callable[..., RedisServer]) -> None:
    """The entries outside the window are damaged on purpose: a store that read the
    whole journal to answer a page would fail on them. The server is the test's own, so
    its command counts are the store's."""
    from skillstate.plugin import Change, create_run, transition

    redis_server = own_server()
    prefix = "window-test:"
    url = redis_server.url(prefix, durability="process")
    host, skill = make_host(url), sample_skill()
    store = host.open_store()
    with snapshot_interval(10, store):
        create_run(host, store, skill, "w", {"counter": 0})
        for n in range(1, 30):
            transition(host, store, "w", Change(patch={"counter": n}), skill=skill)
    assert [s.version for s in store.snapshots("w")] == [10, 20, 30]
    client = _client(redis_server)
    for version in [*range(1, 20), 25, 26]:
        client.hset(f"{prefix}journal:w", str(version), "not json")
    items = list(store.history("w", after=20, limit=4))
    assert [i.version for i in items] == [21, 22, 23, 24]
    assert [i.state["counter"] for i in items] == [20, 21, 22, 23]
    with pytest.raises(StoreError, match="damaged at version 1"):
        store.journal("w")
    info = client.info("commandstats")
    assert not any(name in info for name in ("cmdstat_keys", "cmdstat_hgetall", "cmdstat_hvals"))
    host.close()
