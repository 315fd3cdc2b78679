"""The runtime's exact texts and the payload dicts it returns (the reference's key names).

Every payload is a fresh, plain JSON value: a caller may change it freely without
touching the session. Key order follows the reference runtime (insertion order;
the reference's JavaScript moves integer-like keys first, we do not).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from skillstate.jsondoc import compact
from skillstate.merge import copy_json
from skillstate.records import Problem, RunRecord

__all__ = [
    "DRIFT_WARNING",
    "ENV_REJECTED_WARNING",
    "SESSION_KIND",
    "boot_observation",
    "close_payload",
    "index_payload",
    "init_payload",
    "inject_payload",
    "is_session",
    "join_warnings",
    "json_size",
    "reasons",
    "schema_violation_observation",
    "schema_violation_warning",
    "session_payload",
    "session_summary",
    "spec_digest",
    "spec_preview",
    "spec_value",
    "step_payload",
]

SESSION_KIND = "skill-state-session"
"""``record.meta["kind"]`` of every run that is a SKILL.state session."""

DRIFT_WARNING = (
    "environment_observation does not match the latest observation the runtime issued — "
    "possible context drift or hallucinated observation. The authoritative observation is "
    "returned in prompt_payload.latest_observation."
)
ENV_REJECTED_WARNING = "Action was rejected by environment; state patch rolled back."


def boot_observation(session_id: str) -> str:
    return f'Session "{session_id}" initialized (step 0). Awaiting the first execute_step call.'


def reasons(problems: Sequence[Problem]) -> str:
    """The problems' messages joined with ``"; "``."""
    return "; ".join(p.message for p in problems)


def schema_violation_observation(problems: Sequence[Problem], step: int) -> str:
    return (
        f"[STATE SCHEMA VIOLATION] {reasons(problems)}. "
        f"State Σ_{step} remains unchanged (rollback-retry)."
    )


def schema_violation_warning(problems: Sequence[Problem]) -> str:
    return f"State schema violation: {reasons(problems)}"


def join_warnings(*parts: str | None) -> str | None:
    """The set warnings joined with ``"; "`` (``None`` when there is none)."""
    found = [p for p in parts if p]
    return "; ".join(found) if found else None


def spec_digest(spec_text: str) -> str:
    return hashlib.sha256(spec_text.encode("utf-8")).hexdigest()


def spec_value(record: RunRecord) -> Any:
    """P as the caller gave it: the string, or a fresh copy of the JSON object."""
    if record.meta.get("spec_format") == "json" and record.spec is not None:
        return json.loads(record.spec)
    return record.spec


def spec_preview(spec: Any) -> str:
    """Whitespace runs collapsed, the first 80 UTF-16 units; ``(structured JSON spec)`` for objects."""
    if not isinstance(spec, str):
        return "(structured JSON spec)"
    text = re.sub(r"\s+", " ", spec)
    units = text.encode("utf-16-le")
    if len(units) <= 160:
        return text
    return units[:160].decode("utf-16-le", errors="ignore")


def _prompt(record: RunRecord, spec: Any = None) -> dict[str, Any]:
    return {
        "skill_spec": spec if spec is not None else spec_value(record),
        "current_state": copy_json(dict(record.state)),
        "latest_observation": record.observation,
    }


def _base_meta(record: RunRecord) -> dict[str, Any]:
    return {"step": record.step, "status": record.status, "reasoning_retained": False}


def init_payload(record: RunRecord, spec: Any = None) -> dict[str, Any]:
    env = record.environment or {}
    return {
        "session_id": record.id,
        "environment": env.get("name"),
        "prompt_payload": _prompt(record, spec),
        "meta": _base_meta(record),
    }


def step_payload(
    record: RunRecord,
    *,
    action_status: str,
    rolled_back: bool,
    rejection: str | None,
    problems: Sequence[Problem],
    warning: str | None,
    observation: str | None = None,
) -> dict[str, Any]:
    """``execute_step``'s answer; ``rolled_back``, ``rejection`` and ``problems`` are ours."""
    prompt = _prompt(record)
    if observation is not None:
        prompt["latest_observation"] = observation
    meta = _base_meta(record)
    meta["action_status"] = action_status
    meta["rolled_back"] = rolled_back
    meta["rejection"] = rejection
    meta["problems"] = [p.to_dict() for p in problems]
    if warning:
        meta["warning"] = warning
    return {"session_id": record.id, "step": record.step, "prompt_payload": prompt, "meta": meta}


def inject_payload(record: RunRecord) -> dict[str, Any]:
    return {"session_id": record.id, "prompt_payload": _prompt(record), "meta": _base_meta(record)}


def close_payload(record: RunRecord) -> dict[str, Any]:
    return {
        "session_id": record.id,
        "closed": True,
        "final_step": record.step,
        "final_state": copy_json(dict(record.state)),
    }


def session_payload(record: RunRecord) -> dict[str, Any]:
    """The inspector view (the reference's session resource), plus our own metadata keys."""
    env = record.environment or {}
    return {
        "session_id": record.id,
        "skill_spec": spec_value(record),
        "execution_state": copy_json(dict(record.state)),
        "metadata": {
            "createdAt": record.created,
            "updatedAt": record.updated,
            "stepCount": record.step,
            "status": record.status,
            "reasoningRetained": False,
            "lastAction": copy_json(record.meta.get("last_action")),
            "lastObservation": record.observation,
            "environment": env.get("name"),
            "skill": None if record.meta.get("adhoc_skill") else record.skill,
            "version": record.version,
            "environmentOptions": copy_json(env.get("options") or {}),
            "environmentState": copy_json(env.get("state")),
            "stateSchema": copy_json(record.schema),
            "skillSource": copy_json(record.meta.get("skill_store")),
        },
    }


def session_summary(record: RunRecord) -> dict[str, Any]:
    env = record.environment or {}
    return {
        "session_id": record.id,
        "status": record.status,
        "step_count": record.step,
        "created_at": record.created,
        "updated_at": record.updated,
        "state_keys": list(record.state),
        "environment": env.get("name"),
        "spec_preview": spec_preview(spec_value(record)),
    }


def index_payload(records: Sequence[RunRecord]) -> dict[str, Any]:
    """The index of ``records``; ``active_sessions`` counts the active ones among them
    (all of them, unless closed sessions were asked for too)."""
    return {
        "active_sessions": sum(1 for record in records if record.status == "active"),
        "reasoning_retained": False,
        "sessions": [session_summary(r) for r in records],
    }


def json_size(value: Any) -> int:
    """UTF-8 bytes of the compact JSON of ``value``."""
    text = compact(value)
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def is_session(record: RunRecord) -> bool:
    meta = record.meta
    return isinstance(meta, Mapping) and meta.get("kind") == SESSION_KIND
