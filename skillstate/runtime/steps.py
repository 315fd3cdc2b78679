"""One ``execute_step`` attempt: validate Σ ⊕ ΔΣ, execute the action, commit or roll back.

See :mod:`skillstate.runtime.sessions` for the semantics. A rollback still records
its observation (and, for an environment rejection, the last action) with a
``keep_state`` write, compare-and-swapped on the same version as the attempt. Its
journal entry says why, in every store: ``origin = {"op": "rollback", "rejection":
KIND, "action": THE ATTEMPTED ACTION, "problems": [...]}`` (:func:`rejection_origin`).
"""

from __future__ import annotations

import logging
from typing import Any

from skillstate.host import Host
from skillstate.pipeline import Change, Outcome, transition
from skillstate.records import ActionResult, Problem, RunRecord, SkillDefinition
from skillstate.runtime import inputs, payloads as pl
from skillstate.runtime.errors import SessionCorrupt, SessionNotActive
from skillstate.runtime.retries import MARKER, marker
from skillstate.store import Store

__all__ = ["Call", "action_status", "raise_if_inactive", "rejection_origin", "run_step"]

Call = tuple[str, int, str]
"""A retry-safe call: its tool, its ``expected_step`` and its request's digest."""

log = logging.getLogger("skillstate.runtime")


def commit_change(
    host: Host, store: Store, record: RunRecord, skill: SkillDefinition, change: Change
) -> Outcome:
    """``change`` on the session ``record`` just read: a compare-and-swap against its
    version that starts from it instead of reading the session again."""
    return transition(
        host,
        store,
        record.id,
        change,
        skill=skill,
        expected_version=record.version,
        current=record,
    )


def run_step(
    host: Host,
    store: Store,
    record: RunRecord,
    skill: SkillDefinition,
    patch: dict[str, Any],
    action: Any,
    echoed: str | None,
    call: Call | None = None,
) -> dict[str, Any]:
    """One attempt of ``execute_step`` on ``record`` (the version just read).

    Raises :class:`~skillstate.errors.VersionConflict` when another writer got there
    first (the caller re-reads and tries again). ``call`` (a call with
    ``expected_step``) leaves its marker with the commit (:mod:`.retries`).
    """
    session_id = record.id
    drift = pl.DRIFT_WARNING if echoed is not None and echoed != record.observation else None
    budget = host.budget(skill)
    try:
        size = pl.json_size(patch)
    except (TypeError, ValueError, RecursionError):  # not JSON: the pipeline says why
        size = 0
    if size > budget.document_bytes:
        problem = Problem(
            "budget",
            f"state_update is {size} bytes, over the {budget.document_bytes}-byte state budget "
            "— send only the keys that change",
        )
        return _schema_rollback(host, store, record, skill, (problem,), drift, call, action)

    def meta(result: ActionResult | None) -> dict[str, Any]:
        out: dict[str, Any] = {"last_action": action}
        if call is not None:
            done = result is not None and result.status == "completed"
            out[MARKER] = marker(
                *call,
                record,
                step=record.step + 1,
                observation=None if result is None else result.observation,
                status="completed" if done else record.status,
                action_status=action_status(result),
                rolled_back=False,
                rejection=None,
                warning=drift,
            )
        return out

    change = Change(
        patch=patch,
        label="execute_step",
        action=action,
        advance_step=True,
        require_active=True,
        meta=meta,
    )
    outcome = commit_change(host, store, record, skill, change)
    if outcome.accepted and outcome.record is not None:
        return _accepted(outcome, outcome.record, drift)
    raise_if_inactive(session_id, outcome)
    inputs.raise_input_problem(outcome.problems, state_update=patch, action=action)
    if outcome.action is not None:
        return _env_rollback(host, store, record, skill, outcome, action, drift, call)
    return _schema_rollback(host, store, record, skill, outcome.problems, drift, call, action)


def rejection_origin(kind: str, action: Any, problems: tuple[Problem, ...]) -> dict[str, Any]:
    """The ``origin`` of a rollback's journal entry: what was attempted and why it was refused."""
    return {
        "op": "rollback",
        "rejection": kind,
        "action": action,
        "problems": [p.to_dict() for p in problems],
    }


