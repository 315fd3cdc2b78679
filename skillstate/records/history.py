"""Listings, snapshots and versions of a run: what listing, history and replay read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from skillstate.records.runs import JournalEntry, RunRecord

__all__ = [
    "HistoryItem",
    "RunSummary",
    "Snapshot",
]


@attrs.frozen
class RunSummary:
    """One line of a store listing.

    ``fields`` holds, for each key the caller asked for (``Store.list(keys=...)``) that
    the state has at its top level with a string value, that value: the core asks for
    each skill's ``phase_key`` and ``next_action_key``, so a store never needs to know
    any skill.
    """

    id: str
    skill: str
    status: str
    updated: str
    version: int
    fields: Mapping[str, str] = attrs.field(factory=dict)

    @classmethod
    def of(cls, record: RunRecord, keys: Sequence[str] = ()) -> RunSummary:
        """The summary of ``record``, with the string values of ``keys`` (see above)."""
        state = record.state
        fields = {}
        for key in keys:
            value = state.get(key)
            if isinstance(value, str):
                fields[key] = value
        return cls(record.id, record.skill, record.status, record.updated, record.version, fields)


@attrs.frozen
class Snapshot:
    """A run as it was at one version: what a store keeps to shorten replays.

    ``state`` is Σ at ``version``; ``status`` and ``step`` the run's status and session
    step then. A store that keeps snapshots (the bundled ones do, every
    :data:`skillstate.store.SNAPSHOT_INTERVAL` versions) starts a replay from the
    nearest one instead of version 1; ``skillstate verify`` checks each against the
    replay of the journal.
    """

    version: int
    state: Mapping[str, Any]
    status: str = "active"
    step: int = 0

    @classmethod
    def of(cls, record: RunRecord) -> Snapshot:
        return cls(record.version, record.state, record.status, record.step)

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "status": self.status, "step": self.step}

    @classmethod
    def from_dict(cls, version: int, data: Any) -> Snapshot:
        """The snapshot of ``version`` kept as :meth:`to_dict`; ``ValueError`` if it is not one."""
        if not isinstance(data, Mapping) or not isinstance(data.get("state"), Mapping):
            raise ValueError("a snapshot must be an object with a 'state' object")
        status, step = data.get("status", "active"), data.get("step", 0)
        if not isinstance(status, str) or type(step) is not int:
            raise ValueError("a snapshot's status must be a string and its step an integer")
        return cls(version, data["state"], status, step)


@attrs.frozen
class HistoryItem:
    """One version of a run, as :meth:`Store.history <skillstate.store.Store.history>` yields it.

    ``entry`` is the journal entry that produced the version; ``state`` is Σ after it,
    ``status`` and ``step`` the run's status and session step after it.
    """

    entry: JournalEntry
    state: Mapping[str, Any]
    status: str = "active"
    step: int = 0

    @property
    def version(self) -> int:
        return self.entry.version

    def record_of(self, current: RunRecord) -> RunRecord:
        """``current`` (the run's record now) as it was at this version, as far as the
        journal says: state, version, status, step and update time. The other fields
        (spec, environment, observation, meta) are the current ones."""
        return attrs.evolve(
            current,
            state=self.state,
            version=self.version,
            status=self.status,
            step=self.step,
            updated=self.entry.ts or current.updated,
        )
