"""The repo environment's options, checked with clear errors.

``{"seed": 42, "horizon": 50, "noise": 0, "noise_seed": <seed>, "scenario": null,
"drift_at": <horizon // 2>}`` — every key optional: the episode options every
benchmark environment takes (:func:`skillstate_plugins.bench.parse_episode_options`).
``noise`` is a number of telemetry lines per observation (0–100) or
``none``/``low``/``medium``/``high`` (0/5/20/50); ``scenario`` is ``force-push``,
``flaky-ci``, ``pr-closed`` (or ``A``, ``B``, ``C``).
"""

from __future__ import annotations

from typing import Any

from skillstate_plugins.bench import EpisodeOptions, parse_episode_options, scenario_name

from .generator import SCENARIOS

__all__ = ["MAX_HORIZON", "RepoOptions", "canonical_scenario", "parse_options"]

MAX_HORIZON = 10_000
_ALIASES = {"a": "force-push", "b": "flaky-ci", "c": "pr-closed", "flaky-ci-test": "flaky-ci"}

RepoOptions = EpisodeOptions
"""The repo environment's options are exactly the shared episode options."""


def canonical_scenario(name: str) -> str | None:
    """The scenario's canonical name, or ``None``."""
    return scenario_name(name, SCENARIOS, _ALIASES)


def parse_options(options: Any) -> RepoOptions:
    """Check ``options`` (a JSON object) and fill in the defaults."""
    return parse_episode_options(
        options, environment="repo", max_horizon=MAX_HORIZON, scenarios=SCENARIOS, aliases=_ALIASES
    )
