"""Run history for every surface: log rows, state diffs, forks and rewinds.

Everything reads the store through :meth:`Store.history <skillstate.store.Store.history>`
and :meth:`Store.state_at <skillstate.store.Store.state_at>`, and writes through the
pipeline, so every rule applies:

- a **fork** is :func:`~skillstate.pipeline.create_run` of a new run starting from
  Σ_V (``restamp``: the new run's id and timestamps), whose first journal entry has
  ``origin = {"op": "fork", "run": PARENT, "version": V}``;
- a **rewind** is a :func:`~skillstate.pipeline.transition` whose change replaces the
  state by Σ_V (``Change.state``): a new version, history never rewritten, guards and
  terminal phases as for any patch, ``origin = {"op": "rewind", "version": V}``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from skillstate.errors import VersionConflict, VersionNotFound
from skillstate.jsondoc import compact
from skillstate.records import HistoryItem, RunRecord

if TYPE_CHECKING:
    from skillstate.host import Host
    from skillstate.journal import Merge
    from skillstate.pipeline import Change, Outcome
    from skillstate.store import Store

__all__ = [
    "changed_keys",
    "describe_change",
    "fork_run",
    "log_rows",
    "rewind_change",
    "rewind_run",
    "rollback_kind",
    "state_changes",
]

MAX_ATTEMPTS = 50


def rollback_kind(label: str) -> str | None:
    """``schema`` for a session's ``rollback:schema`` entry; ``None`` for any other label."""
    if not label.startswith("rollback:"):
        return None
    return label.split(":", 1)[1] or "unknown"


def _same(a: Any, b: Any) -> bool:
    return a is b or compact(a) == compact(b)


def changed_keys(before: Mapping[str, Any] | None, item: HistoryItem) -> list[str]:
    """The top-level keys whose value the version changed, in the new state's order.

    Keys only the pipeline stamped (``entry.set``, e.g. ``updatedAt``) are left out; a
    creation (``before`` is ``None``) changed every key it has.
    """
    after = item.state
    if before is None:
        return list(after)
    stamped = set(item.entry.set or ()) - set(item.entry.patch or ())
    keys = [k for k in after if k not in before or not _same(before[k], after[k])]
    keys += [k for k in before if k not in after]
    return [k for k in keys if k not in stamped]


def describe_change(item: HistoryItem) -> str:
    """What a version was, beyond its patch: a fork, a rewind, a rollback (or ``""``)."""
    origin = item.entry.origin or {}
    if origin.get("op") == "fork":
        return f"forked from {origin.get('run')} at version {origin.get('version')}"
    if origin.get("op") == "rewind":
        return f"rewound to version {origin.get('version')}"
    kind = rollback_kind(item.entry.step)
    return f"rolled back ({kind})" if kind else ""


def log_rows(
    store: Store,
    run_id: str,
    *,
    since: int | None = None,
    limit: int | None = None,
    merge: Merge | None = None,
) -> list[dict[str, Any]]:
    """One row per version: after ``since`` (first ``limit`` of them), else the last ``limit``.

    Raises :class:`VersionNotFound` when ``since`` is past the run's current version.
    """
    head = store.get(run_id).version
    if since is not None and since > head:
        raise VersionNotFound(run_id, since, head)
    if since is not None:
        after = since
    elif limit is not None:
        after = max(0, head - limit)
    else:
        after = 0
    start = max(0, after - 1)  # one version more: what the first row changed
    count = None if limit is None else limit + (after - start)
    items = list(store.history(run_id, after=start, limit=count, merge=merge))
    before: Mapping[str, Any] | None = None
    if after > 0 and items and items[0].version == after:
        before = items.pop(0).state
    rows = []
    for item in items:
        entry = item.entry
        rows.append(
            {
                "version": item.version,
                "ts": entry.ts,
                "label": entry.step,
                "keys": changed_keys(before, item),
                "action": entry.action,
                "status": item.status,
                "step": item.step,
                "rollback": rollback_kind(entry.step),
                "origin": entry.origin,
                "observation_sha256": entry.observation_sha256,
                "note": describe_change(item),
            }
        )
        before = item.state
    return rows


