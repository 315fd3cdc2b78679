"""Fixtures of the file store's tests: a store in ``tmp_path/state`` and its host.

Property tests check behaviour, not speed: no hypothesis deadline on a shared machine.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from skillstate_testing import make_host

from .. import FileStore

settings.register_profile("skillstate", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("skillstate")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def host(root: Path) -> Iterator[Any]:
    host = make_host(f"file:{root}")
    yield host
    host.close()


@pytest.fixture
def store(host: Any) -> FileStore:
    store = host.open_store()
    assert isinstance(store, FileStore)
    return store
