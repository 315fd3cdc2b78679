"""The store conformance suite against the bundled memory store."""

from __future__ import annotations

import uuid

import pytest
from skillstate_testing import StoreConformance


class TestMemoryStore(StoreConformance):
    @pytest.fixture
    def store_url(self) -> str:
        return f"memory:{uuid.uuid4().hex}"


def test_a_memory_url_with_options_is_refused_not_taken_as_a_name() -> None:
    """``memory:?durability=process`` used to open a store *named* ``?durability=process``
    while ``skillstate plugins`` said its durability was ``process``."""
    from skillstate_testing import run_command

    result = run_command("skillstate", "--store", "memory:?durability=process", "list")
    assert result.returncode == 2, result  # the caller's input, as any store's bad option
    assert result.stderr.count("\n") == 1
    assert "takes no options" in result.stderr
    assert "Traceback" not in result.stderr
