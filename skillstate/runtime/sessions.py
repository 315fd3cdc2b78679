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
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skillstate.errors import PluginError, RunExists, RunNotFound, SkillstateError, VersionConflict
from skillstate.host import Host
from skillstate.jsondoc import check_document
from skillstate.pipeline import Change, create_run
from skillstate.records import RunRecord, SkillDefinition
from skillstate.runtime import inputs
from skillstate.runtime import payloads as pl
from skillstate.runtime.errors import (
    SessionBusy,
    SessionCorrupt,
    SessionExists,
    SessionInputError,
    SessionNotActive,
    SessionNotFound,
    StateRejected,
)
from skillstate.runtime.inputs import SessionLimits
from skillstate.runtime.steps import commit_change, raise_if_inactive, run_step
from skillstate.store import Store

if TYPE_CHECKING:
    from skillstate.skills import SkillStore

__all__ = ["ADHOC_SKILL", "Runtime"]

log = logging.getLogger("skillstate.runtime")

ADHOC_SKILL = SkillDefinition(
    name="skill-state",
    description="a SKILL.state session that names no registered skill (its own JSON Schema only)",
)
"""The skill of a session that names none: no fields, no JSON Schema of its own.

Such a session's record has ``skill == "skill-state"`` and ``meta["adhoc_skill"]``
true; the runtime passes this definition to the pipeline explicitly, so a plugin
registering a skill of the same name never changes how these sessions validate.
"""

MAX_ATTEMPTS = 200


