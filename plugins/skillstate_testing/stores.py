"""The store conformance suite: every guarantee of the store contract, as tests."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from skillstate_testing.deletes import DeleteConformance
from skillstate_testing.history import HistoryConformance

__all__ = ["StoreConformance"]


class StoreConformance(HistoryConformance, DeleteConformance):
    """The store contract, as tests. Subclass it and provide a ``store_url`` fixture.

    Records and journal entries are shared, never changed in place (:mod:`skillstate.store`):
    a store may return the very objects it was given (the memory store does) or new ones
    each time; the suite never mutates what a store returns, and checks that a store
    changes neither what it is given nor a record it handed out
    (:meth:`test_a_store_changes_nothing_it_is_given_or_handed_out`).
    """

    def test_a_store_changes_nothing_it_is_given_or_handed_out(
        self, store: Any, skill: Any
    ) -> None:
        import copy

        import attrs

        from skillstate.plugin import JournalEntry, RunRecord

        now = "2026-01-01T00:00:00.000Z"
        state = {"counter": 0, "info": {"detail": {"level": 1}}, "notes": ["a", {"b": 1}]}
        first = RunRecord(
            id="given", skill=skill.name, state=state, created=now, updated=now, meta={"m": [1]}
        )
        created = JournalEntry(
            ts=now, step="init", patch={}, version=1, base=state, status="active", turn=0
        )
        kept = copy.deepcopy((first, created))
        store.create(first, created)
        assert (first, created) == kept, "create changed the record or entry it was given"
        handed_out = store.get("given")
        handed_kept = copy.deepcopy(handed_out)
        second = attrs.evolve(
            first,
            state={**state, "info": {"detail": {"level": 2}}, "notes": ["a"]},
            version=2,
        )
        entry = JournalEntry(
            ts=now,
            step="s",
            patch={"info": {"detail": {"level": 2}}, "notes": ["a"]},
            version=2,
            status="active",
            turn=0,
        )
        kept_second = copy.deepcopy((second, entry))
        store.commit(second, entry, expected_version=1)
        assert (second, entry) == kept_second, "commit changed the record or entry it was given"
        assert (first, created) == kept, "commit changed the record of the previous version"
        assert handed_out == handed_kept, "commit changed a record the store had handed out"
        assert store.get("given") == second
        assert store.journal("given") == [created, entry]

    def test_create_then_get_round_trips_every_field(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        from skillstate.plugin import create_run

        seed = {
            "counter": 1.5,
            "notes": ["é", "😀", 'a"b\\c'],
            "info": {"detail": {"level": 3, "tag": "x"}},
        }
        outcome = create_run(
            host,
            store,
            skill,
            "round.trip_1",
            seed,
            spec="Do the thing.\nCarefully.",
            environment={"name": "an-environment", "options": {"a": 1}, "state": {"n": [1, 2]}},
            observation="hello",
            schema={"type": "object"},
            meta={"k": "v"},
        )
        assert outcome.accepted and outcome.record is not None
        got = store.get("round.trip_1")
        assert got == outcome.record
        assert list(got.state) == list(outcome.record.state)  # key order kept

    def test_get_missing_raises_run_not_found(self, store: Any) -> None:
        from skillstate.plugin import RunNotFound

        with pytest.raises(RunNotFound):
            store.get("nope")
        assert not store.exists("nope")

    def test_create_twice_fails_and_keeps_the_first(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        from skillstate.plugin import RunExists

        first = self._create(host, store, skill)
        with pytest.raises(RunExists):
            self._create(host, store, skill, seed={"counter": 99})
        assert store.get("run-1") == first
        assert len(store.journal("run-1")) == 1

    def test_commit_advances_version_and_journal(self, host: Any, store: Any, skill: Any) -> None:
        self._create(host, store, skill)
        for n in range(1, 4):
            outcome = self._patch(host, store, skill, "run-1", {"counter": n}, label=f"s{n}")
            assert outcome.accepted
        record = store.get("run-1")
        assert record.version == 4 and record.state["counter"] == 3
        entries = store.journal("run-1")
        assert [e.version for e in entries] == [1, 2, 3, 4]
        assert [e.step for e in entries] == ["init", "s1", "s2", "s3"]

    def test_journal_keeps_the_patch_as_sent_with_nulls(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        self._create(host, store, skill, seed={"counter": 0, "info": {"title": "t"}})
        self._patch(host, store, skill, "run-1", {"info": {"title": None}, "notes": ["a"]})
        last = store.journal("run-1")[-1]
        assert last.patch == {"info": {"title": None}, "notes": ["a"]}
        assert "title" not in store.get("run-1").state["info"]

    def test_stale_commit_is_refused_and_changes_nothing(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        import attrs

        from skillstate.plugin import JournalEntry, VersionConflict

        record = self._create(host, store, skill)
        self._patch(host, store, skill, "run-1", {"counter": 1})
        before, journal_before = store.get("run-1"), store.journal("run-1")
        stale = attrs.evolve(record, state={**record.state, "counter": 42}, version=2)
        with pytest.raises(VersionConflict):
            store.commit(
                stale,
                JournalEntry(ts="t", step="", patch={"counter": 42}, version=2),
                expected_version=1,
            )
        assert store.get("run-1") == before
        assert store.journal("run-1") == journal_before

    def test_two_writers_with_one_expected_version_exactly_one_wins(
        self, host: Any, store: Any, skill: Any, store_url: str
    ) -> None:
        import attrs

        from skillstate.plugin import JournalEntry, VersionConflict

        record = self._create(host, store, skill)
        other = self._second_store(host, store_url)
        results: list[str] = []
        barrier = threading.Barrier(2)

        def write(target: Any, value: int) -> None:
            new = attrs.evolve(record, state={**record.state, "counter": value}, version=2)
            barrier.wait()
            try:
                target.commit(
                    new, JournalEntry(ts="t", step="", patch={"counter": value}, version=2), 1
                )
                results.append("ok")
            except VersionConflict:
                results.append("conflict")

        threads = [threading.Thread(target=write, args=(s, v)) for s, v in ((store, 1), (other, 2))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        other.close()
        assert sorted(results) == ["conflict", "ok"]
        assert store.get("run-1").version == 2
        assert [e.version for e in store.journal("run-1")] == [1, 2]

    def test_commit_to_missing_run_raises(self, store: Any, skill: Any) -> None:
        from skillstate.plugin import JournalEntry, RunNotFound, RunRecord

        record = RunRecord(id="ghost", skill="sample", state={}, version=2)
        with pytest.raises(RunNotFound):
            store.commit(record, JournalEntry(ts="t", step="", patch={}, version=2), 1)

    def test_rejected_transition_changes_nothing(self, host: Any, store: Any, skill: Any) -> None:
        self._create(host, store, skill)
        before, journal_before = store.get("run-1"), store.journal("run-1")
        outcome = self._patch(host, store, skill, "run-1", {"counter": "not a number", "bogus": 1})
        assert not outcome.accepted and outcome.rolled_back
        assert store.get("run-1") == before
        assert store.journal("run-1") == journal_before

    def test_list_is_sorted_filtered_and_summarised(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        import attrs

        from skillstate.plugin import Change, create_run, transition

        other_skill = attrs.evolve(skill, name="other")
        for run_id in ("b-run", "a-run", "c-run"):
            self._create(host, store, skill, run_id)
        assert create_run(host, store, other_skill, "d-run", {"counter": 0}).accepted
        assert [s.id for s in store.list()] == ["a-run", "b-run", "c-run", "d-run"]
        assert [s.id for s in store.list(skill="other")] == ["d-run"]
        summary = store.list(skill="sample")[0]
        assert (summary.skill, summary.status, summary.version) == ("sample", "active", 1)
        assert summary.updated
        assert summary.fields == {}  # no keys asked for, none given
        # ``keys``: the string values found at the top level, nothing else
        change = Change(patch={"info": {"title": "t"}, "notes": ["n"]})
        assert transition(host, store, "a-run", change, skill=skill).accepted
        keys = ["phase", "info", "notes", "absent", "phase", 'odd "key\\']
        rows = {s.id: s for s in store.list(skill="sample", keys=keys)}
        assert rows["a-run"].fields == {"phase": "start"}
        assert rows["a-run"].version == 2
        assert [s.id for s in store.list(keys=keys)] == ["a-run", "b-run", "c-run", "d-run"]

    def test_raw_journal_is_none_or_the_journal_as_lines(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        import json

        from skillstate.plugin import Change, JournalEntry, transition

        self._create(host, store, skill, "raw-1")
        assert transition(host, store, "raw-1", Change(patch={"counter": 2}), skill=skill).accepted
        raw = store.raw_journal("raw-1")
        if raw is None:
            return  # the store keeps no text journal of its own
        assert raw.endswith("\n")
        lines = [JournalEntry.from_dict(json.loads(line)) for line in raw.splitlines()]
        assert [e.to_dict() for e in lines] == [e.to_dict() for e in store.journal("raw-1")]

    def test_delete_removes_record_and_journal(self, host: Any, store: Any, skill: Any) -> None:
        from skillstate.plugin import RunNotFound

        self._create(host, store, skill)
        self._patch(host, store, skill, "run-1", {"counter": 5})
        assert store.delete("run-1") is True
        assert store.delete("run-1") is False
        with pytest.raises(RunNotFound):
            store.get("run-1")
        assert store.list() == []
        record = self._create(host, store, skill)  # the id is free again, with a fresh journal
        assert record.version == 1 and len(store.journal("run-1")) == 1

    @pytest.mark.parametrize(
        "bad", ["../x", "a/b", ".hidden", "a" * 81, "", "a\x00b", "a..b", "-x"]
    )
    def test_bad_ids_are_refused_everywhere(self, store: Any, bad: str) -> None:
        from skillstate.plugin import InvalidRunId, JournalEntry, RunRecord

        record = RunRecord(id=bad, skill="sample", state={}, version=1)
        entry = JournalEntry(ts="t", step="init", patch={}, version=1)
        calls: list[Callable[[], Any]] = [
            lambda: store.get(bad),
            lambda: store.journal(bad),
            lambda: store.delete(bad),
            lambda: store.create(record, entry),
            lambda: store.commit(record, entry, 1),
        ]
        for call in calls:
            with pytest.raises(InvalidRunId, match="must be alphanumeric"):
                call()

    def test_journal_replay_equals_the_record(self, host: Any, store: Any, skill: Any) -> None:
        from skillstate.plugin.history import verify_record

        self._create(host, store, skill)
        patches: list[dict[str, Any]] = [
            {"phase": "middle", "info": {"title": "t", "detail": {"level": 1}}},
            {"info": {"detail": {"level": None, "tag": "x"}}, "notes": ["a", "b"]},
            {"items": [{"id": "1", "done": False}], "notes": None},
            {"info": None, "counter": 7},
        ]
        for patch in patches:
            assert self._patch(host, store, skill, "run-1", patch).accepted
        record = store.get("run-1")
        assert verify_record(record, store.journal("run-1")) == []

    def test_concurrent_increments_lose_no_update(
        self, host: Any, store: Any, skill: Any, store_url: str
    ) -> None:
        from skillstate.plugin import Change, transition

        self._create(host, store, skill)
        workers, per_worker = 4, 15

        def work() -> None:
            own = self._second_store(host, store_url)
            from skillstate.plugin import VersionConflict

            for _ in range(per_worker):
                while True:
                    current = own.get("run-1")
                    value = current.state["counter"] + 1
                    try:
                        transition(
                            host,
                            own,
                            "run-1",
                            Change(patch={"counter": value}),
                            skill=skill,
                            expected_version=current.version,
                        )
                        break
                    except VersionConflict:
                        continue
            own.close()

        threads = [threading.Thread(target=work) for _ in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        record = store.get("run-1")
        assert record.state["counter"] == workers * per_worker
        assert [e.version for e in store.journal("run-1")] == list(
            range(1, workers * per_worker + 2)
        )

    def test_import_run_copies_record_and_journal_exactly(
        self, host: Any, store: Any, skill: Any
    ) -> None:
        from skillstate.plugin import Change, InvalidInput, RunExists, create_run, transition
        from skillstate.plugin.history import verify_record

        source = host.open_store("memory:")
        seed = {"counter": 0, "notes": ["é"], "info": {"title": "t"}}
        assert create_run(host, source, skill, "copied", seed, spec="P", meta={"z": 1, "a": 2})
        for patch in ({"phase": "middle"}, {"info": {"title": None}, "counter": 2}):
            assert transition(host, source, "copied", Change(patch=patch), skill=skill).accepted
        record, entries = source.get("copied"), source.journal("copied")

        with pytest.raises(InvalidInput, match="without gaps"):
            store.import_run(record, [entries[0], entries[2]])
        with pytest.raises(InvalidInput, match="journal ends at version 2"):
            store.import_run(record, entries[:2])
        assert not store.exists("copied")

        store.import_run(record, entries)
        got = store.get("copied")
        assert got == record and list(got.state) == list(record.state)
        assert store.journal("copied") == entries
        assert verify_record(got, store.journal("copied")) == []

        with pytest.raises(RunExists):
            store.import_run(record, entries)
        assert store.get("copied") == record and store.journal("copied") == entries
        # the imported run carries on like any other
        assert self._patch(host, store, skill, "copied", {"counter": 3}).record.version == 4