def state_changes(before: Any, after: Any, path: str = "") -> Iterator[tuple[str, str, Any, Any]]:
    """``(op, dotted path, old, new)`` for each difference: ``+`` added, ``-`` removed,
    ``~`` changed. Objects are compared key by key; any other value whole."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in after:
            where = f"{path}.{key}" if path else str(key)
            if key not in before:
                yield ("+", where, None, after[key])
            else:
                yield from state_changes(before[key], after[key], where)
        for key in before:
            if key not in after:
                yield ("-", f"{path}.{key}" if path else str(key), before[key], None)
    elif not _same(before, after):
        yield ("~", path, before, after)


def fork_run(
    host: Host,
    store: Store,
    run_id: str,
    new_id: str,
    at: int | None = None,
    *,
    environment: Mapping[str, Any] | None = None,
    observation: str | None = None,
    meta: Mapping[str, Any] | None = None,
    label: str = "fork",
    step: int = 0,
) -> Outcome:
    """Create ``new_id`` from run ``run_id`` at version ``at`` (default: its current one).

    The new run has the parent's skill, spec, schema and metadata (``meta`` replaces
    it when given), and ``environment``/``observation`` when given (else the parent's
    current ones). Raises :class:`~skillstate.errors.RunExists` if ``new_id`` is taken,
    :class:`VersionNotFound` for a version the parent lacks. A fork breaking a rule
    (a guard that now refuses the state) is a rejected outcome, nothing written.
    """
    from skillstate.errors import RunExists
    from skillstate.pipeline import create_run
    from skillstate.store import check_run_id

    check_run_id(new_id)
    record = store.get(run_id)
    version = record.version if at is None else at
    item = store.state_at(run_id, version, merge=host.merge)
    if store.exists(new_id):
        raise RunExists(new_id)
    copied = dict(record.meta if meta is None else meta)
    copied.pop("last_call", None)  # a retry marker belongs to the parent's calls
    outcome = create_run(
        host,
        store,
        host.run_skill(record),
        new_id,
        None,
        start=item.state,
        restamp=True,
        spec=record.spec,
        environment=record.environment if environment is None else environment,
        observation=record.observation if observation is None else observation,
        schema=record.schema,
        meta=copied,
        label=label,
        origin={"op": "fork", "run": run_id, "version": version},
        step=step,
    )
    return outcome


def rewind_change(
    store: Store,
    record: RunRecord,
    to: int,
    *,
    force: bool = False,
    merge: Merge | None = None,
    label: str = "rewind",
    status: str | None = None,
    meta: Mapping[str, Any] | None = None,
) -> Change:
    """The write that rewinds ``record`` to version ``to``: its state replaced by Σ_``to``
    (replayed with ``merge``, the host's), ``origin = {"op": "rewind", "version": to}``.

    Raises :class:`VersionNotFound` for a version the run lacks.
    """
    from skillstate.pipeline import Change

    item = store.state_at(record.id, to, merge=merge)
    return Change(
        state=item.state,
        label=label,
        force=force,
        status=status,
        meta=meta,
        origin={"op": "rewind", "version": to},
    )


def rewind_run(host: Host, store: Store, run_id: str, to: int, *, force: bool = False) -> Outcome:
    """Append a version of ``run_id`` whose state is Σ_``to`` (checked like any write).

    Raises :class:`VersionNotFound` for a version the run lacks.
    """
    from skillstate.pipeline import transition

    for _ in range(MAX_ATTEMPTS):
        record = store.get(run_id)
        change = rewind_change(store, record, to, force=force, merge=host.merge)
        try:
            return transition(
                host,
                store,
                run_id,
                change,
                skill=host.run_skill(record),
                expected_version=record.version,
                current=record,
            )
        except VersionConflict:
            continue  # another writer: read the run again
    raise VersionConflict(run_id, record.version, None)
