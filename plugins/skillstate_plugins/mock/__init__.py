"""The ``mock`` environment plugin: the reference runtime's mock executor (see :mod:`.environment`).

Registering costs nothing: the environment is imported when a session first uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from skillstate.plugin import hookimpl

if TYPE_CHECKING:
    from skillstate.plugin import EnvironmentSpec

__all__ = ["create_environment", "skillstate_register_environments"]


def create_environment(options: Mapping[str, Any], snapshot: Any) -> Any:
    """The factory: a :class:`~.environment.MockEnvironment`."""
    from .environment import MockEnvironment

    return MockEnvironment(options, snapshot)


@hookimpl
def skillstate_register_environments(register: Callable[[EnvironmentSpec], None]) -> None:
    from skillstate.plugin import EnvironmentSpec  # built when a session needs environments

    register(
        EnvironmentSpec(
            name="mock",
            factory=create_environment,
            description="acknowledges every action (the reference runtime's mock executor)",
            default=True,  # the reference server's default environment
        )
    )
