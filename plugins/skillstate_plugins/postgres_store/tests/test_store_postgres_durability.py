"""The ``postgresql:`` store's durability levels against the real server.

``full`` leaves the server's ``synchronous_commit`` as it is (``on``); ``process`` sets it
``off`` on every connection of the store. ``SIGKILL`` of a client writer loses nothing
acknowledged at either level: the server holds each acknowledged commit. (A crash of
the server itself at ``process`` may lose its last ``3 × wal_writer_delay``; that is
PostgreSQL's documented promise and cannot be provoked from a test.)
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from typing import Any

import pytest
from skillstate_testing import make_host, sample_skill, temporary_store_url
from skillstate_testing.durability import kill_writers

from skillstate.plugin import create_run

from ..backend import PostgresStore

pytestmark = pytest.mark.postgres


@pytest.fixture
def url() -> Iterator[str]:
    with temporary_store_url("postgresql", ".") as store_url:
        yield store_url


def _setting(store: Any) -> str:
    return str(store._run("read", lambda c: c.execute("SHOW synchronous_commit").fetchone()[0]))


@pytest.mark.parametrize(("level", "setting"), [("full", "on"), ("process", "off")])
def test_each_level_sets_synchronous_commit(url: str, level: str, setting: str) -> None:
    store = PostgresStore(f"{url}&durability={level}")
    try:
        assert store.durability == level
        assert _setting(store) == setting
        assert "durability" not in store.conninfo  # ours, never sent to libpq
    finally:
        store.close()


def test_the_level_comes_from_the_configuration_when_the_url_names_none(url: str) -> None:
    host = make_host(url, durability="process")
    try:
        assert host.open_store().durability == "process"
        assert _setting(host.open_store()) == "off"
    finally:
        host.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("level", ["full", "process"])
def test_sigkill_of_a_client_loses_nothing_acknowledged(url: str, level: str) -> None:
    url = f"{url}&durability={level}&pool_max=1"
    host, skill = make_host(url), sample_skill()
    store = host.open_store()
    create_run(host, store, skill, "k", {"counter": 0})
    store.close()
    opened = functools.partial(PostgresStore, url)  # each child its own connection
    kill_writers(
        host,
        skill,
        child_store=opened,
        fresh_store=opened,
        kills=6,
        acknowledged=1,
        reads=(1, 4),
        pause=0.003,
    )
    host.close()


def test_full_is_kept_where_the_server_default_is_off(url: str) -> None:
    """A session default of ``off`` (set for the role or database, or in ``options``)
    would make ``full`` acknowledge before the WAL is flushed: the store turns it on."""
    store = PostgresStore(f"{url}&options=-c%20synchronous_commit%3Doff&pool_min=2")
    try:
        assert store.durability == "full"
        assert _setting(store) == "on"
    finally:
        store.close()
    stronger = PostgresStore(f"{url}&options=-c%20synchronous_commit%3Dremote_write")
    try:
        assert _setting(stronger) == "remote_write"  # at full, a stronger setting is kept
    finally:
        stronger.close()
