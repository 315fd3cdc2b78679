"""The store contract's history half, as tests: ``history``, ``state_at``, snapshots."""

from __future__ import annotations

from typing import Any

import pytest

from skillstate_testing.store_suite import StoreSuite

__all__ = ["HistoryConformance"]


class HistoryConformance(StoreSuite):
    """History and time travel on a store (part of :class:`StoreConformance`)."""

    def _versions(self, host: Any, store: Any, skill: Any, run_id: str, count: int) -> list[Any]:
        """A run of ``count`` versions; the record after each write, version 1 first."""
        from skillstate.plugin import Change, transition

        records = [self._create(host, store, skill, run_id)]
        patches: list[dict[str, Any]] = [
            {"phase": "middle", "info": {"title": "t", "detail": {"level": 1}}},
            {"info": {"detail": {"level": None, "tag": "x"}}, "notes": ["a", "b"]},
            {"items": [{"id": "1", "done": False}], "notes": None},
            {"info": None},
        ]
        for n in range(1, count):
            patch = {**patches[n % len(patches)], "counter": n}
            outcome = transition(
                host, store, run_id, Change(patch=patch, label=f"s{n}"), skill=skill
            )
            assert outcome.accepted, outcome.problems
            records.append(outcome.record)
        return records

    def test_history_yields_every_version_with_its_state(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        records = self._versions(host, store, skill, "hist-1", 7)
        items = list(store.history("hist-1"))
        assert [i.version for i in items] == list(range(1, 8))
        assert [i.entry.step for i in items] == ["init"] + [f"s{n}" for n in range(1, 7)]
        for item, record in zip(items, records, strict=True):
            assert item.state == record.state and list(item.state) == list(record.state)
            assert (item.status, item.step) == (record.status, record.step)
        assert items[3].entry == store.journal("hist-1")[3]
        # windows are plain arithmetic on versions
        assert [i.version for i in store.history("hist-1", after=2, limit=3)] == [3, 4, 5]
        assert [i.version for i in store.history("hist-1", before=3)] == [1, 2]
        assert [i.version for i in store.history("hist-1", after=5, before=7)] == [6]
        assert [i.version for i in store.history("hist-1", after=5, limit=100)] == [6, 7]
        assert list(store.history("hist-1", after=7)) == []
        assert list(store.history("hist-1", after=2, before=3)) == []

    def test_every_window_is_the_slice_of_the_full_history(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        """Each ``after``/``before``/``limit`` window is exactly the matching slice of the
        replay of the journal, oldest first: entry, state, status and step of each item
        (an override that is off by one, out of order, or ignores a bound fails here)."""
        from skillstate.plugin.history import replay_history

        self._versions(host, store, skill, "win-1", 6)
        full = list(replay_history("win-1", store.journal("win-1")))
        assert [i.version for i in full] == [1, 2, 3, 4, 5, 6]
        assert list(store.history("win-1")) == full
        for after in (None, 0, 1, 2, 3, 5, 6, 7):
            for before in (None, 0, 1, 2, 4, 6, 7, 9):
                for limit in (None, 1, 2, 3, 10):
                    want = [
                        item
                        for item in full
                        if (after is None or item.version > after)
                        and (before is None or item.version < before)
                    ][:limit]
                    got = list(store.history("win-1", after=after, before=before, limit=limit))
                    assert got == want, (after, before, limit, [i.version for i in got])
        for item in full:
            assert store.state_at("win-1", item.version) == item, item.version

    def test_history_and_state_at_replay_with_the_merge_they_are_given(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        """``merge`` (``host.merge``: a merge plugin) is the one replay uses, for every
        version before the current one (whose state is the record's)."""
        from skillstate.plugin import merge_patch
        from skillstate.plugin.history import replay_history

        def tagged(state: Any, patch: Any) -> Any:
            return {**merge_patch(state, patch), "merged_by": "tagged"}

        self._versions(host, store, skill, "merge-1", 5)
        want = list(replay_history("merge-1", store.journal("merge-1"), merge=tagged))
        assert all(item.state["merged_by"] == "tagged" for item in want)
        assert list(store.history("merge-1", merge=tagged)) == want
        assert list(store.history("merge-1", after=1, limit=2, merge=tagged)) == want[1:3]
        for item in want[:-1]:
            assert store.state_at("merge-1", item.version, merge=tagged) == item
        assert "merged_by" not in store.state_at("merge-1", 5, merge=tagged).state

    def test_history_refuses_bad_bounds_and_unknown_runs(self, store: Any) -> None:
        from skillstate.plugin import InvalidInput, InvalidRunId, RunNotFound

        with pytest.raises(RunNotFound):
            store.history("nope")
        with pytest.raises(RunNotFound):
            store.state_at("nope", 1)
        with pytest.raises(InvalidRunId):
            store.history("../x")
        for bad in ({"after": -1}, {"before": "3"}, {"limit": 0}, {"after": True}, {"limit": 1.5}):
            with pytest.raises((InvalidInput, RunNotFound)):
                store.history("nope", **bad)

    def test_state_at_each_version_and_refuses_versions_the_run_lacks(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        from skillstate.plugin import InvalidInput, SkillstateError

        records = self._versions(host, store, skill, "at-1", 5)
        for record in records:
            item = store.state_at("at-1", record.version)
            assert item.version == record.version and item.state == record.state
            assert item.record_of(records[-1]).state == record.state
        for bad in (0, 6, 10**9):
            with pytest.raises(SkillstateError, match=f"no version {bad}: its versions are 1 to 5"):
                store.state_at("at-1", bad)
        wrong: tuple[Any, ...] = (-1, "2", 2.0, None)
        for value in wrong:
            with pytest.raises(InvalidInput):
                store.state_at("at-1", value)
        assert store.get("at-1") == records[-1]  # reading history changes nothing

    def test_history_from_snapshots_equals_a_full_replay(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        """Stores that keep snapshots (every ``snapshot_interval`` versions) replay from them;
        the answers, and ``verify``, are the same as a replay from the creation."""
        from skillstate_testing.helpers import snapshot_interval

        with snapshot_interval(4, store):
            self._check_snapshots(host, store, skill)

    def _check_snapshots(self, host: Any, store: Any, skill: Any) -> None:
        from skillstate.plugin.history import replay_history, verify_record

        records = self._versions(host, store, skill, "snap-1", 11)
        kept = store.snapshots("snap-1")
        assert [s.version for s in kept] in ([], [4, 8])  # none, or every 4th version
        for snapshot in kept:
            record = records[snapshot.version - 1]
            assert (snapshot.state, snapshot.status, snapshot.step) == (
                record.state,
                record.status,
                record.step,
            )
        full = list(replay_history("snap-1", store.journal("snap-1")))
        assert list(store.history("snap-1")) == full
        assert [i.version for i in store.history("snap-1", after=8, limit=2)] == [9, 10]
        for version in range(1, 12):
            assert store.state_at("snap-1", version) == full[version - 1], version
        for after in range(0, 12):  # pages starting on, before and after each snapshot
            assert list(store.history("snap-1", after=after, limit=3)) == full[after : after + 3]
        record = store.get("snap-1")
        assert verify_record(record, store.journal("snap-1"), snapshots=kept) == []
        # an imported copy keeps (or computes) its snapshots too
        copy = host.open_store("memory:")
        copy.import_run(record, store.journal("snap-1"))
        assert list(copy.history("snap-1")) == full
        store.delete("snap-1")
        store.import_run(record, copy.journal("snap-1"))
        assert [s.version for s in store.snapshots("snap-1")] in ([], [4, 8])
        assert list(store.history("snap-1", after=6)) == full[6:]
