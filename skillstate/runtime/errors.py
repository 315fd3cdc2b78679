"""The session runtime's errors: typed, with messages that name what was wrong.

No message ever names a session other than the one the caller asked about, and no
message ever contains a reasoning trace.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillstate.errors import InvalidInput, InvalidRunId, RunExists, RunNotFound, SkillstateError
from skillstate.records import Problem

__all__ = [
    "InvalidSessionId",
    "SessionBusy",
    "SessionCorrupt",
    "SessionError",
    "SessionExists",
    "SessionInputError",
    "SessionLimitReached",
    "SessionNotActive",
    "SessionNotFound",
    "StaleStep",
    "StateRejected",
    "StepNotFound",
    "shown_id",
]


def shown_id(session_id: object, limit: int = 100) -> str:
    """A session id as it may appear in a message: :func:`~skillstate.display.excerpt` of it."""
    from skillstate.display import excerpt

    return excerpt(session_id if isinstance(session_id, str) else repr(session_id), limit)


class SessionError(SkillstateError):
    """Base class of the session runtime's own errors."""


class SessionInputError(SessionError, InvalidInput):
    """An argument of a runtime call has the wrong type, shape or size; nothing changed."""


class InvalidSessionId(SessionError, InvalidRunId):
    """A session id that does not follow the run-id rule."""

    def __init__(self, session_id: object) -> None:
        self.session_id = session_id
        super().__init__(
            f'session id "{shown_id(session_id)}" is not valid: use 1-80 characters from '
            "A-Z a-z 0-9 . _ -, starting with a letter or digit, without '..'"
        )


class SessionNotFound(SessionError, RunNotFound):
    """No session with this id (the message names only the id asked for)."""

    def __init__(self, session_id: str) -> None:
        super().__init__(
            session_id, f'Unknown session "{shown_id(session_id)}". Call initialize_skill first.'
        )


class SessionExists(SessionError, RunExists):
    """``initialize_skill`` with an id that is taken (closed sessions keep their id)."""

    def __init__(self, session_id: str, status: str = "active") -> None:
        self.run_id = session_id
        if status == "closed":
            text = (
                f'SKILL.state session "{shown_id(session_id)}" already exists (closed; closed '
                "sessions are kept for audit). Pick another session_id."
            )
        else:
            text = (
                f'SKILL.state session "{shown_id(session_id)}" already exists. Close it with '
                "close_session or pick another session_id."
            )
        SkillstateError.__init__(self, text)


class SessionNotActive(SessionError):
    """A step, inject or close on a session that is ``completed`` or ``closed``."""

    def __init__(self, session_id: str, status: str, what: str = "steps") -> None:
        self.session_id = session_id
        self.status = status
        super().__init__(
            f'session "{shown_id(session_id)}" is {status}; it accepts no more {what} '
            "(start a new session with initialize_skill)"
        )


class StateRejected(SessionError):
    """An initial state or an injected patch broke the session's rules; nothing changed."""

    def __init__(self, message: str, problems: Sequence[Problem] = ()) -> None:
        self.problems = tuple(problems)
        super().__init__(message)


class SessionCorrupt(SessionError):
    """The stored session is not what the runtime wrote (e.g. P no longer matches its hash)."""


class SessionBusy(SessionError):
    """Concurrent writers kept changing the session; the call gave up without changing it."""

    def __init__(self, session_id: str, attempts: int) -> None:
        self.session_id = session_id
        super().__init__(
            f'session "{shown_id(session_id)}" changed under {attempts} consecutive attempts '
            "(other writers are busy on it); nothing was changed — retry the call"
        )


class StaleStep(SessionError):
    """``expected_step`` is not the session's step, and the call is not a retry of the
    latest call made with one: nothing was applied."""

    def __init__(self, session_id: str, expected: int, actual: int, what: str) -> None:
        self.session_id = session_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f'session "{shown_id(session_id)}" is at step {actual}, not the expected_step '
            f"{expected}: this {what} was not applied (the session moved on without it). Read "
            "the session with get_session and decide again."
        )


class StepNotFound(SessionError, InvalidInput):
    """``at_step`` names a step the session never was at."""

    def __init__(self, session_id: str, step: int, current: int, first: int = 0) -> None:
        self.session_id = session_id
        self.step = step
        super().__init__(
            f'session "{shown_id(session_id)}" has no step {step}: its steps are {first} to '
            f"{current}"
        )


class SessionLimitReached(SessionError):
    """A new session beyond ``max_active_sessions``; nothing was created."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(
            f"Session limit reached ({limit} active sessions). Close idle sessions with "
            "close_session, or raise max_active_sessions (SKILLSTATE_MAX_ACTIVE_SESSIONS)."
        )
