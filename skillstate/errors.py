"""Exceptions. Every message names what was wrong and what would be accepted.

Each class says what *kind* of failure it is (:attr:`SkillstateError.kind`): ``usage``
when what the caller named or sent is wrong (a bad run id, an unknown run, skill,
store scheme or key, bad input), ``error`` when the request was fine but something
failed (the store, a plugin, the configuration files). The command lines turn the
kind into their exit code (``docs/cli.md``: 2 usage, 3 error).
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "EnvironmentNotFound",
    "InvalidInput",
    "InvalidRunId",
    "PluginConflictError",
    "PluginError",
    "RunExists",
    "RunNotFound",
    "SkillNotFound",
    "SkillstateError",
    "StoreError",
    "StoreNotFound",
    "VersionConflict",
    "VersionNotFound",
]


class SkillstateError(Exception):
    """Base class of every error skillstate raises on purpose."""

    kind: str = "error"
    """``usage`` (what the caller named or sent is wrong) or ``error`` (something failed);
    an instance may say otherwise (``StoreError("bad option 'x'", kind="usage")``)."""

    def __init__(self, *args: object, kind: str | None = None) -> None:
        super().__init__(*args)
        if kind is not None:
            self.kind = kind


class PluginError(SkillstateError):
    """A plugin could not be loaded, or misbehaved."""


class PluginConflictError(PluginError):
    """Two plugins registered the same name in one registry."""


class ConfigError(SkillstateError):
    """A configuration file or variable has an unknown key or a wrong type."""


class InvalidInput(SkillstateError):
    """Input that is not acceptable JSON (or not the expected shape)."""

    kind = "usage"


class InvalidRunId(SkillstateError):
    """A run (or session) id that could escape a path or a query."""

    kind = "usage"


class RunNotFound(SkillstateError):
    """No run with this id in the store."""

    kind = "usage"

    def __init__(self, run_id: str, message: str | None = None) -> None:
        self.run_id = run_id
        super().__init__(message or f"no run '{run_id}'")


class RunExists(SkillstateError):
    """``create`` on an id that is already taken."""

    kind = "usage"

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(f"run '{run_id}' already exists")


class VersionConflict(SkillstateError):
    """Compare-and-swap failed: the record changed since it was read."""

    def __init__(self, run_id: str, expected: int, actual: int | None) -> None:
        self.run_id = run_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"run '{run_id}' is at version {actual}, not the expected version {expected}"
        )


class StoreError(SkillstateError):
    """The store could not read or write (disk full, read-only, connection lost...)."""


class StoreNotFound(SkillstateError):
    """A store URL whose scheme no plugin provides."""

    kind = "usage"


class SkillNotFound(SkillstateError):
    """A skill name that no plugin registered."""

    kind = "usage"


class EnvironmentNotFound(SkillstateError):
    """An environment name that no plugin registered."""

    kind = "usage"


class VersionNotFound(SkillstateError):
    """A version a run does not have (versions are 1, the creation, to the current one)."""

    kind = "usage"

    def __init__(self, run_id: str, version: object, head: int) -> None:
        self.run_id = run_id
        self.version = version
        self.head = head
        super().__init__(
            f"run '{run_id}' has no version {version}: its versions are 1 to {head} "
            "(1 is the creation, each accepted write adds one)"
        )
