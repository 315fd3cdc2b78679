"""The :class:`~skillstate.runtime.Runtime` calls that create and list sessions, and the
limits of a shared server (``max_active_sessions``, ``session_idle_ttl``).

Before a session is created or forked, idle sessions are closed first (so they free
their slots), then the cap is checked; after the creation the count is checked again,
and a session that made the count exceed the cap (another thread or process created
one at the same time) is removed and refused (:mod:`skillstate.runtime.limits`). The
counts come from a listing at most ``listing_age`` (10) seconds old, and any refusal
from a fresh one: so a creation does not cost more in a bigger store, and sessions
another process created in those seconds may pass the cap by that many
(``listing_age=0``: exact across processes, a listing per creation).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skillstate.errors import PluginError, RunExists, RunNotFound, SkillstateError
from skillstate.jsondoc import check_document
from skillstate.pipeline import create_run
from skillstate.records import RunRecord
from skillstate.runtime import inputs, payloads as pl
from skillstate.runtime.base import ADHOC_SKILL, RuntimeBase
from skillstate.runtime.errors import (
    SessionExists,
    SessionInputError,
    SessionLimitReached,
    StateRejected,
)

if TYPE_CHECKING:
    from skillstate.runtime.limits import SessionIndex

__all__ = ["CreatingCalls"]

log = logging.getLogger("skillstate.runtime")


class CreatingCalls(RuntimeBase):
    """Sessions created (``initialize_*``), listed, capped and expired."""

    _index: SessionIndex | None = None

    def _sessions(self) -> SessionIndex:
        if self._index is None:
            from skillstate.runtime.limits import SessionIndex

            self._index = SessionIndex(self.store, max_age=self.listing_age)
        return self._index

    # -- limits ---------------------------------------------------------------------
    def expire_idle_sessions(self) -> list[str]:
        """Close every active session not written for ``session_idle_ttl``; their ids.

        A session written meanwhile is left alone (the close is a compare-and-swap); one
        that cannot be closed (its skill is gone and a rule refuses) never stops the others.
        """
        from skillstate.runtime.limits import expire_idle

        return expire_idle(self.host, self._sessions(), self.session_idle_ttl)

    def _make_room(self) -> None:
        """Close idle sessions, then refuse a new one beyond ``max_active_sessions``."""
        if self.session_idle_ttl > 0:
            self.expire_idle_sessions()
        if self.max_active_sessions > 0:
            index = self._sessions()  # a refusal is decided on a fresh listing only
            if index.count() >= self.max_active_sessions:
                if index.count(fresh=True) >= self.max_active_sessions:
                    raise SessionLimitReached(self.max_active_sessions)

    def _confirm_room(self, record: RunRecord | None) -> None:
        """After creating ``record``: if the active sessions now exceed the cap (a
        concurrent creation), remove it again and refuse."""
        if record is None:
            return
        session_id = record.id
        index = self._sessions()
        index.created(record)  # counted at once, from the record the creation returned
        if self.max_active_sessions > 0:
            if index.count() > self.max_active_sessions:
                if index.count(fresh=True) > self.max_active_sessions:
                    self.store.delete(session_id, expected_version=1)
                    raise SessionLimitReached(self.max_active_sessions)

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

        The id of a *closed* session may be used again, as in the TypeScript server:
        once every check passed, the closed run is moved, whole, to ``<id>.closed-<n>``
        (:mod:`skillstate.runtime.archive`), named in ``meta.previous_session_archived_as``.
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
        taken = self._status_of(session_id) if self.store.exists(session_id) else None
        if taken is not None and taken != "closed":
            raise SessionExists(session_id, taken)
        self._make_room()
        archived = None
        while True:
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
                break
            except RunExists:
                # every check passed: only now is a closed session moved aside
                moved = None if archived else self._archive(session_id)
                if moved is None:
                    raise SessionExists(session_id, self._status_of(session_id)) from None
                archived = moved
        if outcome.accepted:
            self._confirm_room(outcome.record)
        if not outcome.accepted or outcome.record is None:
            problems = outcome.problems
            inputs.raise_input_problem(problems, initial_state=seed)
            schema_only = schema is not None and all(
                p.code in ("schema", "unknown-key") for p in problems
            )
            prefix = (
                "Initial state violates state_schema" if schema_only else "Initial state rejected"
            )
            raise StateRejected(f"{prefix}: {pl.reasons(problems)}", problems)
        log.debug("session %s initialized (environment %s)", session_id, env_spec.name)
        payload = pl.init_payload(outcome.record)
        if archived is not None:
            payload["meta"]["previous_session_archived_as"] = archived
        return payload

    def _archive(self, session_id: str) -> str | None:
        """Move the closed session ``session_id`` to ``<id>.closed-<n>``; its new id."""
        from skillstate.runtime.archive import archive_closed

        moved = archive_closed(self.host, self.store, session_id)
        if moved is not None:
            log.info("closed session %s archived as %s (its id is used again)", session_id, moved)
        return moved

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
        skill_store: Any = None,
    ) -> dict[str, Any]:
        """Create a session whose P is the body of the stored skill ``name``, frozen now.

        ``skill`` defaults to the skill's ``skillstate-skill`` frontmatter key,
        ``environment`` to ``skillstate-environment`` (else the default environment).
        The session's ``meta["skill_store"]`` records the spec's provenance (the skill's
        name, the sha256 of its SKILL.md, its source and path). ``skill_store`` defaults
        to the host's (:meth:`Host.skill_store`); any object with the contract's
        ``session_spec(name)`` will do (``docs/skills.md``, "The skill store contract").
        """
        store = skill_store if skill_store is not None else self.host.skill_store()
        spec = store.session_spec(name).to_dict()
        if spec.get("success") is not True:
            raise SessionInputError(str(spec.get("error") or f"skill '{name}' cannot be used"))
        return self.initialize_skill(
            session_id,
            spec.get("body"),  # checked as any caller's P
            initial_state,
            state_schema,
            environment or spec.get("environment") or None,
            skill if skill is not None else spec.get("skill_definition"),
            environment_options,
            provenance=spec.get("provenance"),
        )

    def list_sessions(
        self,
        include_closed: bool = False,
        *,
        after: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """The session index (``active_sessions``, ``sessions``), sorted by id; closed ones on request.

        Paged with ``limit`` (at most that many sessions, whose records alone are read)
        and ``after`` (the sessions whose id sorts after it: the last page's
        ``next_cursor``). A paged answer adds ``next_cursor``: the id to pass as
        ``after`` for the next page, ``None`` on the last one; ``active_sessions``
        then counts the sessions of the page.
        """
        if limit is not None and (type(limit) is not int or limit < 1):
            raise SessionInputError(f"limit must be a whole number of at least 1, got {limit!r}")
        if after is not None:
            after = inputs.check_session_id(after)
        if self.session_idle_ttl > 0:
            self.expire_idle_sessions()
        found: list[RunRecord] = []
        more = False
        for summary in self.store.list():
            if summary.status == "closed" and not include_closed:
                continue
            if after is not None and summary.id <= after:
                continue
            try:
                record = self.store.get(summary.id)
            except RunNotFound:  # deleted meanwhile
                continue
            if pl.is_session(record) and (include_closed or record.status != "closed"):
                if limit is not None and len(found) == limit:
                    more = True
                    break
                found.append(record)
        payload = pl.index_payload(found)
        if limit is not None:
            payload["next_cursor"] = found[-1].id if more else None
        return payload


def _build_env(name: str, make: Callable[[], Any]) -> Any:
    try:
        return make()
    except SkillstateError:
        raise
    except Exception as exc:
        raise PluginError(
            f"environment '{name}' could not be created: {type(exc).__name__}: {exc}"
        ) from None
