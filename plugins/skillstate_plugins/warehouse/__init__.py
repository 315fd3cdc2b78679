"""The ``warehouse`` environment plugin: the SKILL.state paper's Warehouse benchmark.

One private 500-shelf world per session, restored from the session's snapshot on
every step. Options (``environment_options``) select the mode (``command``: the
reference runtime's executor; ``episode``: the paper's seeded benchmark), the seed,
horizon, telemetry noise level and seed, and a drift scenario — see
``docs/warehouse.md``. Modules: ``commands`` (grammar, rules, texts), ``generator``
(Algorithm 2), ``noise`` (App. C telemetry), ``drift`` (§5.4 scenarios), ``scoring``,
``options``, ``environment``; the benchmark ``skillstate bench warehouse`` runs is
:mod:`.benchmark` (on the bench plugin's harness, ``skillstate_plugins.bench``; the
warehouse's policies are in :mod:`.bench`), and the plugin brings the command ``skillstate demo``
(:mod:`.demo_cmd`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from skillstate.plugin import hookimpl

if TYPE_CHECKING:
    from skillstate.plugin import CommandSpec, EnvironmentSpec

__all__ = [
    "create_environment",
    "skillstate_register_benchmarks",
    "skillstate_register_commands",
    "skillstate_register_environments",
]


def create_environment(options: Mapping[str, Any], snapshot: Any) -> Any:
    """The factory: imports the environment only when a session uses it (CLI start-up)."""
    from .environment import WarehouseEnvironment

    return WarehouseEnvironment(options, snapshot)


@hookimpl
def skillstate_register_environments(register: Callable[[EnvironmentSpec], None]) -> None:
    from skillstate.plugin import EnvironmentSpec  # built when a session needs environments

    register(
        EnvironmentSpec(
            name="warehouse",
            factory=create_environment,
            description="500-shelf warehouse: the reference's commands, or the paper's seeded "
            "episodes with telemetry noise and drift scenarios",
        )
    )


@hookimpl(optionalhook=True)  # the bench plugin's hook: absent when bench is blocked
def skillstate_register_benchmarks(register: Callable[[Any], None]) -> None:
    from .benchmark import WAREHOUSE_BENCHMARK

    register(WAREHOUSE_BENCHMARK)


@hookimpl
def skillstate_register_commands(register: Callable[[CommandSpec], None]) -> None:
    from skillstate.plugin import CommandSpec

    register(
        CommandSpec.from_module(
            "demo",
            "a short warehouse episode, turn by turn, on the file store",
            f"{__name__}.demo_cmd",
        )
    )
