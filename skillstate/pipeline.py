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
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from skillstate.errors import PluginError, VersionConflict
from skillstate.host import HookFailed, Host
from skillstate.jsondoc import check_document, js_numbers, unicode_problem
from skillstate.merge import copy_json
from skillstate.records import JournalEntry, Problem, RunRecord, SkillDefinition
from skillstate.store import Store, check_run_id

if TYPE_CHECKING:
    from skillstate.records import ActionResult

__all__ = ["NO_ACTION", "Change", "Outcome", "create_run", "now_iso", "transition"]

MAX_ATTEMPTS = 200


class _NoAction:
    def __repr__(self) -> str:
        return "NO_ACTION"


NO_ACTION: Any = _NoAction()
"""The ``action`` of a change that executes nothing (``None`` is a valid action value)."""


def now_iso() -> str:
    """UTC, millisecond precision, ``Z`` suffix: JavaScript's ``new Date().toISOString()``."""
    ms = time.time_ns() // 1_000_000  # truncated, as toISOString and isoformat do
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


@attrs.frozen
class Change:
    """What a transition asks for.

    ``patch`` — the sparse patch ΔΣ; ``label`` — the journal's step label;
    ``force`` — allow leaving a terminal phase; ``action`` — executed by the run's
    environment when not :data:`NO_ACTION`; ``observation`` — a new latest
    observation (an injected one; an action's observation takes precedence);
    ``advance_step`` — count this as a session step when accepted; ``status`` — a
    new run status (``closed``); ``require_active`` — refuse unless the run is
    ``active``; ``meta`` — keys merged into the record's ``meta`` when accepted (a
    ``None`` value removes the key); ``keep_state`` — leave the state exactly as it
    is (no merge, no stamp, no validation; the patch must be empty and no action
    may run), for writes that only record an observation, a status or metadata.
    """

    patch: Any = attrs.field(factory=dict)
    label: str = ""
    force: bool = False
    action: Any = NO_ACTION
    observation: str | None = None
    advance_step: bool = False
    status: str | None = None
    require_active: bool = False
    meta: Mapping[str, Any] | Callable[[ActionResult | None], Mapping[str, Any] | None] | None = (
        attrs.field(default=None, eq=False)
    )
    keep_state: bool = False
    state: Mapping[str, Any] | None = None
    origin: Mapping[str, Any] | None = None


@attrs.frozen
class Outcome:
    """The result of a transition or a creation.

    ``accepted`` — whether it was committed; ``record`` — the new record when
    accepted, the unchanged one when rejected (``None`` for a rejected creation);
    ``problems`` — why it was rejected; ``action`` — the environment's answer, if an
    action ran; ``entry`` — the journal entry written; ``attempts`` — how many times
    the pipeline ran (more than 1 after version conflicts).
    """

    accepted: bool
    record: RunRecord | None
    problems: tuple[Problem, ...] = ()
    action: ActionResult | None = None
    entry: JournalEntry | None = None
    attempts: int = 1

    @property
    def rolled_back(self) -> bool:
        """True when the change was rejected and nothing was written."""
        return not self.accepted


def _own(value: Any) -> Any:
    """A copy of a caller's JSON value, its numbers as JavaScript writes them (``1.0`` → ``1``).

    A store that keeps objects (memory) then holds what one that keeps text (file, SQLite,
    PostgreSQL) reads back, and the caller can change its own value afterwards.
    """
    return js_numbers(copy_json(value))


def _prechecks(
    skill: SkillDefinition, current: Mapping[str, Any] | None, patch: Any, force: bool, what: str
) -> tuple[list[Problem], Any]:
    """Problems of the patch itself, and the patch with JavaScript's numbers (see js_numbers)."""
    problems = check_document(patch, what)
    if problems:
        return problems, patch
    if type(patch) is not dict:
        return [Problem("patch", "patch: expected a JSON object", "")], patch
    for key in skill.immutable_keys:
        if key in patch:
            return [Problem("immutable", f"{key} is set at init and never patched", key)], patch
    patch = _own(patch)  # the journal's own: the caller may change its dict
    if current is not None and not force and skill.phases:
        key = skill.phase_key
        phase = current.get(key)
        if phase in skill.terminal_phases and key in patch and patch[key] != phase:
            message = f"run is at terminal {key} '{phase}'; start a new run rather than reopening it (--force overrides)"
            return [Problem("terminal", message, key)], patch
    return [], patch