class Runtime:
    """Durable SKILL.state sessions in a store (``store``: a URL; ``None`` → configured default).

    ``host`` — a :class:`~skillstate.host.Host` to use (default: one built from the
    project's configuration; register in-process plugins on it before the first
    call); ``limits`` — :class:`SessionLimits` on spec, observation, action sizes.
    """

    def __init__(
        self,
        store: str | None = None,
        *,
        host: Host | None = None,
        limits: SessionLimits | None = None,
    ) -> None:
        self._owns_host = host is None
        self.host = host if host is not None else Host.from_config()
        self.limits = limits if limits is not None else SessionLimits()
        self.store: Store = self.host.open_store(store)

    def close(self) -> None:
        """Release the store (only when this runtime built its own host)."""
        if self._owns_host:
            self.host.close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ------------------------------------------------------------------
    def _load(self, session_id: str) -> RunRecord:
        try:
            record = self.store.get(session_id)
        except RunNotFound:
            raise SessionNotFound(session_id) from None
        if not pl.is_session(record):
            raise SessionNotFound(session_id)
        spec_hash = record.meta.get("spec_sha256")
        if record.spec is None or spec_hash != pl.spec_digest(record.spec):
            raise SessionCorrupt(
                f'session "{session_id}": the stored skill specification P no longer matches '
                "its hash; the store was changed outside skillstate (P is immutable)"
            )
        return record

    def _active(self, session_id: str, what: str) -> RunRecord:
        record = self._load(session_id)
        if record.status != "active":
            raise SessionNotActive(session_id, record.status, what)
        return record

    def _skill(self, record: RunRecord) -> SkillDefinition:
        if record.meta.get("adhoc_skill"):
            return ADHOC_SKILL
        return self.host.skill(record.skill)

    def get_session(self, session_id: str) -> dict[str, Any]:
        """The inspector view of one session (any status): P, Σ and metadata."""
        return pl.session_payload(self._load(inputs.check_session_id(session_id)))

    def list_sessions(self, include_closed: bool = False) -> dict[str, Any]:
        """The session index (``active_sessions``, ``sessions``), sorted by id; closed ones on request."""
        found: list[RunRecord] = []
        for summary in self.store.list():
            if summary.status == "closed" and not include_closed:
                continue
            try:
                record = self.store.get(summary.id)
            except RunNotFound:  # deleted meanwhile
                continue
            if pl.is_session(record) and (include_closed or record.status != "closed"):
                found.append(record)
        return pl.index_payload(found)

    # -- writing ------------------------------------------------------------------
    def _retry(
        self, session_id: str, attempt: Callable[[], dict[str, Any] | None]
    ) -> dict[str, Any]:
        """Run ``attempt`` until it is not beaten by a concurrent writer (it returns ``None`` then)."""
        for n in range(1, MAX_ATTEMPTS + 1):
            try:
                result = attempt()
            except VersionConflict:
                result = None
            if result is not None:
                return result
            time.sleep(min(0.0005 * n, 0.02))
        raise SessionBusy(session_id, MAX_ATTEMPTS)

    def initialize_skill(
        self,
        session_id: str,
        skill_specification: str | dict[str, Any],
        initial_state: dict[str, Any] | None = None,
        state_schema: dict[str, Any] | None = None,
        environment: str | None = None,
        skill: str | None = None,
        environment_options: dict[str, Any] | None = None,
        *,
        provenance: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Create a session: store P (immutable), Σ_0 = initial_state, a fresh environment.

        ``environment`` defaults to :meth:`Host.default_environment` (the configured
        ``default_environment``, else the one a plugin offers as default: the bundled
        ``mock``, the reference server's default).

        ``provenance`` (optional) is kept as ``meta["skill_store"]``: where P came from
        (see :meth:`initialize_from_skill_store`).
        """
        session_id = inputs.check_session_id(session_id)
        _, spec_text, spec_format = inputs.check_spec(skill_specification, self.limits)
        seed = {} if initial_state is None else inputs.check_object(initial_state, "initial_state")
        schema = inputs.check_schema(state_schema, self.limits)
        options = inputs.check_options(environment_options, self.limits)
        if environment is None:
            environment = self.host.default_environment()
        if not isinstance(environment, str) or not environment:
            raise SessionInputError(
                f"environment must be the name of a registered environment "
                f"({', '.join(self.host.environments.names()) or 'none'}), got {environment!r}"
            )
        env_spec = self.host.environment(environment)
        run_skill = ADHOC_SKILL if skill is None else self.host.skill(skill)
        env = _build_env(env_spec.name, lambda: env_spec.factory(options, None))
        snapshot = env.snapshot()
        if check_document(snapshot, "snapshot"):
            raise PluginError(f"environment '{environment}' returned a snapshot that is not JSON")
        observation = env.initial_observation() or pl.boot_observation(session_id)
        meta = {
            "kind": pl.SESSION_KIND,
            "adhoc_skill": skill is None,
            "spec_format": spec_format,
            "spec_sha256": pl.spec_digest(spec_text),
        }
        if provenance is not None:
            meta["skill_store"] = dict(provenance)
        try:
            outcome = create_run(
                self.host,
                self.store,
                run_skill,
                session_id,
                None if skill is None else seed,
                start=seed if skill is None else None,  # kept as given, nulls included
                spec=spec_text,
                environment={"name": env_spec.name, "options": options, "state": snapshot},
                observation=observation,
                schema=schema,
                meta=meta,
                label="initialize_skill",
            )
        except RunExists:
            raise SessionExists(session_id, self._status_of(session_id)) from None
        if not outcome.accepted or outcome.record is None:
            problems = outcome.problems
            schema_only = schema is not None and all(
                p.code in ("schema", "unknown-key") for p in problems
            )
            prefix = (
                "Initial state violates state_schema" if schema_only else "Initial state rejected"
            )
            raise StateRejected(f"{prefix}: {pl.reasons(problems)}", problems)
        log.debug("session %s initialized (environment %s)", session_id, env_spec.name)
        return pl.init_payload(outcome.record)

    def initialize_from_skill_store(
        self,
        session_id: str,
        name: str,
        initial_state: dict[str, Any] | None = None,
        state_schema: dict[str, Any] | None = None,
        environment: str | None = None,
        skill: str | None = None,
        environment_options: dict[str, Any] | None = None,
        *,
        skill_store: SkillStore | None = None,
    ) -> dict[str, Any]:
        """Create a session whose P is the body of the stored skill ``name``, frozen now.

        ``skill`` defaults to the skill's ``skillstate-skill`` frontmatter key,
        ``environment`` to ``skillstate-environment`` (else the default environment).
        The session's
        ``meta["skill_store"]`` records the skill's name, the sha256 of its SKILL.md,
        its source and path. ``skill_store`` defaults to the configured one.
        """
        from skillstate.skills import SkillError, SkillStore, session_spec

        store = skill_store if skill_store is not None else SkillStore.from_config(self.host.config)
        spec = session_spec(name, store)
        if isinstance(spec, SkillError):
            raise SessionInputError(spec.message)
        return self.initialize_skill(
            session_id,
            spec.body,
            initial_state,
            state_schema,
            environment or spec.environment or None,
            skill if skill is not None else spec.skill_definition,
            environment_options,
            provenance=spec.meta()["skill_store"],
        )

    def _status_of(self, session_id: str) -> str:
        try:
            return self.store.get(session_id).status
        except RunNotFound:
            return "active"

    def execute_step(
        self,
        session_id: str,
        reasoning_trace: str,
        state_update: dict[str, Any],
        action: str | dict[str, Any],
        environment_observation: str | None = None,
    ) -> dict[str, Any]:
        """One step t → t+1: validate Σ ⊕ ΔΣ, execute the action, commit both or neither.

        ``reasoning_trace`` is discarded unread. ``environment_observation`` (the
        observation the model consumed) is compared with the last one issued: a
        mismatch adds the drift warning; ``None`` skips the comparison.
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

        def attempt() -> dict[str, Any]:
            record = self._active(session_id, "steps")
            skill = self._skill(record)
            return run_step(
                self.host, self.store, record, skill, patch, action, environment_observation
            )

        return self._retry(session_id, attempt)

    def inject_observation(
        self, session_id: str, observation: str, state_patch: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Deliver an external observation (and optional validated patch); the step stays.

        A patch that breaks the session's rules raises :class:`StateRejected`, and
        neither Σ nor the latest observation changes.
        """
        session_id = inputs.check_session_id(session_id)
        observation = inputs.check_text(observation, "observation", self.limits.observation_bytes)
        patch = None if state_patch is None else inputs.check_object(state_patch, "state_patch")

        def attempt() -> dict[str, Any] | None:
            record = self._active(session_id, "observations")
            change = Change(
                patch={} if patch is None else patch,
                keep_state=patch is None,
                label="inject_observation",
                observation=observation,
                require_active=True,
            )
            outcome = commit_change(self.host, self.store, record, self._skill(record), change)
            raise_if_inactive(session_id, outcome)
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
            outcome = commit_change(self.host, self.store, record, self._skill(record), change)
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


def _build_env(name: str, make: Callable[[], Any]) -> Any:
    try:
        return make()
    except SkillstateError:
        raise
    except Exception as exc:
        raise PluginError(
            f"environment '{name}' could not be created: {type(exc).__name__}: {exc}"
        ) from None
