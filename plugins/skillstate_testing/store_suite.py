"""The fixtures and helpers the store conformance suites share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from skillstate_testing.helpers import make_host, sample_skill

__all__ = ["StoreSuite"]


class StoreSuite:
    """A fresh store per test (from the subclass's ``store_url`` fixture), a host, a skill."""

    @pytest.fixture
    def store_url(self) -> str:
        raise NotImplementedError(
            "provide a store_url fixture returning a fresh, empty store's URL"
        )

    @pytest.fixture
    def host(self, store_url: str) -> Iterator[Any]:
        host = make_host(store_url)
        yield host
        host.close()

    @pytest.fixture
    def store(self, host: Any) -> Any:
        return host.open_store()

    @pytest.fixture
    def skill(self) -> Any:
        return sample_skill()

    @staticmethod
    def _second_store(host: Any, store_url: str) -> Any:
        """Another store object on the same URL (another thread's or process's view)."""
        return host.stores.get(store_url.split(":", 1)[0].lower()).factory(store_url)

    def _create(
        self, host: Any, store: Any, skill: Any, run_id: str = "run-1", seed: Any = None
    ) -> Any:
        from skillstate.plugin import create_run

        outcome = create_run(host, store, skill, run_id, seed or {"counter": 0})
        assert outcome.accepted, outcome.problems
        assert outcome.record is not None
        return outcome.record

    def _patch(self, host: Any, store: Any, skill: Any, run_id: str, patch: Any, **kw: Any) -> Any:
        from skillstate.plugin import Change, transition

        return transition(host, store, run_id, Change(patch=patch, **kw), skill=skill)
