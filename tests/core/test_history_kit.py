"""The history conformance tests catch a wrong third-party ``history``/``state_at``:
each broken store below passes the rest of the contract and fails them."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import pytest
from skillstate_plugins.memory_store.store import MemoryStore
from skillstate_testing import make_host, sample_skill
from skillstate_testing.history import HistoryConformance

from skillstate.records import HistoryItem


class _Broken(MemoryStore):
    def history(self, run_id: str, **bounds: Any) -> Iterator[HistoryItem]:
        return iter(self.wrong(list(MemoryStore.history(self, run_id, **bounds)), bounds))

    def wrong(self, items: list[HistoryItem], bounds: dict[str, Any]) -> list[HistoryItem]:
        raise NotImplementedError


class OffByOne(_Broken):
    """Each item carries the state of the version before it."""

    def wrong(self, items: list[HistoryItem], bounds: dict[str, Any]) -> list[HistoryItem]:
        out, before = [], None
        for item in items:
            out.append(attrs.evolve(item, state=before or item.state))
            before = item.state
        return out


class NewestFirst(_Broken):
    def wrong(self, items: list[HistoryItem], bounds: dict[str, Any]) -> list[HistoryItem]:
        return items[::-1]


def _ignoring(name: str) -> type[MemoryStore]:
    class Ignores(MemoryStore):
        def history(self, run_id: str, **bounds: Any) -> Iterator[HistoryItem]:
            bounds.pop(name, None)
            return MemoryStore.history(self, run_id, **bounds)

    Ignores.__name__ = f"Ignores_{name}"
    return Ignores


class IgnoresMerge(MemoryStore):
    def history(self, run_id: str, **bounds: Any) -> Iterator[HistoryItem]:
        bounds.pop("merge", None)
        return MemoryStore.history(self, run_id, **bounds)


class StateAtOffByOne(MemoryStore):
    def state_at(self, run_id: str, version: int, **kw: Any) -> HistoryItem:
        item = MemoryStore.state_at(self, run_id, version, **kw)
        if version > 1:
            return attrs.evolve(item, state=MemoryStore.state_at(self, run_id, version - 1).state)
        return item


BROKEN: list[type[MemoryStore]] = [
    OffByOne,
    NewestFirst,
    _ignoring("limit"),
    _ignoring("before"),
    _ignoring("after"),
    IgnoresMerge,
    StateAtOffByOne,
]

TESTS: list[Callable[..., None]] = [
    HistoryConformance.test_history_yields_every_version_with_its_state,
    HistoryConformance.test_every_window_is_the_slice_of_the_full_history,
    HistoryConformance.test_history_and_state_at_replay_with_the_merge_they_are_given,
    HistoryConformance.test_state_at_each_version_and_refuses_versions_the_run_lacks,
    HistoryConformance.test_history_from_snapshots_equals_a_full_replay,
]


def _failures(store_class: type[MemoryStore]) -> list[str]:
    failed = []
    for test in TESTS:
        url = f"memory:kit-{uuid.uuid4().hex}"
        host = make_host(url)
        try:
            test(HistoryConformance(), host, store_class(url), sample_skill())
        except AssertionError:
            failed.append(test.__name__)
        finally:
            host.close()
    return failed


@pytest.mark.parametrize("store_class", BROKEN, ids=[c.__name__ for c in BROKEN])
def test_a_wrong_history_fails_the_conformance_tests(store_class: type[MemoryStore]) -> None:
    assert _failures(store_class), f"{store_class.__name__} passed every history test"


def test_the_bundled_memory_store_passes_them() -> None:
    assert _failures(MemoryStore) == []