def action_status(result: ActionResult | None) -> str:
    """``meta.action_status`` of an accepted step."""
    if result is None:
        return "ok"
    if result.status == "completed":
        return "completed"
    return str(result.details.get("action_status", "ok"))


def _accepted(outcome: Outcome, new: RunRecord, drift: str | None) -> dict[str, Any]:
    status = action_status(outcome.action)
    log.debug("session %s step %d accepted (%s)", new.id, new.step, status)
    return pl.step_payload(
        new,
        action_status=status,
        rolled_back=False,
        rejection=None,
        problems=(),
        warning=drift,
    )


def _record_rollback(
    host: Host,
    store: Store,
    record: RunRecord,
    skill: SkillDefinition,
    label: str,
    observation: str,
    meta: Any,
    origin: dict[str, Any],
) -> RunRecord:
    change = Change(
        keep_state=True,
        label=label,
        observation=observation,
        meta=meta,
        require_active=True,
        origin=origin,
    )
    outcome = commit_change(host, store, record, skill, change)
    raise_if_inactive(record.id, outcome)
    if not outcome.accepted or outcome.record is None:
        raise SessionCorrupt(
            f'session "{record.id}": could not record the rollback observation: '
            f"{pl.reasons(outcome.problems)}"
        )
    return outcome.record


def _schema_rollback(
    host: Host,
    store: Store,
    record: RunRecord,
    skill: SkillDefinition,
    problems: tuple[Problem, ...],
    drift: str | None,
    call: Call | None = None,
    action: Any = None,
) -> dict[str, Any]:
    observation = pl.schema_violation_observation(problems, record.step)
    warning = pl.join_warnings(drift, pl.schema_violation_warning(problems))
    meta = _rollback_marker(call, record, observation, "schema", problems, warning)
    origin = rejection_origin("schema", action, problems)
    new = _record_rollback(host, store, record, skill, "rollback:schema", observation, meta, origin)
    log.debug("session %s step rolled back (schema, %d problems)", record.id, len(problems))
    return pl.step_payload(
        new,
        action_status="failed",
        rolled_back=True,
        rejection="schema",
        problems=problems,
        warning=warning,
    )


def _rollback_marker(
    call: Call | None,
    record: RunRecord,
    observation: str,
    kind: str,
    problems: tuple[Problem, ...],
    warning: str | None,
) -> dict[str, Any] | None:
    if call is None:
        return None
    return {
        MARKER: marker(
            *call,
            record,
            step=record.step,
            observation=observation,
            status=record.status,
            action_status="failed",
            rolled_back=True,
            rejection=kind,
            problems=problems,
            warning=warning,
        )
    }


def _env_rollback(
    host: Host,
    store: Store,
    record: RunRecord,
    skill: SkillDefinition,
    outcome: Outcome,
    action: Any,
    drift: str | None,
    call: Call | None = None,
) -> dict[str, Any]:
    assert outcome.action is not None
    result = outcome.action
    kind = str(result.details.get("rejection", "environment"))
    warning = pl.join_warnings(drift, pl.ENV_REJECTED_WARNING)
    meta = {"last_action": action}
    meta.update(
        _rollback_marker(call, record, result.observation, kind, outcome.problems, warning) or {}
    )
    origin = rejection_origin(kind, action, outcome.problems)
    new = _record_rollback(
        host, store, record, skill, f"rollback:{kind}", result.observation, meta, origin
    )
    log.debug("session %s step rolled back (%s)", record.id, kind)
    return pl.step_payload(
        new,
        action_status="failed",
        rolled_back=True,
        rejection=kind,
        problems=outcome.problems,
        warning=warning,
    )


def raise_if_inactive(session_id: str, outcome: Outcome) -> None:
    if not outcome.accepted and any(p.code == "status" for p in outcome.problems):
        status = outcome.record.status if outcome.record is not None else "closed"
        raise SessionNotActive(session_id, status)
