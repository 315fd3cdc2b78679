"""The environment contract: where a session's actions are executed.

An environment is created per session from a name and options (there is no
process-wide shared environment), executes one action at a time against its own
JSON-serialisable state, and can be snapshotted and restored, so that a rejected
step rolls it back simply by not keeping the new snapshot.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from skillstate.records import ActionResult

__all__ = ["Environment"]


class Environment(ABC):
    """One session's environment."""

    @abstractmethod
    def execute(self, action: Any, state: Mapping[str, Any]) -> ActionResult:
        """Execute ``action`` given the candidate state Σ ⊕ ΔΣ; return the observation and status.

        Change only this environment's own state. A ``rejected`` result means the
        caller discards this instance (and so every change it made).
        """

    @abstractmethod
    def snapshot(self) -> Any:
        """The environment's state as a JSON value, enough for the factory to restore it."""

    def initial_observation(self) -> str | None:
        """The observation a new session starts with (``None`` for none)."""
        return None
