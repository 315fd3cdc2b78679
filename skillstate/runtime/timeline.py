"""A session's past: the version of a step, the session at a step, its history, forks.

Steps and versions: every write adds a version; an accepted ``execute_step`` also
advances the step, a rollback or an injected observation does not. So step *k* spans
the versions from the one that made it to the last one before step *k + 1*; "the
session at step *k*" is the last of them (every rollback and injection of that step
included). Steps never go down as versions go up, so the version of a step is found
by bisection over :meth:`Store.state_at <skillstate.store.Store.state_at>`, which reads
at most ``SNAPSHOT_INTERVAL`` entries each time.

The environment at a past step is not in the journal (each observation is, as a
digest and, up to 16 KiB, its text): a fork at a past step rebuilds it by running the accepted actions again
on a fresh environment from the session's options, and checks each observation
against its recorded digest, so an environment that does not replay the same way is
refused rather than guessed. At the current step the stored snapshot is used.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import attrs

from skillstate.history import log_rows
from skillstate.records import RunRecord
from skillstate.runtime import payloads as pl
from skillstate.runtime.errors import SessionInputError, StepNotFound

if TYPE_CHECKING:
    from skillstate.host import Host
    from skillstate.journal import Merge
    from skillstate.pipeline import Outcome
    from skillstate.store import Store

__all__ = [
    "HISTORY_LIMIT",
    "MAX_HISTORY_LIMIT",
    "environment_at",
    "fork_at",
    "history_payload",
    "session_at",
    "step_versions",
]

HISTORY_LIMIT = 50
MAX_HISTORY_LIMIT = 500


def _step_of(store: Store, run_id: str, version: int, merge: Merge | None) -> int:
    return store.state_at(run_id, version, merge=merge).step


def step_versions(
    store: Store, record: RunRecord, step: int, merge: Merge | None = None
) -> tuple[int, int]:
    """The first and the last version at which the session was at ``step``.

    Raises :class:`StepNotFound` for a step it never was at (past its current step,
    or before the step a fork started at).
    """
    first_step = _step_of(store, record.id, 1, merge)
    if not first_step <= step <= record.step:
        raise StepNotFound(record.id, step, record.step, first_step)

    def last_at_most(wanted: int) -> int:  # the last version whose step <= wanted
        low, high = 1, record.version
        while low < high:
            middle = (low + high + 1) // 2
            if _step_of(store, record.id, middle, merge) <= wanted:
                low = middle
            else:
                high = middle - 1
        return low

    last = record.version if step == record.step else last_at_most(step)
    first = 1 if step == first_step else last_at_most(step - 1) + 1
    return first, last


def session_at(
    store: Store, record: RunRecord, step: int, merge: Merge | None = None
) -> dict[str, Any]:
    """The inspector view of the session as it was at ``step`` (``get_session`` ``at_step``).

    ``execution_state``, ``stepCount``, ``status``, ``version``, ``updatedAt`` and
    ``lastAction`` are those of that step, and ``lastObservation`` (with
    ``lastObservationSha256``) the latest observation as of it: ``None`` where its entry
    kept only the digest. ``environmentState`` is given only for the current step.
    """
    from skillstate.runtime.prompts import observation_at

    first, last = step_versions(store, record, step, merge)
    item = store.state_at(record.id, last, merge=merge)
    made = store.state_at(record.id, first, merge=merge).entry
    past = item.record_of(record)
    text, digest = observation_at(store, record, last)
    if last != record.version:
        meta = dict(record.meta)
        meta["last_action"] = made.action if step > 0 else None
        env = {**record.environment, "state": None} if record.environment else None
        past = attrs.evolve(past, observation=text, meta=meta, environment=env)
    payload = pl.session_payload(past)
    payload["metadata"]["lastObservationSha256"] = digest
    payload["metadata"]["atStep"] = step
    payload["metadata"]["currentStep"] = record.step
    return payload


def history_payload(
    store: Store,
    record: RunRecord,
    after: int | None,
    limit: int | None,
    merge: Merge | None = None,
) -> dict[str, Any]:
    """One page of a session's history: a row per version after ``after``, oldest first.

    Each row: version, step, time, label, the keys it changed, the action, the
    observation's digest, the status, the rollback kind, the origin (fork, rewind).
    Never any reasoning (no entry holds one). ``next_after`` is the ``after`` of the
    next page, ``None`` at the end.
    """
    count = HISTORY_LIMIT if limit is None else limit
    if not 1 <= count <= MAX_HISTORY_LIMIT:
        raise SessionInputError(f"limit must be 1 to {MAX_HISTORY_LIMIT}, got {count}")
    start = 0 if after is None else after
    if start > record.version:
        raise SessionInputError(
            f'session "{record.id}" is at version {record.version}; after={start} is past it'
        )
    rows = log_rows(store, record.id, since=start, limit=count, merge=merge)
    items = [
        {
            "version": row["version"],
            "step": row["step"],
            "ts": row["ts"],
            "label": row["label"],
            "keys": row["keys"],
            "action": row["action"],
            "observation_sha256": row["observation_sha256"],
            "status": row["status"],
            "rolled_back": row["rollback"],
            "origin": row["origin"],
        }
        for row in rows
    ]
    last = items[-1]["version"] if items else start
    return {
        "session_id": record.id,
        "version": record.version,
        "step": record.step,
        "after": start,
        "items": items,
        "next_after": last if last < record.version else None,
        "reasoning_retained": False,
    }


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def environment_at(
    host: Host, store: Store, record: RunRecord, version: int
) -> tuple[dict[str, Any] | None, str | None]:
    """The session's environment ``{name, options, state}`` and latest observation at ``version``.

    The current version gives the stored ones. An older one is rebuilt by running the
    accepted actions up to it on a fresh environment; every observation must match its
    recorded digest, else :class:`SessionInputError` (the environment does not replay).
    The observation is ``None`` when the last write up to ``version`` recorded another
    one (an injection, a rollback) than the action's, which only the digest keeps.
    """
    env_info = record.environment
    if version == record.version or not env_info:
        return (None if not env_info else dict(env_info)), record.observation
    name = str(env_info.get("name"))
    options = env_info.get("options") or {}
    spec = host.environment(name)
    first = store.journal_range(record.id, after=0, before=2)
    origin = first[0].origin if first else None
    if origin and origin.get("op") == "fork":  # began as a fork: from the parent's then
        parent = store.get(str(origin.get("run")))
        start, _ = environment_at(host, store, parent, int(origin.get("version", 0)))
        env = spec.factory(options, (start or {}).get("state"))
        observation: str | None = None
    else:
        env = spec.factory(options, None)
        observation = env.initial_observation() or None
    latest = None
    for item in store.history(record.id, before=version + 1, merge=host.merge):
        entry = item.entry
        if entry.observation_sha256 is not None:
            latest = entry.observation_sha256
        if entry.action is None or entry.turn is None:
            continue  # not an accepted step: the environment did not change
        result = env.execute(entry.action, item.state)
        if entry.observation_sha256 not in (None, _digest(result.observation)):
            raise SessionInputError(
                f"environment '{name}' does not replay session \"{record.id}\" the same way "
                f"(version {entry.version} observed something else): fork it at its current "
                "step instead"
            )
        observation = result.observation
    if observation is not None and latest is not None and _digest(observation) != latest:
        observation = None
    return {"name": name, "options": options, "state": env.snapshot()}, observation


def fork_at(
    host: Host, store: Store, record: RunRecord, new_id: str, version: int | None
) -> Outcome:
    """Fork the session ``record`` at ``version`` (default: now) into ``new_id``.

    The new session has P, the Σ and step of that version, and the environment and
    observation :func:`environment_at` gives (a fork note when the observation of
    that version is not known); its retry marker is not copied.
    """
    from skillstate.history import fork_run
    from skillstate.runtime.retries import MARKER

    version = record.version if version is None else version
    item = store.state_at(record.id, version, merge=host.merge)  # VersionNotFound first
    environment, observation = environment_at(host, store, record, version)
    meta = dict(record.meta)
    meta.pop(MARKER, None)
    if version != record.version:
        meta["last_action"] = None
    note = (
        f'Session "{new_id}" forked from "{record.id}" at step {item.step}. '
        "Awaiting the next execute_step call."
    )
    return fork_run(
        host,
        store,
        record.id,
        new_id,
        version,
        environment=environment,
        observation=observation or note,
        meta=meta,
        label="fork_session",
        step=item.step,
    )
