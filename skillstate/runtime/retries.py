"""Retry-safe calls: ``expected_step`` on ``execute_step`` and ``inject_observation``.

A call that names ``expected_step`` (the step the session is at before it: what
``get_session`` reports as ``stepCount`` and ``execute_step`` returns as ``step``)
leaves a marker in the session's ``meta["last_call"]``, written in the same commit
as the call's effect: the tool, the expected step, a SHA-256 of the request (the
state patch, the action and the observation echoed — never the reasoning), the
version written, and the answer's facts (step, status, action status, rollback,
problems, warning, observation). Then a call with an ``expected_step``:

1. that matches the marker (same tool, same step, same request) is a retry: it gets
   the recorded answer, rebuilt from the marker and Σ at the marked version, with
   ``meta.replayed`` true — never a second application;
2. else, on a session at another step, is stale: :class:`StaleStep`, nothing applied;
3. else runs as usual.

Two copies of one call racing each other are serialised by the commit's
compare-and-swap: the loser reads the session again and finds the marker (rule 1).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skillstate.jsondoc import compact
from skillstate.records import Problem, RunRecord
from skillstate.runtime import payloads as pl
from skillstate.runtime.errors import SessionInputError
from skillstate.store import Store

if TYPE_CHECKING:
    from skillstate.journal import Merge

__all__ = [
    "MARKER",
    "check_expected_step",
    "inject_answer",
    "marker",
    "matches",
    "problems_of",
    "request_digest",
    "step_answer",
]

MARKER = "last_call"


def check_expected_step(value: Any) -> int | None:
    """``value`` if it is a step (a whole number >= 0) or ``None``; else :class:`SessionInputError`."""
    if value is None:
        return None
    from skillstate.numbers import whole_number

    return whole_number(
        value,
        "expected_step",
        error=SessionInputError,
        hint=" (the step get_session reports as stepCount)",
    )


def request_digest(tool: str, **request: Any) -> str:
    """The SHA-256 of a call's request (the reasoning is never part of it).

    A request that is not JSON is refused, naming the argument (what the pipeline
    would say of it).
    """
    try:
        text = compact({"tool": tool, **request})
    except (TypeError, ValueError, RecursionError):
        from skillstate.records import Problem
        from skillstate.runtime.inputs import raise_input_problem

        raise_input_problem([Problem("input", "not JSON")], **request)
        raise
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def matches(record: RunRecord, tool: str, expected: int, digest: str) -> Mapping[str, Any] | None:
    """The session's marker if this call is a retry of the call that left it."""
    found = record.meta.get(MARKER)
    if (
        isinstance(found, Mapping)
        and found.get("tool") == tool
        and found.get("expected_step") == expected
        and found.get("request_sha256") == digest
        and isinstance(found.get("version"), int)
    ):
        return found
    return None


def marker(
    tool: str,
    expected: int,
    digest: str,
    record: RunRecord,
    *,
    step: int,
    observation: str | None,
    **answer: Any,
) -> dict[str, Any]:
    """The marker a call on ``record`` (the version it read) leaves with its commit."""
    problems = answer.pop("problems", ())
    return {
        "tool": tool,
        "expected_step": expected,
        "request_sha256": digest,
        "version": record.version + 1,
        "step": step,
        "observation": observation,
        "problems": [p.to_dict() for p in problems],
        **answer,
    }


def problems_of(found: Mapping[str, Any]) -> tuple[Problem, ...]:
    """The problems a marker recorded, as :class:`Problem` records."""
    out = []
    for item in found.get("problems") or ():
        if isinstance(item, Mapping):
            out.append(
                Problem(
                    str(item.get("code", "")),
                    str(item.get("message", "")),
                    str(item.get("path", "")),
                    str(item.get("source", "core")),
                )
            )
    return tuple(out)


def _as_left(
    store: Store, record: RunRecord, found: Mapping[str, Any], merge: Merge | None
) -> RunRecord:
    """The session as the marked call left it (Σ at the marked version)."""
    import attrs

    version = found["version"]
    state = record.state
    if version != record.version:
        state = store.state_at(record.id, version, merge=merge).state
    return attrs.evolve(
        record,
        state=state,
        step=int(found.get("step", record.step)),
        status=str(found.get("status", record.status)),
        observation=found.get("observation", record.observation),
    )


def step_answer(
    store: Store, record: RunRecord, found: Mapping[str, Any], merge: Merge | None = None
) -> dict[str, Any]:
    """The recorded answer of the ``execute_step`` that left ``found``, ``meta.replayed`` set."""
    payload = pl.step_payload(
        _as_left(store, record, found, merge),
        action_status=str(found.get("action_status", "ok")),
        rolled_back=bool(found.get("rolled_back")),
        rejection=found.get("rejection"),
        problems=problems_of(found),
        warning=found.get("warning"),
    )
    payload["meta"]["replayed"] = True
    return payload


def inject_answer(
    store: Store, record: RunRecord, found: Mapping[str, Any], merge: Merge | None = None
) -> dict[str, Any]:
    """The recorded answer of the ``inject_observation`` that left ``found``."""
    payload = pl.inject_payload(_as_left(store, record, found, merge))
    payload["meta"]["replayed"] = True
    return payload
