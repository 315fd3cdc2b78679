"""The store conformance suite's deletes: conditional, atomic against a racing writer."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from skillstate_testing.store_suite import StoreSuite

__all__ = ["DeleteConformance"]


class DeleteConformance(StoreSuite):
    """``delete(run_id, expected_version=…)``: compare-and-swap, as ``commit`` is.

    Part of :class:`~skillstate_testing.StoreConformance`; every store, a third party's
    too, must pass it: ``gc`` and ``rm --expected-version`` rely on it to never delete
    a run written after they checked it.
    """

    def test_conditional_delete_checks_the_version(self, host: Any, store: Any, skill: Any) -> None:
        from skillstate.plugin import VersionConflict

        self._create(host, store, skill)
        self._patch(host, store, skill, "run-1", {"counter": 1})
        with pytest.raises(VersionConflict) as caught:
            store.delete("run-1", expected_version=1)
        assert (caught.value.expected, caught.value.actual) == (1, 2)
        with pytest.raises(VersionConflict):
            store.delete("run-1", expected_version=0)  # 0: "no record", and there is one
        record = store.get("run-1")  # nothing was removed
        assert record.version == 2 and len(store.journal("run-1")) == 2
        assert store.delete("run-1", expected_version=2) is True
        assert not store.exists("run-1")
        # a run that is not there: nothing to lose, whatever version was expected
        assert store.delete("run-1", expected_version=2) is False
        assert store.delete("never", expected_version=0) is False

    def test_conditional_delete_never_takes_a_later_commit(
        self, host: Any, store: Any, skill: Any, store_url: str
    ) -> None:
        """A writer commits as fast as it can while a deleter deletes "at the version it
        just read": whenever the delete wins, no commit past that version was
        acknowledged (gc's race; a check-then-delete loses such commits)."""
        from skillstate.plugin import Change, RunNotFound, VersionConflict, transition

        writer_store = self._second_store(host, store_url)
        try:
            for round_ in range(8):
                run_id = f"race-{round_}"
                self._create(host, store, skill, run_id)
                acked: list[int] = []
                started = threading.Event()

                def write(
                    run_id: str = run_id, acked: list[int] = acked, started: Any = started
                ) -> None:
                    for n in range(1, 400):
                        try:
                            outcome = transition(
                                host,
                                writer_store,
                                run_id,
                                Change(patch={"counter": n}),
                                skill=skill,
                            )
                        except (RunNotFound, VersionConflict):
                            return
                        finally:
                            started.set()
                        assert outcome.accepted and outcome.record is not None
                        acked.append(outcome.record.version)

                writer = threading.Thread(target=write)
                writer.start()
                started.wait(10)
                deleted_at = None
                while deleted_at is None:
                    version = store.get(run_id).version
                    try:
                        if store.delete(run_id, expected_version=version):
                            deleted_at = version
                    except VersionConflict:
                        continue
                writer.join(60)
                assert not writer.is_alive()
                assert max(acked, default=1) <= deleted_at, (
                    f"commits up to version {max(acked)} were acknowledged, and the run "
                    f"was deleted as if at version {deleted_at}"
                )
                assert not store.exists(run_id)
        finally:
            writer_store.close()
