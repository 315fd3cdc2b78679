"""The SKILL.state session runtime: durable (P, Σ, O) sessions on the transition pipeline.

A session is a run in the configured store. Each call reads the session's record,
checks it, and commits through :func:`skillstate.pipeline.transition` with
compare-and-swap on the version it read; a concurrent writer (another thread or
process) makes it start over from a fresh read, so every call is applied to
exactly one version of the session — per-session serialisation without locks,
independent sessions in parallel.

Step semantics (``execute_step``):

1. candidate = Σ ⊕ ΔΣ, checked (session JSON Schema, the named skill's schema,
   budgets, guards). Problems → rollback-retry: nothing executed, Σ, the step and
   the environment unchanged; the observation explains the problems.
2. The environment (restored from its snapshot) executes the action. ``rejected``
   → Σ and the environment roll back; the observation is the environment's.
3. Otherwise Σ ← candidate, the step advances, the environment's new snapshot is
   kept. ``completed`` finishes the session: later steps are refused.

A rolled-back step still records its observation O_{t+1} (and, for an environment
rejection, the last action) so the next turn's drift check, and a restarted
process, agree with what the client was told. The reasoning trace is only type
checked, then dropped: it is never stored, logged, journaled or returned.

History and retries: ``get_session(at_step=k)`` reads the session as it was,
``session_history`` pages through its versions, ``fork_session`` starts a new session
from a past step, ``rewind_session`` sets Σ back to a past step's as a new version
(:mod:`skillstate.runtime.travel`, :mod:`skillstate.runtime.timeline`); ``expected_step`` makes
``execute_step`` and ``inject_observation`` safe to retry (:mod:`skillstate.runtime.retries`).
Limits for a shared server: at most ``max_active_sessions`` active sessions, and
sessions idle for ``session_idle_ttl`` are closed (swept when a session is created or
forked, before the cap is checked, and when sessions are listed;
:mod:`skillstate.runtime.creating`, :mod:`skillstate.runtime.limits`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from skillstate.pipeline import Change
from skillstate.records import RunRecord
from skillstate.runtime import inputs, payloads as pl, retries
from skillstate.runtime.base import ADHOC_SKILL
from skillstate.runtime.errors import (
    SessionCorrupt,
    SessionInputError,
    SessionNotActive,
    StaleStep,
    StateRejected,
)
from skillstate.runtime.steps import Call, commit_change, raise_if_inactive, run_step
from skillstate.runtime.travel import TravelCalls

__all__ = ["ADHOC_SKILL", "Runtime"]

log = logging.getLogger("skillstate.runtime")


class Runtime(TravelCalls):
    """Durable SKILL.state sessions in a store (``store``: a URL; ``None`` → configured default).

    ``host`` — a :class:`~skillstate.host.Host` to use (default: one built from the
    project's configuration; register in-process plugins on it before the first
    call); ``limits`` — :class:`SessionLimits` on spec, observation, action sizes;
    ``max_active_sessions`` (0: no cap) and ``session_idle_ttl`` (seconds, 0: never)
    default to the configuration's keys of those names (256 and 24 hours).

    The calls are grouped by concern: creating and listing sessions and their limits
    (:mod:`skillstate.runtime.creating`), a session's past (:mod:`skillstate.runtime.travel`),
    and here the steps, observations, closing and prompts.
    """

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ------------------------------------------------------------------
    def execute_step(
        self,
        session_id: str,
        reasoning_trace: str,
        state_update: dict[str, Any],
        action: str | dict[str, Any],
        environment_observation: str | None = None,
        expected_step: int | None = None,
    ) -> dict[str, Any]:
        """One step t → t+1: validate Σ ⊕ ΔΣ, execute the action, commit both or neither.

        ``reasoning_trace`` is discarded unread. ``environment_observation`` (the
        observation the model consumed) is compared with the last one issued: a
        mismatch adds the drift warning; ``None`` skips the comparison.
        ``expected_step`` (the step the session is at before the call) makes the call
        safe to retry: a retry gets the recorded answer, a stale step raises
        :class:`~skillstate.runtime.errors.StaleStep` (:mod:`skillstate.runtime.retries`).
        """
        session_id = inputs.check_session_id(session_id)
        if not isinstance(reasoning_trace, str):
            raise SessionInputError(
                f"reasoning_trace must be a string (it is discarded unread), got a "
                f"{type(reasoning_trace).__name__}"
            )
        del reasoning_trace  # R_t is discarded here; nothing below can see it
        patch = inputs.check_object(state_update, "state_update")
        action = inputs.check_action(action, self.limits)
        if environment_observation is not None and not isinstance(environment_observation, str):
            raise SessionInputError(
                "environment_observation must be a string (the observation you consumed) or omitted"
            )
        expected = retries.check_expected_step(expected_step)
        call = None
        if expected is not None:
            digest = retries.request_digest(
                "execute_step",
                state_update=patch,
                action=action,
                environment_observation=environment_observation,
            )
            call = ("execute_step", expected, digest)

        def attempt() -> dict[str, Any]:
            record, found = self._read_for(session_id, call, "step")
            if found is not None:
                return retries.step_answer(self.store, record, found, self.host.merge)
            skill = self.host.run_skill(record)
            return run_step(
                self.host, self.store, record, skill, patch, action, environment_observation, call
            )

        return self._retry(session_id, attempt)

    def _read_for(
        self, session_id: str, call: Call | None, what: str
    ) -> tuple[RunRecord, Mapping[str, Any] | None]:
        """The session a ``what`` (step, observation) works on, and the marker it left
        if this call is a retry of it. One read, so the marker, the status and the step
        are of one version. :class:`SessionNotActive`, or :class:`StaleStep` for an
        ``expected_step`` the session has left."""
        record = self._load(session_id)
        if call is not None:
            found = retries.matches(record, *call)
            if found is not None:
                return record, found
        if record.status != "active":
            raise SessionNotActive(session_id, record.status, f"{what}s")
        if call is not None and record.step != call[1]:
            raise StaleStep(session_id, call[1], record.step, what)
        return record, None

    def inject_observation(
        self,
        session_id: str,
        observation: str,
        state_patch: dict[str, Any] | None = None,
        expected_step: int | None = None,
    ) -> dict[str, Any]:
        """Deliver an external observation (and optional validated patch); the step stays.

        A patch that breaks the session's rules raises :class:`StateRejected`, and
        neither Σ nor the latest observation changes. ``expected_step`` makes the call
        safe to retry, as for :meth:`execute_step`.
        """
        session_id = inputs.check_session_id(session_id)
        observation = inputs.check_text(observation, "observation", self.limits.observation_bytes)
        patch = None if state_patch is None else inputs.check_object(state_patch, "state_patch")
        expected = retries.check_expected_step(expected_step)
        call = None
        if expected is not None:
            digest = retries.request_digest(
                "inject_observation", observation=observation, state_patch=patch
            )
            call = ("inject_observation", expected, digest)

        def attempt() -> dict[str, Any] | None:
            meta = None
            record, found = self._read_for(session_id, call, "observation")
            if found is not None:
                return retries.inject_answer(self.store, record, found, self.host.merge)
            if call is not None:
                mark = retries.marker(
                    *call, record, step=record.step, observation=observation, status="active"
                )
                meta = {retries.MARKER: mark}
            change = Change(
                patch={} if patch is None else patch,
                keep_state=patch is None,
                label="inject_observation",
                observation=observation,
                require_active=True,
                meta=meta,
            )
            outcome = commit_change(
                self.host, self.store, record, self.host.run_skill(record), change
            )
            raise_if_inactive(session_id, outcome)
            inputs.raise_input_problem(outcome.problems, state_patch=patch)
            if not outcome.accepted or outcome.record is None:
                raise StateRejected(
                    f"state_patch rejected (state and observation unchanged): "
                    f"{pl.reasons(outcome.problems)}",
                    outcome.problems,
                )
            log.debug("session %s observation injected", session_id)
            return pl.inject_payload(outcome.record)

        return self._retry(session_id, attempt)

    def close_session(self, session_id: str) -> dict[str, Any]:
        """Mark the session ``closed`` (kept for audit; no further calls change it)."""
        session_id = inputs.check_session_id(session_id)

        def attempt() -> dict[str, Any] | None:
            record = self._load(session_id)
            if record.status == "closed":
                raise SessionNotActive(session_id, "closed", "calls")
            change = Change(keep_state=True, label="close_session", status="closed")
            outcome = commit_change(
                self.host, self.store, record, self.host.run_skill(record), change
            )
            if not outcome.accepted or outcome.record is None:
                raise SessionCorrupt(
                    f'session "{session_id}" could not be closed: {pl.reasons(outcome.problems)}'
                )
            log.debug("session %s closed at step %d", session_id, outcome.record.step)
            return pl.close_payload(outcome.record)

        return self._retry(session_id, attempt)

    # -- prompts --------------------------------------------------------------------
    def paper_prompt(self, session_id: str, *, compact: bool = True, literal: bool = False) -> str:
        """The A.4 SKILL.state prompt for the session's current (P, Σ, O)."""
        from skillstate.runtime.prompts import render_skill_state_prompt

        record = self._load(inputs.check_session_id(session_id))
        return render_skill_state_prompt(
            pl.spec_value(record),
            record.state,
            record.observation or "",
            compact=compact,
            literal=literal,
        )

    def turn_prompt(self, session_id: str) -> str:
        """The tool-calling prompt (MCP clients) for the session's current (P, Σ, O)."""
        from skillstate.runtime.prompts import render_tool_prompt

        record = self._load(inputs.check_session_id(session_id))
        return render_tool_prompt(
            record.id,
            pl.spec_value(record),
            record.state,
            record.step,
            record.status,
            record.observation,
        )
