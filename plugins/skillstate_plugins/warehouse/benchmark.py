"""The warehouse benchmark record: what ``skillstate bench warehouse`` runs.

The harness (runtimes, runner, LLM adapter, results, report, plot) is the bench plugin's
(its author API, :mod:`skillstate_plugins.bench`); this module says what is the warehouse's: P and Σ's
shape (:mod:`.bench.spec`), the scripted policies (:mod:`.bench.policies`), the
episode options (``mode: episode``), the score read from the environment's snapshot,
and the lines the extractive Memory summary keeps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate_plugins.bench import BenchmarkSpec, EpisodeConfig, EpisodeOutcome

from .bench import belief
from .bench.spec import INITIAL_STATE, STATE_SCHEMA, WAREHOUSE_INSTRUCTIONS
from .drift import SCENARIOS

__all__ = ["WAREHOUSE_BENCHMARK", "outcome", "summary_lines"]


def _options(config: EpisodeConfig) -> dict[str, Any]:
    return {"mode": "episode", **config.environment_options()}


def outcome(snapshot: Mapping[str, Any]) -> EpisodeOutcome:
    """Score = correct actions / actionable events (every event is actionable), per event marks."""
    results = str(snapshot.get("results", ""))
    plan = snapshot.get("drift_plan")
    return EpisodeOutcome(
        successes=results.count("1"),
        total=int(snapshot.get("horizon", len(results))),
        events=results,
        drift=plan if isinstance(plan, Mapping) else None,
    )


def summary_lines(observation: str) -> list[str]:
    """Confirmations, floor-staff notes and alerts: what the extractive Memory summary keeps."""
    return [
        line
        for line in belief.relevant_lines(observation)
        if line.startswith(("Success:", "ALERT", "Floor staff"))
    ]


def _oracle() -> Any:
    from .bench.policies import OraclePolicy

    return OraclePolicy()


def _stale() -> Any:
    from .bench.policies import OraclePolicy

    return OraclePolicy(use_alerts=False)


WAREHOUSE_BENCHMARK = BenchmarkSpec(
    name="warehouse",
    help="the SKILL.state paper's Warehouse benchmark",
    environment="warehouse",
    instructions=WAREHOUSE_INSTRUCTIONS,
    initial_state=INITIAL_STATE,
    state_schema=STATE_SCHEMA,
    policies={"oracle": _oracle, "stale": _stale},
    outcome=outcome,
    environment_options=_options,
    summary_lines=summary_lines,
    scenarios=SCENARIOS,
    description="the SKILL.state paper's Warehouse benchmark (SkillExecBench environment 1): "
    "Algorithm 2's seeded events, App. C noise, §5.4 drift",
)
