"""Runs and their journal entries: what a store keeps and a transition writes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

__all__ = [
    "JournalEntry",
    "RunRecord",
]


@attrs.frozen
class RunRecord:
    """One run (a rig run, or a SKILL.state session): the unit a store keeps.

    ``version`` counts committed writes (1 after creation) and is the
    compare-and-swap token; ``step`` counts accepted session steps; ``status`` is
    ``active``, ``completed`` or ``closed``. ``spec`` is the immutable P of a
    session, ``environment`` the environment's ``{"name", "options", "state"}``,
    ``observation`` the latest observation issued, ``schema`` a session's own JSON
    Schema, ``meta`` free-form metadata (never reasoning).
    """

    id: str
    skill: str
    state: Mapping[str, Any]
    version: int = 1
    step: int = 0
    status: str = "active"
    created: str = ""
    updated: str = ""
    spec: str | None = None
    environment: Mapping[str, Any] | None = None
    observation: str | None = None
    schema: Mapping[str, Any] | None = None
    meta: Mapping[str, Any] = attrs.field(factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "skill": self.skill,
            "version": self.version,
            "step": self.step,
            "status": self.status,
            "created": self.created,
            "updated": self.updated,
            "state": self.state,
            "spec": self.spec,
            "environment": self.environment,
            "observation": self.observation,
            "schema": self.schema,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunRecord:
        if not isinstance(data, Mapping):
            raise ValueError(f"a run record must be a JSON object, got {type(data).__name__}")
        missing = [k for k in ("id", "skill", "state", "version") if k not in data]
        if missing:
            raise ValueError(f"a run record needs {', '.join(missing)}")
        return cls(
            id=data["id"],
            skill=data["skill"],
            state=data["state"],
            version=int(data["version"]),
            step=int(data.get("step", 0)),
            status=data.get("status", "active"),
            created=data.get("created", ""),
            updated=data.get("updated", ""),
            spec=data.get("spec"),
            environment=data.get("environment"),
            observation=data.get("observation"),
            schema=data.get("schema"),
            meta=data.get("meta") or {},
        )


@attrs.frozen
class JournalEntry:
    """One accepted write, as appended to a run's journal.

    Serialised with the keys ``ts``, ``step`` (the label), ``patch`` (as sent, nulls
    kept) first — rig-state's journal format — then ours: ``version``; ``base`` (the
    starting state of a creation); ``set`` (values the pipeline stamped after the
    merge, e.g. ``updatedAt``); ``action``; ``observation_sha256`` (the new observation's
    digest) and ``observation`` (its text, when at most
    :data:`~skillstate.checks.OBSERVATION_KEPT` UTF-8 bytes; older entries lack it); ``status`` and ``turn`` (session status and step after the write);
    ``origin`` (where a run or a version came from: ``{"op": "fork", "run": PARENT,
    "version": V}`` on a fork's first entry, ``{"op": "rewind", "version": V}`` on a
    rewind's entry, ``{"op": "rollback", "rejection": KIND, "action": ..., "problems":
    [...]}`` on a rolled-back session step's: what it attempted and why it was refused). Replaying entries in order rebuilds the state: see
    :func:`skillstate.journal.replay`. Reasoning text is never part of an entry.
    """

    ts: str
    step: str
    patch: Any
    version: int
    base: Mapping[str, Any] | None = None
    set: Mapping[str, Any] | None = None
    action: Any = None
    observation_sha256: str | None = None
    observation: str | None = None
    status: str | None = None
    turn: int | None = None
    origin: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ts": self.ts,
            "step": self.step,
            "patch": self.patch,
            "version": self.version,
        }
        if self.base is not None:
            out["base"] = self.base
        if self.set:
            out["set"] = self.set
        if self.action is not None:
            out["action"] = self.action
        if self.observation_sha256 is not None:
            out["observation_sha256"] = self.observation_sha256
        if self.observation is not None:
            out["observation"] = self.observation
        if self.status is not None:
            out["status"] = self.status
        if self.turn is not None:
            out["turn"] = self.turn
        if self.origin is not None:
            out["origin"] = self.origin
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JournalEntry:
        if not isinstance(data, Mapping) or "patch" not in data or "version" not in data:
            raise ValueError(
                "a journal entry must be an object with at least 'patch' and 'version'"
            )
        return cls(
            ts=data.get("ts", ""),
            step=data.get("step", ""),
            patch=data["patch"],
            version=int(data["version"]),
            base=data.get("base"),
            set=data.get("set"),
            action=data.get("action"),
            observation_sha256=data.get("observation_sha256"),
            observation=data.get("observation"),
            status=data.get("status"),
            turn=data.get("turn"),
            origin=data.get("origin"),
        )


def __getattr__(name: str) -> Any:
    # Replay is built on the first replay of a journal (skillstate.records.replays):
    # a read or a patch replays nothing, so it does not build that class.
    if name == "Replay":
        from skillstate.records.replays import Replay

        return Replay
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
