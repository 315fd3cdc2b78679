"""The ``warehouse`` environment plugin: the SKILL.state paper's Warehouse benchmark.

One private 500-shelf world per session, restored from the session's snapshot on
every step. Options (``environment_options``) select the mode (``command``: the
reference runtime's executor; ``episode``: the paper's seeded benchmark), the seed,
horizon, telemetry noise level and seed, and a drift scenario — see
``docs/warehouse.md``. Modules: ``commands`` (grammar, rules, texts), ``generator``
(Algorithm 2), ``noise`` (App. C telemetry), ``drift`` (§5.4 scenarios), ``scoring``,
``options``, ``environment``.
"""

from __future__ import annotations

from collections.abc import Callable

from skillstate.markers import hookimpl
from skillstate.records import EnvironmentSpec
from skillstate_plugins.warehouse.environment import WarehouseEnvironment
from skillstate_plugins.warehouse.scoring import score_summary

__all__ = ["WarehouseEnvironment", "score_summary", "skillstate_register_environments"]


@hookimpl
def skillstate_register_environments(register: Callable[[EnvironmentSpec], None]) -> None:
    register(
        EnvironmentSpec(
            name="warehouse",
            factory=WarehouseEnvironment,
            description="500-shelf warehouse: the reference's commands, or the paper's seeded "
            "episodes with telemetry noise and drift scenarios",
        )
    )
