"""``skillstate_testing``: a pytest plugin and kit for plugin authors (entry point ``pytest11``).

Installed with skillstate, it is loaded by pytest on its own (disable it with
``-p no:skillstate``). ``docs/plugins.md`` shows it at work in three example packages.

Fixtures:

- ``skillstate_pm`` — a fresh plugin manager with every installed plugin loaded;
- ``skillstate_host`` — a :class:`~skillstate.host.Host` on that manager, with a
  ``memory:`` store configured;
- ``register_plugin`` — ``register_plugin(obj, name=None)`` registers an in-process
  plugin on ``skillstate_pm`` (and so on ``skillstate_host``) for one test and
  unregisters it afterwards; register before the host first looks up a skill,
  store or environment the plugin provides;
- ``memory_store``, ``file_store``, ``sqlite_store``, ``postgres_store`` — a fresh,
  empty store of each bundled kind (``postgres_store`` uses ``$SKILLSTATE_TEST_POSTGRES``
  or ``postgresql://postgres@127.0.0.1:5432/test`` in a schema of its own, dropped
  afterwards; it skips with the reason when the server or psycopg is missing, and
  fails instead when ``CI=true``);
- ``small_fs`` — a :class:`SmallFilesystem`: a real 256 KiB ``tmpfs`` mounted on a
  directory of the test's own, to fill (a full disk) or remount read-only (root only;
  skipped elsewhere, failed under ``CI=true``);
- ``skillstate_store`` — parametrized: the test runs once per bundled kind
  (``memory``, ``file``, ``sqlite``, ``postgresql``).

Conformance suites, to subclass in your own tests (each test class gets every test):

- :class:`StoreConformance` — the store contract. Provide a ``store_url`` fixture
  returning the URL of a fresh, empty store::

      from skillstate_testing import StoreConformance

      class TestMyStore(StoreConformance):
          @pytest.fixture
          def store_url(self, tmp_path):
              return f"mystore://{tmp_path}/db"

- :class:`EnvironmentConformance` — the environment contract. Provide
  ``environment_name`` and ``environment_actions`` (and optionally
  ``environment_options`` and ``rejected_action``).

Helpers: :func:`make_host`, :func:`sample_skill`, :func:`temporary_store_url`,
:func:`snapshot_interval` (snapshots every few versions, for a test),
:func:`require_postgres`, :func:`require_service`, :func:`clean_env`,
:func:`run_command` (a console script of this environment, run for real).

:mod:`skillstate_testing.durability`: :func:`~skillstate_testing.durability.kill_writers`
(writers killed with ``SIGKILL`` lose nothing acknowledged, for any store kind).

These are the kit (``docs/plugins.md``, ``docs/stores.md``); the modules behind it
(:mod:`skillstate_testing.helpers`, …) hold a few more helpers the project's own tests
use, which are not part of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from skillstate_testing.environments import EnvironmentConformance
from skillstate_testing.filesystems import SmallFilesystem, small_filesystem
from skillstate_testing.helpers import (
    STORE_KINDS,
    clean_env,
    make_host,
    require_postgres,
    require_service,
    run_command,
    sample_skill,
    snapshot_interval,
    temporary_store_url,
)
from skillstate_testing.stores import StoreConformance

__all__ = [
    "EnvironmentConformance",
    "SmallFilesystem",
    "StoreConformance",
    "clean_env",
    "file_store",
    "make_host",
    "memory_store",
    "postgres_store",
    "register_plugin",
    "require_postgres",
    "require_service",
    "run_command",
    "sample_skill",
    "skillstate_host",
    "skillstate_pm",
    "skillstate_store",
    "small_fs",
    "snapshot_interval",
    "sqlite_store",
    "temporary_store_url",
]


def pytest_configure(config: pytest.Config) -> None:
    """The markers the conformance suites and the bundled plugins' tests use."""
    config.addinivalue_line("markers", "slow: long-running (crash, concurrency, venv) tests")
    config.addinivalue_line("markers", "postgres: needs a PostgreSQL server")


@pytest.fixture
def skillstate_host() -> Iterator[Any]:
    """A host with every installed plugin loaded, whose configured store is a fresh
    ``memory:`` store (no configuration file or ``SKILLSTATE_*`` variable applies)."""
    from skillstate.plugin import Host
    from skillstate.plugin.cli import load_config

    host = Host.from_config(load_config(env={}, overrides={"store": "memory:"}))
    yield host
    host.close()


@pytest.fixture
def skillstate_pm(skillstate_host: Any) -> Any:
    """``skillstate_host``'s plugin manager: every installed plugin loaded."""
    return skillstate_host.pm


@pytest.fixture
def register_plugin(skillstate_pm: Any) -> Iterator[Callable[..., Any]]:
    """Register an in-process plugin on ``skillstate_pm`` for the duration of one test."""
    registered: list[Any] = []

    def register(plugin: Any, name: str | None = None) -> Any:
        skillstate_pm.register_local(plugin, name or getattr(plugin, "__name__", repr(plugin)))
        registered.append(plugin)
        return plugin

    yield register
    for plugin in registered:
        if skillstate_pm.is_registered(plugin):
            skillstate_pm.unregister(plugin)


@pytest.fixture
def memory_store() -> Any:
    """A fresh ``memory:`` store."""
    return make_host().open_store("memory:")


@pytest.fixture
def file_store(tmp_path: Path) -> Iterator[Any]:
    """A fresh ``file:`` store in a temporary directory."""
    yield from _open_temporary("file", tmp_path)


def _open_temporary(kind: str, directory: Path) -> Iterator[Any]:
    with temporary_store_url(kind, directory) as url:
        host = make_host(url)
        try:
            yield host.open_store()
        finally:
            host.close()


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Any]:
    """A fresh ``sqlite:`` store in a temporary directory."""
    yield from _open_temporary("sqlite", tmp_path)


@pytest.fixture
def postgres_store(tmp_path: Path) -> Iterator[Any]:
    """A fresh ``postgresql:`` store in its own schema (skipped when the server is missing)."""
    yield from _open_temporary("postgresql", tmp_path)


@pytest.fixture(params=STORE_KINDS)
def skillstate_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A fresh store of each bundled kind in turn: the test runs once per kind."""
    yield from _open_temporary(request.param, tmp_path)


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[SmallFilesystem]:
    """A real 256 KiB tmpfs on ``tmp_path / "fs"`` (see :mod:`skillstate_testing.filesystems`)."""
    from skillstate_testing.filesystems import can_mount

    why = can_mount()
    require_service(why is None, why or "")
    with small_filesystem(tmp_path / "fs") as fs:
        yield fs
