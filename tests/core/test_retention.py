"""Durations as users write them, and the store's conditional delete (``Store.delete_if_at``)."""

from __future__ import annotations

from typing import Any

import pytest

from skillstate.plugin import InvalidInput, Store, StoreError
from skillstate.plugin.cli import parse_duration


def test_durations_with_and_without_a_unit() -> None:
    assert parse_duration("30d") == 30 * 86400 and parse_duration("90m") == 5400
    assert parse_duration("30") == 30  # the configuration's bare seconds
    with pytest.raises(InvalidInput, match=r"^--older-than needs a unit .*\(e\.g\. 30d\)"):
        parse_duration("30", "--older-than", bare=False)
    assert parse_duration("30s", "--older-than", bare=False) == 30
    with pytest.raises(InvalidInput, match="is too long: at most 999999999d"):
        parse_duration("1000000000d")
    with pytest.raises(InvalidInput, match="must be a number with a unit") as caught:
        parse_duration("x" * 100_000)
    assert len(str(caught.value)) < 5000  # quoted in part


class _OldStore(Store):
    """A store written before ``delete`` took ``expected_version``."""

    def __init__(self) -> None:
        self.deleted: list[str] = []

    def get(self, run_id: str) -> Any:
        raise NotImplementedError

    def create(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def commit(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def list(self, *args: Any, **kwargs: Any) -> Any:
        return []

    def journal(self, run_id: str) -> Any:
        return []

    def delete(self, run_id: str) -> bool:  # type: ignore[override]
        self.deleted.append(run_id)
        return True


def test_delete_if_at_never_falls_back_to_a_blind_delete() -> None:
    store = _OldStore()
    with pytest.raises(StoreError, match="cannot delete conditionally"):
        store.delete_if_at("r1", 3)
    assert store.deleted == []
