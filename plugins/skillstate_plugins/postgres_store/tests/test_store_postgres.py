"""The ``postgresql:`` store against the real server: conformance, URLs, NUL, schema setup."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from skillstate_testing import StoreConformance, make_host, temporary_store_url
from skillstate_testing.helpers import postgres_url

from skillstate.plugin import JournalEntry, RunRecord, StoreError

from .. import parse_postgres_url

pytestmark = pytest.mark.postgres


class TestPostgresStore(StoreConformance):
    @pytest.fixture
    def store_url(self) -> Iterator[str]:
        with temporary_store_url("postgresql", ".") as url:
            yield url


@pytest.fixture
def url() -> Iterator[str]:
    with temporary_store_url("postgresql", ".") as store_url:
        yield store_url


@pytest.fixture
def store(url: str) -> Iterator[Any]:
    host = make_host(url)
    yield host.open_store()
    host.close()


def test_url_options_are_taken_out_and_the_rest_goes_to_libpq() -> None:
    conninfo, options = parse_postgres_url(
        "postgres://u:pw@h:5433/db?schema=s1&sslmode=disable&pool_max=3&pool_timeout=2.5"
    )
    assert conninfo == "postgres://u:pw@h:5433/db?sslmode=disable&application_name=skillstate"
    local, _ = parse_postgres_url("postgresql:///db")  # no host: libpq's local socket
    assert local == "postgresql:///db?application_name=skillstate"
    assert options == {
        "schema": "s1",
        "durability": "full",
        "pool_min": 1,
        "pool_max": 3,
        "pool_timeout": 2.5,
    }


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://h/db?schema=a;drop", "schema 'a;drop' must be letters"),
        ('postgresql://h/db?schema="x"', "must be letters, digits and _"),
        ("postgresql://h/db?pool_max=lots", "pool_max must be a number, got 'lots'"),
        ("postgresql://h/db?pool_max=0", "pool_max must be a positive number"),
        ("postgresql://h/db?pool_timeout=inf", "pool_timeout must be a positive number up to"),
        ("postgresql://h/db?pool_timeout=nan", "pool_timeout must be a positive number up to"),
        ("postgresql://h/db?pool_timeout=1e300", "pool_timeout must be a positive number up to"),
        ("postgresql://h/db?pool_min=5&pool_max=2", "pool_min is larger than pool_max"),
        ("postgresql://u:pw@[::1/db", r"^bad PostgreSQL URL: Invalid IPv6 URL$"),
    ],
)
def test_bad_urls_are_refused_clearly(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        parse_postgres_url(url)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (":abc/db", "port must be a number from 1 to 65535, got 'abc'"),
        (":5432,127.0.0.1:99999/db", "port must be a number from 1 to 65535, got '99999'"),
        ("/db?sslmode=bogus", "sslmode must be one of disable, allow, prefer, require, verify"),
        ("/db?target_session_attrs=rw", "target_session_attrs must be one of any, read-write"),
        ("/db?connect_timeout=abc", "connect_timeout must be a whole number, got 'abc'"),
        ("/db?keepalives_idle=1.5", "keepalives_idle must be a whole number, got '1.5'"),
    ],
)
def test_a_libpq_value_that_could_never_connect_is_the_callers_mistake(
    query: str, message: str
) -> None:
    # libpq checks these only when it connects: without this, "cannot connect" (exit 3)
    store = make_host().open_store(f"postgresql://u:secret@127.0.0.1{query}")
    with pytest.raises(StoreError, match=message) as info:
        store.list()
    assert info.value.kind == "usage"
    assert "secret" not in str(info.value)


def test_libpq_values_it_allows_still_connect(url: str) -> None:
    # a multi-host URL with an empty port, spaces around a number, a listed mode
    parts = urlsplit(url)
    user, _, where = parts.netloc.rpartition("@")
    hosts = f"{user}@{where},{parts.hostname}:" if user else f"{where},{parts.hostname}:"
    extra = "connect_timeout=%205&sslmode=prefer&target_session_attrs=any"
    host = make_host()
    store = host.open_store(f"{parts.scheme}://{hosts}{parts.path}?{parts.query}&{extra}")
    assert store.list() == []
    host.close()


def test_unreachable_server_fails_clearly_without_the_password(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = make_host().open_store("postgresql://u:secret@127.0.0.1:1/db?pool_timeout=1")
    with pytest.raises(StoreError, match=r"cannot connect to PostgreSQL at .*u:\*\*\*@") as info:
        store.list()
    assert "secret" not in str(info.value)
    # The reason is the connection's failure, in the one line, not the pool's timeout
    # after a warning line per attempt.
    assert "Connection refused" in str(info.value)
    assert "\n" not in str(info.value)
    assert "pool initialization incomplete" not in str(info.value)
    assert not [r for r in caplog.records if "error connecting" in r.getMessage()]


def test_both_schemes_open_the_same_store(url: str) -> None:
    host = make_host(url)
    a = host.open_store()
    b = host.open_store(url.replace("postgresql://", "postgres://", 1))
    a.create(RunRecord(id="r", skill="s", state={}), JournalEntry("t", "init", {}, 1))
    assert b.get("r").id == "r"
    host.close()


def test_nul_is_kept_everywhere_and_jsonb_gets_a_replacement(store: Any, url: str) -> None:
    import psycopg

    record = RunRecord(
        id="nul",
        skill="s",
        state={"z": "a\x00b", "a": {"k\x00": 1}},
        spec="P\x00",
        observation="\x00obs",
        environment={"name": "e\x00"},
        meta={"m": "\x00"},
    )
    entry = JournalEntry(ts="t", step="in\x00it", patch={"p": "\x00"}, version=1)
    store.create(record, entry)
    got = store.get("nul")
    assert got == record and list(got.state) == ["z", "a"]
    assert store.journal("nul") == [entry]
    with psycopg.connect(postgres_url()) as conn:
        schema = parse_postgres_url(url)[1]["schema"]
        jsonb = conn.execute(
            f"SELECT state ->> 'z' FROM \"{schema}\".skillstate_runs WHERE id = %s", ("nul",)
        ).fetchone()
    assert jsonb == ("a\ufffdb",)


def test_key_order_survives_although_jsonb_sorts_keys(store: Any) -> None:
    state = {"zeta": 1, "alpha": {"yy": 1, "b": 2}, "mid": [{"z": 1, "a": 2}]}
    store.create(RunRecord(id="order", skill="s", state=state), JournalEntry("t", "init", {}, 1))
    got = store.get("order").state
    assert list(got) == ["zeta", "alpha", "mid"]
    assert list(got["alpha"]) == ["yy", "b"] and list(got["mid"][0]) == ["z", "a"]


def test_schema_setup_is_safe_when_processes_start_together(url: str) -> None:
    """Eight stores open the same fresh schema at once: no error, one set of tables."""
    import psycopg

    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def open_one(n: int) -> None:
        store = make_host().open_store(url)
        barrier.wait()
        try:
            store.create(
                RunRecord(id=f"r{n}", skill="s", state={}), JournalEntry("t", "init", {}, 1)
            )
        except BaseException as exc:
            errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=open_one, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    schema = parse_postgres_url(url)[1]["schema"]
    with psycopg.connect(postgres_url()) as conn:
        version = conn.execute(
            f'SELECT value FROM "{schema}".skillstate_meta WHERE key = %s', ("schema_version",)
        ).fetchone()
    assert version == ("2",)
    assert len(make_host().open_store(url).list()) == 8
