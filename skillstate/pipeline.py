"""The one transition pipeline every surface (CLI, MCP, runtime, Python API) goes through.

::

    create(skill, run_id, seed)          transition(run_id, change)
      seed is a JSON object                 load the record (state Σ, version)
      no immutable key in the seed          patch is a JSON object, no immutable key,
      candidate = initial ⊕ seed            not leaving a terminal phase (unless force)
                                            candidate = Σ ⊕ patch, stamp updated
      validate → budgets → guards (guards only when there are no shape problems)
      problems? → Rejected, nothing written anywhere
      action? → the environment runs it on a copy of its state; rejected → Rejected
      store.create / store.commit (compare-and-swap on version; a conflict re-runs)
      after_commit observers → Accepted
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skillstate.changes import NO_ACTION, Change, Outcome, now_iso
from skillstate.checks import (
    digest,
    kept,
    merged,
    own,
    prechecks,
    replacement,
    restamped,
    run_action,
    text_problems,
)
from skillstate.display import excerpt
from skillstate.errors import VersionConflict
from skillstate.jsondoc import js_numbers
from skillstate.records import JournalEntry, Problem, RunRecord, SkillDefinition
from skillstate.store import Store, check_run_id

if TYPE_CHECKING:
    from skillstate.host import Host
    from skillstate.records import ActionResult

__all__ = ["ARCHIVED_AS", "NO_ACTION", "Change", "Outcome", "create_run", "now_iso", "transition"]

MAX_ATTEMPTS = 200
ARCHIVED_AS = "archived_as"
"""``meta`` key of a closed session's run being moved to its archive (the archive's id,
``skillstate.runtime.archive``): every transition of such a run is refused."""


def create_run(
    host: Host,
    store: Store,
    skill: SkillDefinition,
    run_id: str,
    seed: Any = None,
    *,
    spec: str | None = None,
    environment: Mapping[str, Any] | None = None,
    observation: str | None = None,
    schema: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
    label: str = "init",
    now: str | None = None,
    start: Mapping[str, Any] | None = None,
    restamp: bool = False,
    origin: Mapping[str, Any] | None = None,
    step: int = 0,
) -> Outcome:
    """Create a run: the initial state ⊕ ``seed``, checked like any transition.

    ``start`` replaces the skill's initial state: the state the run starts from, taken
    as it is — a ``null`` in it is a value, where in ``seed`` (a merge patch) it is a
    deletion. The SKILL.state runtime passes a session's ``initial_state`` this way,
    as the reference server keeps it.

    ``restamp`` makes ``start`` another run's state (a fork): the keys the pipeline
    stamps (the skill's run id, skill name, creation and update keys) get this run's
    values in place, and the immutable keys it holds are kept (they were set when
    that run was created). ``origin`` goes into the first journal entry (a fork's
    parent run and version); ``step`` is the session step the run starts at (a
    session forked at step k goes on from k).

    Raises :class:`~skillstate.errors.InvalidRunId` and
    :class:`~skillstate.errors.RunExists`; returns a rejected :class:`Outcome` (with
    ``record=None``) when the seed breaks a rule. Nothing is written on rejection.
    """
    check_run_id(run_id)
    seed = {} if seed is None else seed
    problems, seed = prechecks(skill, None, seed, False, "seed")
    if not problems and schema is not None:
        from skillstate.schema_dialect import state_schema_errors

        problems = [Problem("schema", m, "") for m in state_schema_errors(schema)]
    if not problems:
        problems = text_problems(
            step_label=label,
            skill_specification=spec,
            environment=None if environment is None else dict(environment),
            observation=observation,
            state_schema=None if schema is None else dict(schema),
            meta=None if meta is None else dict(meta),
        )
    stamp = now or now_iso()
    if start is None:
        base = skill.initial_state(run_id, stamp)
    elif not problems and restamp:
        problems, base = restamped(skill, run_id, start, stamp)
    elif not problems:
        problems, base = prechecks(skill, None, start, False, "initial state")
        if problems and problems[0].code == "patch":
            problems = [Problem("patch", "initial state: expected a JSON object", "")]
    if problems:
        return Outcome(False, None, tuple(problems))
    candidate, problems = merged(host, base, seed)
    if candidate is not None:
        problems = host.check(skill, None, candidate, schema)
    if problems or candidate is None:
        return Outcome(False, None, tuple(problems))
    record = RunRecord(
        id=run_id,
        skill=skill.name,
        state=candidate,
        version=1,
        step=step,
        status="active",
        created=stamp,
        updated=stamp,
        spec=spec,
        environment=own(environment),  # the run's own copies (see _prechecks)
        observation=observation,
        schema=own(schema),
        meta=own(dict(meta or {})),
    )
    entry = JournalEntry(
        ts=stamp,
        step=label,
        patch=seed,
        version=1,
        base=base,
        observation_sha256=digest(observation),
        observation=kept(observation),
        status="active",
        turn=step,
        origin=own(origin) if origin is not None else None,
    )
    store.create(record, entry)
    host.after_commit(record, entry)
    return Outcome(True, record, (), None, entry)


_CHANGED = ("state", "version", "step", "status", "updated", "environment", "observation", "meta")
"""The record fields a transition sets; the others are the run's and never change."""


def transition(
    host: Host,
    store: Store,
    run_id: str,
    change: Change,
    *,
    skill: SkillDefinition | None = None,
    expected_version: int | None = None,
    now: str | None = None,
    current: RunRecord | None = None,
) -> Outcome:
    """Apply ``change`` to run ``run_id``: commit it atomically, or reject it changing nothing.

    With ``expected_version`` the caller asks for compare-and-swap against a version it
    read: a mismatch raises :class:`~skillstate.errors.VersionConflict`. Without it, a
    conflict with a concurrent writer re-runs the whole pipeline on the new record.
    ``current`` is the record the caller has just read, used instead of reading it
    again for the first attempt (the commit's compare-and-swap still checks that it
    is the stored version); later attempts read the store.
    """
    check_run_id(run_id)
    if current is not None and current.id != run_id:
        raise ValueError(f"current is the record of run {current.id!r}, not {run_id!r}")
    attempts = 0
    while True:
        attempts += 1
        record = current if current is not None and attempts == 1 else store.get(run_id)
        if expected_version is not None and record.version != expected_version:
            raise VersionConflict(run_id, expected_version, record.version)
        run_skill = skill if skill is not None else host.skill(record.skill)
        outcome = _attempt(host, store, record, run_skill, change, now or now_iso(), attempts)
        if outcome is not None:
            return outcome
        if expected_version is not None:
            raise VersionConflict(run_id, expected_version, None)
        if attempts >= MAX_ATTEMPTS:
            raise VersionConflict(run_id, record.version, None)
        time.sleep(min(0.0005 * attempts, 0.02))


def _attempt(
    host: Host,
    store: Store,
    record: RunRecord,
    skill: SkillDefinition,
    change: Change,
    stamp: str,
    attempts: int,
) -> Outcome | None:
    """One run of the pipeline; ``None`` when the commit lost a version race."""
    archived = record.meta.get(ARCHIVED_AS)
    if archived is not None:
        problem = Problem(
            "status",
            f"run '{record.id}' is being moved to its archive '{excerpt(str(archived))}' (its id "
            "is used again); nothing more is written to it",
            "",
        )
        return Outcome(False, record, (problem,), attempts=attempts)
    if change.require_active and record.status != "active":
        problem = Problem(
            "status",
            f"run '{record.id}' is {record.status}; it accepts no more steps (start a new session)",
            "",
        )
        return Outcome(False, record, (problem,), attempts=attempts)
    problems = text_problems(
        step_label=change.label,
        action=change.action,
        observation=change.observation,
        # a callable meta is the runtime's own (a retry marker), built after the action
        meta=None if change.meta is None or callable(change.meta) else dict(change.meta),
    )
    if problems:
        return Outcome(False, record, tuple(problems), attempts=attempts)
    state = record.state
    stamped = None
    base = None
    if change.state is not None:
        if change.patch != {} or change.keep_state or change.action is not NO_ACTION:
            problem = Problem("patch", "state: expected no patch, no action and no keep_state", "")
            return Outcome(False, record, (problem,), attempts=attempts)
        problems, base = replacement(skill, state, change.state, change.force)
        if problems:
            return Outcome(False, record, tuple(problems), attempts=attempts)
        patch = {}
        candidate = base
        if skill.updated_key:
            stamped = {skill.updated_key: stamp}
            candidate = {**candidate, skill.updated_key: stamp}
        problems = host.check(skill, state, candidate, record.schema)
        if problems:
            return Outcome(False, record, tuple(problems), attempts=attempts)
    elif change.keep_state:
        if change.patch != {} or change.action is not NO_ACTION:
            problem = Problem("patch", "keep_state: expected an empty patch and no action", "")
            return Outcome(False, record, (problem,), attempts=attempts)
        candidate = dict(state)
        patch = change.patch
    else:
        problems, patch = prechecks(skill, state, change.patch, change.force, "patch")
        if problems:
            return Outcome(False, record, tuple(problems), attempts=attempts)
        result_state, problems = merged(host, state, patch)
        if result_state is None:
            return Outcome(False, record, tuple(problems), attempts=attempts)
        candidate = result_state
        if skill.updated_key:
            stamped = {skill.updated_key: stamp}
            candidate = {**candidate, skill.updated_key: stamp}  # the pipeline's own stamp
        problems = host.check(skill, state, candidate, record.schema)
        if problems:
            return Outcome(False, record, tuple(problems), attempts=attempts)

    result: ActionResult | None = None
    environment = record.environment
    observation = change.observation
    status = change.status or record.status
    if change.action is not NO_ACTION:
        result, snapshot = run_action(host, record, change.action, candidate)
        if result.status == "rejected":
            problem = Problem("action", result.observation, "action")
            return Outcome(False, record, (problem,), result, attempts=attempts)
        environment = {**(environment or {}), "state": js_numbers(snapshot)}
        observation = result.observation
        if result.status == "completed":
            status = "completed"

    step = record.step + 1 if change.advance_step else record.step
    meta = record.meta
    extra = change.meta(result) if callable(change.meta) else change.meta
    if extra:
        meta = {**record.meta, **own(extra)}
        for key, value in extra.items():
            if value is None:
                del meta[key]
    new = RunRecord(
        id=record.id,
        skill=record.skill,
        state=candidate,
        version=record.version + 1,
        step=step,
        status=status,
        created=record.created,
        updated=stamp,
        spec=record.spec,
        environment=environment,
        observation=observation if observation is not None else record.observation,
        schema=record.schema,
        meta=meta,
    )
    if type(record) is not RunRecord:  # a store's subclass keeps its own fields (evolve)
        import attrs

        new = attrs.evolve(record, **{f: getattr(new, f) for f in _CHANGED})
    entry = JournalEntry(
        ts=stamp,
        step=change.label,
        patch=patch,
        version=new.version,
        base=base,
        set=stamped,
        action=None if change.action is NO_ACTION else own(change.action),
        observation_sha256=digest(observation),
        observation=kept(observation),
        status=status if status != record.status else None,
        turn=step if step != record.step else None,
        origin=own(change.origin) if change.origin is not None else None,
    )
    try:
        store.commit(new, entry, expected_version=record.version)
    except VersionConflict:
        return None
    host.after_commit(new, entry)
    return Outcome(True, new, (), result, entry, attempts)
