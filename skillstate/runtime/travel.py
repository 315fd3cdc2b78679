"""The :class:`~skillstate.runtime.Runtime` calls that read or branch a session's past:
``get_session(at_step=...)``, ``session_history``, ``fork_session`` and ``rewind_session``.

The work is in :mod:`skillstate.runtime.timeline` (steps and versions, environments
at a past step) and :mod:`skillstate.history` (forks and rewinds of any run); every
replay uses the host's merge (``host.merge``), as the pipeline does.
"""

from __future__ import annotations

from typing import Any

from skillstate.errors import RunExists
from skillstate.pipeline import Outcome
from skillstate.records import RunRecord
from skillstate.runtime import inputs, payloads as pl
from skillstate.runtime.creating import CreatingCalls
from skillstate.runtime.errors import (
    SessionExists,
    SessionInputError,
    SessionNotActive,
    StateRejected,
)

__all__ = ["TravelCalls"]


def _written(outcome: Outcome, what: str) -> RunRecord:
    """The record ``outcome`` wrote; :class:`StateRejected` naming ``what`` when rejected."""
    if not outcome.accepted or outcome.record is None:
        raise StateRejected(
            f"the {what} was rejected (nothing written): {pl.reasons(outcome.problems)}",
            outcome.problems,
        )
    return outcome.record


class TravelCalls(CreatingCalls):
    """A session as it was, its history, forks and rewinds."""

    def get_session(self, session_id: str, at_step: int | None = None) -> dict[str, Any]:
        """The inspector view of one session (any status): P, Σ and metadata.

        ``at_step`` gives the session as it was at that step (its last version then);
        see :func:`skillstate.runtime.timeline.session_at`.
        """
        record = self._load(inputs.check_session_id(session_id))
        if at_step is None:
            return pl.session_payload(record)
        from skillstate.runtime.timeline import session_at

        step = inputs.check_step(at_step, "at_step")
        return session_at(self.store, record, step, self.host.merge)

    def session_history(
        self, session_id: str, after: int | None = None, limit: int | None = None
    ) -> dict[str, Any]:
        """One page of the session's history (a row per version after ``after``, at most
        ``limit``, default 50, at most 500): keys changed, action, observation digest,
        rollbacks, never any reasoning. ``next_after`` pages on."""
        from skillstate.runtime.timeline import history_payload

        record = self._load(inputs.check_session_id(session_id))
        after = None if after is None else inputs.check_step(after, "after")
        limit = None if limit is None else inputs.check_step(limit, "limit", least=1)
        return history_payload(self.store, record, after, limit, self.host.merge)

    def fork_session(
        self, session_id: str, new_session_id: str, at_step: int | None = None
    ) -> dict[str, Any]:
        """A new session ``new_session_id`` from ``session_id`` as it was at ``at_step``
        (default: now): its P, Σ, environment and step; the original is untouched."""
        session_id = inputs.check_session_id(session_id)
        new_session_id = inputs.check_session_id(new_session_id)
        record = self._load(session_id)
        version = record.version
        if at_step is not None:
            from skillstate.runtime.timeline import step_versions

            step = inputs.check_step(at_step, "at_step")
            version = step_versions(self.store, record, step, self.host.merge)[1]
        outcome = self.fork_version(session_id, new_session_id, version)
        payload = pl.init_payload(_written(outcome, "fork"))
        payload["forked_from"] = {"session_id": session_id, "version": version}
        return payload

    def fork_version(self, session_id: str, new_session_id: str, version: int | None) -> Outcome:
        """The fork of session ``session_id`` at ``version`` (default: now), an
        :class:`~skillstate.pipeline.Outcome` (see :func:`skillstate.runtime.timeline.fork_at`)."""
        from skillstate.runtime.timeline import fork_at

        record = self._load(session_id)
        new_session_id = inputs.check_session_id(new_session_id)
        if version is not None:  # VersionNotFound before anything else
            self.store.state_at(session_id, version, merge=self.host.merge)
        if self.store.exists(new_session_id):
            raise SessionExists(new_session_id, self._status_of(new_session_id))
        self._make_room()
        try:
            outcome = fork_at(self.host, self.store, record, new_session_id, version)
        except RunExists:
            raise SessionExists(new_session_id, self._status_of(new_session_id)) from None
        if outcome.accepted:
            self._confirm_room(outcome.record)
        return outcome

    def rewind_session(self, session_id: str, to_step: int, force: bool = False) -> dict[str, Any]:
        """Append a version whose Σ is the session's state at step ``to_step``, as
        ``skillstate rewind`` does for a run: history is kept, the step count does not go
        back (steps never decrease), guards and schemas apply, and a session that is
        ``completed`` or ``closed`` is reopened only with ``force`` (as leaving a terminal
        phase needs ``--force``). The environment is not rewound (``fork_session`` at a
        past step rebuilds it). Raises :class:`StateRejected` when a rule refuses the
        state, nothing written.
        """
        from skillstate.history import rewind_change
        from skillstate.runtime.retries import MARKER
        from skillstate.runtime.steps import commit_change
        from skillstate.runtime.timeline import step_versions

        session_id = inputs.check_session_id(session_id)
        step = inputs.check_step(to_step, "to_step")
        if not isinstance(force, bool):
            raise SessionInputError(f"force must be true or false, got {force!r}"[:200])

        def attempt() -> dict[str, Any] | None:
            record = self._load(session_id)
            if record.status != "active" and not force:
                raise SessionNotActive(
                    session_id, record.status, "rewinds unless forced (force=true reopens it)"
                )
            version = step_versions(self.store, record, step, self.host.merge)[1]
            change = rewind_change(
                self.store,
                record,
                version,
                force=force,
                merge=self.host.merge,
                label="rewind_session",
                status="active" if record.status != "active" else None,
                meta={MARKER: None},
            )
            outcome = commit_change(
                self.host, self.store, record, self.host.run_skill(record), change
            )
            payload = pl.session_payload(_written(outcome, "rewind"))
            payload["rewound_to"] = {"step": step, "version": version}
            return payload

        return self._retry(session_id, attempt)
