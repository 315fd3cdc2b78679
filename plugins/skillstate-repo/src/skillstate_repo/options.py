"""The repo environment's options, checked with clear errors.

``{"seed": 42, "horizon": 50, "noise": 0, "noise_seed": <seed>, "scenario": null,
"drift_at": <horizon // 2>}`` — every key optional. ``noise`` is a number of telemetry
lines per observation (0–100) or ``none``/``low``/``medium``/``high`` (0/5/20/50);
``scenario`` is ``force-push``, ``flaky-ci``, ``pr-closed`` (or ``A``, ``B``, ``C``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillstate.plugin import InvalidInput

from .generator import SCENARIOS
from .noise import LEVELS

__all__ = ["MAX_HORIZON", "RepoOptions", "canonical_scenario", "parse_options"]

MAX_HORIZON = 10_000
_KEYS = ("seed", "horizon", "noise", "noise_seed", "scenario", "drift_at")
_ALIASES = {"a": "force-push", "b": "flaky-ci", "c": "pr-closed", "flaky-ci-test": "flaky-ci"}


@attrs.frozen
class RepoOptions:
    seed: int = 42
    horizon: int = 50
    noise: int = 0
    noise_seed: int = 42
    scenario: str | None = None
    drift_at: int = 25


def canonical_scenario(name: str) -> str | None:
    """The scenario's canonical name, or ``None``."""
    key = name.strip().lower()
    return key if key in SCENARIOS else _ALIASES.get(key)


def _int(options: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = options.get(key, default)
    if type(value) is not int or not low <= value <= high:
        raise InvalidInput(
            f"repo option {key} must be an integer from {low} to {high}, got {value!r}"
        )
    return value


def parse_options(options: Any) -> RepoOptions:
    """Check ``options`` (a JSON object) and fill in the defaults."""
    if not isinstance(options, Mapping):
        raise InvalidInput(
            f"repo environment options must be a JSON object, got {type(options).__name__}"
        )
    unknown = sorted(k for k in options if k not in _KEYS)
    if unknown:
        raise InvalidInput(
            f"unknown repo option {', '.join(unknown)}; known options: {', '.join(_KEYS)}"
        )
    seed = _int(options, "seed", 42, 0, 2**63 - 1)
    horizon = _int(options, "horizon", 50, 1, MAX_HORIZON)
    noise = options.get("noise", 0)
    if isinstance(noise, str) and noise.strip().lower() in LEVELS:
        noise = LEVELS[noise.strip().lower()]
    if type(noise) is not int or not 0 <= noise <= 100:
        raise InvalidInput(
            "repo option noise must be a number of telemetry lines from 0 to 100 or one of "
            f"{', '.join(LEVELS)}, got {options.get('noise')!r}"
        )
    scenario = options.get("scenario")
    if scenario is not None:
        name = canonical_scenario(scenario) if isinstance(scenario, str) else None
        if name is None:
            raise InvalidInput(
                f"repo option scenario must be one of {', '.join(SCENARIOS)} (or A, B, C) or null, "
                f"got {scenario!r}"
            )
        scenario = name
    return RepoOptions(
        seed=seed,
        horizon=horizon,
        noise=noise,
        noise_seed=_int(options, "noise_seed", seed, 0, 2**63 - 1),
        scenario=scenario,
        drift_at=_int(options, "drift_at", horizon // 2, 0, MAX_HORIZON),
    )
