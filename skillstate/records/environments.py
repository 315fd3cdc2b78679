"""What an environment plugin registers: a named environment and its factory.

A module of its own: ``skillstate plugins`` builds the environment registry (to report
a name two plugins register), not the records of sessions and ``doctor``
(:mod:`skillstate.records.extensions`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from skillstate.environment import Environment

__all__ = ["EnvironmentSpec"]


@attrs.frozen
class EnvironmentSpec:
    """An environment, selected by name (``mock``, ``warehouse``...).

    ``factory(options, snapshot)`` builds a fresh environment: from ``options`` for a
    new session (``snapshot`` is ``None``), or restored from a previous
    :meth:`Environment.snapshot`. ``default`` offers it as the environment of sessions
    that name none, unless ``default_environment`` is configured (the bundled ``mock``
    does, as the reference server defaults to its mock); two plugins offering one is
    an error naming both.
    """

    name: str
    factory: Callable[[Mapping[str, Any], Any], Environment]
    description: str = ""
    default: bool = False

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"an environment name must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "name", self.name.strip())
