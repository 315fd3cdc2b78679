"""``skillstate_testing`` as a pytest plugin: its fixtures, temporary stores, and service skips."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host, sample_skill, temporary_store_url
from skillstate_testing.helpers import STORE_KINDS
from support import clean_env

from skillstate import Change, Problem, create_run, hookimpl, transition

FIXTURES = (
    "skillstate_pm",
    "skillstate_host",
    "register_plugin",
    "memory_store",
    "file_store",
    "sqlite_store",
    "postgres_store",
    "skillstate_store",
)


def _pytest(directory: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run pytest in a scratch directory, as a plugin author would (the plugin loads by itself)."""
    (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=directory,
        capture_output=True,
        text=True,
        env=clean_env(**env),
        timeout=120,
    )


def test_pytest_loads_the_plugin_and_lists_every_fixture(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "--fixtures")
    assert done.returncode == 0, done.stderr
    section = done.stdout.split("from skillstate_testing", 1)[1]
    for name in FIXTURES:
        assert f"\n{name}" in section, name
    assert "A fresh store of each bundled kind in turn" in section


def test_skillstate_store_is_each_kind_fresh_and_shared_by_url(
    skillstate_store: Any, request: pytest.FixtureRequest
) -> None:
    kind = request.node.callspec.params["skillstate_store"]
    assert skillstate_store.url.split(":", 1)[0] == kind
    assert skillstate_store.list() == []
    host = make_host(skillstate_store.url)
    try:
        assert create_run(host, skillstate_store, sample_skill(), "r1", {"counter": 1}).accepted
        other = host.open_store(skillstate_store.url)
        assert other.get("r1").state["counter"] == 1  # a second opener sees the same runs
    finally:
        host.close()


def test_the_parametrized_store_covers_every_bundled_kind() -> None:
    assert STORE_KINDS == ("memory", "file", "sqlite", "postgresql")


def test_sqlite_and_file_stores_live_in_the_test_directory(
    sqlite_store: Any, file_store: Any, tmp_path: Path
) -> None:
    assert sqlite_store.url == f"sqlite:///{tmp_path / 'runs.db'}"
    assert file_store.url == f"file:{tmp_path / 'state'}"


class Veto:
    @hookimpl
    def skillstate_guards(self, skill: Any, before: Any, after: Any) -> list[Problem]:
        return [Problem("guard", "vetoed", "", "veto")] if after.get("counter") == 13 else []


def test_register_plugin_applies_to_the_host_for_this_test(
    skillstate_host: Any, register_plugin: Any, skillstate_pm: Any
) -> None:
    plugin = register_plugin(Veto(), name="veto")
    assert skillstate_pm.is_registered(plugin)
    store = skillstate_host.open_store()
    skill = sample_skill()
    assert create_run(skillstate_host, store, skill, "r", {"counter": 0}).accepted
    outcome = transition(skillstate_host, store, "r", Change(patch={"counter": 13}), skill=skill)
    assert [p.message for p in outcome.problems] == ["vetoed"]


def test_register_plugin_unregisters_after_the_test(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(
        textwrap.dedent(
            """
            seen = []

            class Plugin:
                pass

            def test_register(register_plugin, skillstate_pm):
                seen.append((skillstate_pm, register_plugin(Plugin(), name="p")))
                assert skillstate_pm.get_plugin("p") is not None

            def test_gone_afterwards():
                pm, plugin = seen[0]
                assert not pm.is_registered(plugin)
            """
        ),
        encoding="utf-8",
    )
    done = _pytest(tmp_path, "-q")
    assert "2 passed" in done.stdout, done.stdout + done.stderr


def test_temporary_store_url_refuses_an_unknown_kind(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown store kind 'redis'; known: memory, file"):
        with temporary_store_url("redis", tmp_path):
            pass


def test_postgres_store_gets_its_own_schema_and_drops_it(tmp_path: Path) -> None:
    with temporary_store_url("postgresql", tmp_path) as url:  # skips (or fails in CI) if absent
        import psycopg

        schema = url.split("schema=", 1)[1].split("&", 1)[0]
        host = make_host(url)
        assert create_run(host, host.open_store(), sample_skill(), "pg", {"counter": 1}).accepted
        host.close()
        server = url.split("?", 1)[0]
        query = "SELECT count(*) FROM information_schema.schemata WHERE schema_name = %s"
        with psycopg.connect(server) as conn:
            assert conn.execute(query, (schema,)).fetchone() == (1,)
    with psycopg.connect(server) as conn:
        assert conn.execute(query, (schema,)).fetchone() == (0,)


INNER_POSTGRES_TEST = """
def test_uses_postgres(postgres_store):
    assert postgres_store.list() == []
"""


def test_postgres_store_skips_with_the_reason_when_the_server_is_missing(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(INNER_POSTGRES_TEST, encoding="utf-8")
    nowhere = "postgresql://postgres@127.0.0.1:1/test"
    done = _pytest(tmp_path, "-q", "-rs", SKILLSTATE_TEST_POSTGRES=nowhere, CI="")
    assert "1 skipped" in done.stdout, done.stdout + done.stderr
    assert f"PostgreSQL is not reachable at {nowhere}" in done.stdout
    assert "set SKILLSTATE_TEST_POSTGRES to another server" in done.stdout


def test_postgres_store_fails_instead_of_skipping_under_ci(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(INNER_POSTGRES_TEST, encoding="utf-8")
    nowhere = "postgresql://postgres@127.0.0.1:1/test"
    done = _pytest(tmp_path, "-q", SKILLSTATE_TEST_POSTGRES=nowhere, CI="true")
    assert "1 error" in done.stdout or "1 failed" in done.stdout, done.stdout + done.stderr
    assert "CI=true: services must be available" in done.stdout