def _text_problems(**values: Any) -> list[Problem]:
    """Problems of the values that travel with a patch (label, action, observation, meta...).

    They reach the journal and the record as they are, so they follow the rules of a
    patch: plain JSON, valid Unicode (``jsondoc``'s module docstring).
    """
    problems: list[Problem] = []
    for name, value in values.items():
        if value is None or value is NO_ACTION:
            continue
        what = name.replace("_", " ")
        if isinstance(value, str):
            message = unicode_problem(value, what)
            if message is not None:
                problems.append(Problem("input", message, ""))
        else:
            problems.extend(check_document(value, what))
    return problems


def _check_candidate(
    host: Host,
    skill: SkillDefinition,
    before: Mapping[str, Any] | None,
    candidate: Mapping[str, Any],
    schema: Mapping[str, Any] | None,
) -> list[Problem]:
    try:
        budget = host.budget(skill)  # asked once: validation and the size check share it
        problems = host.validate(skill, candidate, schema, budget)
        problems.extend(host.check_budget(skill, candidate, budget))
    except HookFailed as failed:  # a budget plugin failed: fail closed
        return [failed.problem]
    if not problems:
        problems = host.guards(skill, before, candidate)
    return problems


def _merged(
    host: Host, state: Mapping[str, Any], patch: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """``(Σ ⊕ patch, [])``, or ``(None, [problem])`` when the merge plugin failed."""
    try:
        return host.merge(state, patch), []
    except HookFailed as failed:
        return None, [failed.problem]


def _digest(text: str | None) -> str | None:
    if text is None:
        return None
    import hashlib  # lazily: most transitions carry no observation (CLI start-up time)

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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
    problems, seed = _prechecks(skill, None, seed, False, "seed")
    if not problems and schema is not None:
        from skillstate.schema import json_schema_errors

        problems = [Problem("schema", m, "") for m in json_schema_errors(schema)]
    if not problems:
        problems = _text_problems(
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
        problems, base = _restamped(skill, run_id, start, stamp)
    elif not problems:
        problems, base = _prechecks(skill, None, start, False, "initial state")
        if problems and problems[0].code == "patch":
            problems = [Problem("patch", "initial state: expected a JSON object", "")]
    if problems:
        return Outcome(False, None, tuple(problems))
    candidate, problems = _merged(host, base, seed)
    if candidate is not None:
        problems = _check_candidate(host, skill, None, candidate, schema)
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
        environment=_own(environment),  # the run's own copies (see _prechecks)
        observation=observation,
        schema=_own(schema),
        meta=_own(dict(meta or {})),
    )
    entry = JournalEntry(
        ts=stamp,
        step=label,
        patch=seed,
        version=1,
        base=base,
        observation_sha256=_digest(observation),
        status="active",
        turn=step,
        origin=_own(origin) if origin is not None else None,
    )
    store.create(record, entry)
    host.after_commit(record, entry)
    return Outcome(True, record, (), None, entry)


def _restamped(
    skill: SkillDefinition, run_id: str, start: Any, stamp: str
) -> tuple[list[Problem], dict[str, Any]]:
    """A fork's first state: ``start`` with this run's stamps, its immutable keys kept."""
    if type(start) is not dict:
        return [Problem("patch", "initial state: expected a JSON object", "")], {}
    values = (run_id, skill.name, stamp, stamp)
    keys = (skill.run_id_key, skill.skill_key, skill.created_key, skill.updated_key)
    stamps = {key: value for key, value in zip(keys, values, strict=True) if key}
    kept = set(stamps) | set(skill.immutable_keys)
    problems, checked = _prechecks(
        skill, None, {k: v for k, v in start.items() if k not in kept}, False, "initial state"
    )
    if problems:
        return problems, {}
    base = {
        key: stamps[key] if key in stamps else checked[key] if key in checked else _own(value)
        for key, value in start.items()
    }
    base.update({key: value for key, value in stamps.items() if key not in base})
    return [], base


def _replacement(
    skill: SkillDefinition, current: Mapping[str, Any], target: Any, force: bool
) -> tuple[list[Problem], Any]:
    """The problems of replacing ``current`` by the whole state ``target`` (a rewind)."""
    problems = check_document(target, "state")
    if problems:
        return problems, target
    if type(target) is not dict:
        return [Problem("patch", "state: expected a JSON object", "")], target
    for key in skill.immutable_keys:
        if (key in target) != (key in current) or target.get(key) != current.get(key):
            return [Problem("immutable", f"{key} is set at init and never patched", key)], target
    key = skill.phase_key
    phase = current.get(key)
    if not force and skill.phases and phase in skill.terminal_phases and target.get(key) != phase:
        message = f"run is at terminal {key} '{phase}'; start a new run rather than reopening it (--force overrides)"
        return [Problem("terminal", message, key)], target
    return [], _own(target)


def _run_action(
    host: Host, record: RunRecord, action: Any, candidate: Mapping[str, Any]
) -> tuple[ActionResult, Any]:
    from skillstate.records import ActionResult

    env_info = record.environment
    if not env_info or not isinstance(env_info.get("name"), str):
        raise PluginError(f"run '{record.id}' has no environment to execute an action in")
    spec = host.environment(env_info["name"])
    env = spec.factory(env_info.get("options") or {}, env_info.get("state"))
    try:
        result = env.execute(action, candidate)
    except Exception as exc:  # an environment that raises fails closed, like a guard
        message = f"Action execution error: {exc}"
        return ActionResult("rejected", message, {"rejection": "execution_error"}), None
    if not isinstance(result, ActionResult):
        raise PluginError(
            f"environment '{spec.name}' returned a {type(result).__name__} from execute, expected an ActionResult"
        )
    return result, env.snapshot()


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
    if change.require_active and record.status != "active":
        problem = Problem(
            "status",
            f"run '{record.id}' is {record.status}; it accepts no more steps (start a new session)",
            "",
        )
        return Outcome(False, record, (problem,), attempts=attempts)
    problems = _text_problems(
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
        problems, base = _replacement(skill, state, change.state, change.force)
        if problems:
            return Outcome(False, record, tuple(problems), attempts=attempts)
        patch = {}
        candidate = base
        if skill.updated_key:
            stamped = {skill.updated_key: stamp}
            candidate = {**candidate, skill.updated_key: stamp}
        problems = _check_candidate(host, skill, state, candidate, record.schema)
        if problems:
            return Outcome(False, record, tuple(problems), attempts=attempts)
    elif change.keep_state:
        if change.patch != {} or change.action is not NO_ACTION:
            problem = Problem("patch", "keep_state: expected an empty patch and no action", "")
            return Outcome(False, record, (problem,), attempts=attempts)
        candidate = dict(state)
        patch = change.patch
    else:
        problems, patch = _prechecks(skill, state, change.patch, change.force, "patch")
        if problems:
            return Outcome(False, record, tuple(problems), attempts=attempts)
        merged, problems = _merged(host, state, patch)
        if merged is None:
            return Outcome(False, record, tuple(problems), attempts=attempts)
        candidate = merged
        if skill.updated_key:
            stamped = {skill.updated_key: stamp}
            candidate = {**candidate, skill.updated_key: stamp}  # the pipeline's own stamp
        problems = _check_candidate(host, skill, state, candidate, record.schema)
        if problems:
            return Outcome(False, record, tuple(problems), attempts=attempts)

    result: ActionResult | None = None
    environment = record.environment
    observation = change.observation
    status = change.status or record.status
    if change.action is not NO_ACTION:
        result, snapshot = _run_action(host, record, change.action, candidate)
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
        meta = {**record.meta, **_own(extra)}
        for key, value in extra.items():
            if value is None:
                del meta[key]
    new = type(record)(  # every field named: cheaper than attrs.evolve's introspection
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
    entry = JournalEntry(
        ts=stamp,
        step=change.label,
        patch=patch,
        version=new.version,
        base=base,
        set=stamped,
        action=None if change.action is NO_ACTION else _own(change.action),
        observation_sha256=_digest(observation),
        status=status if status != record.status else None,
        turn=step if step != record.step else None,
        origin=_own(change.origin) if change.origin is not None else None,
    )
    try:
        store.commit(new, entry, expected_version=record.version)
    except VersionConflict:
        return None
    host.after_commit(new, entry)
    return Outcome(True, new, (), result, entry, attempts)
