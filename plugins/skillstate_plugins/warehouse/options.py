"""The warehouse's environment options, checked with clear errors.

``{"mode": "command" | "episode", "seed": 42, "horizon": 50, "noise": 0,
"noise_seed": <seed>, "scenario": null, "drift_at": <horizon // 2>}`` — every key
optional; ``horizon``, ``scenario`` and ``drift_at`` only in episode mode. ``noise``
is a count of telemetry lines per observation (0–100) or a level name
(``none``/``low``/``medium``/``high`` = 0/5/20/50).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillstate.plugin import InvalidInput

from .drift import SCENARIOS, canonical_scenario
from .noise import LEVELS

__all__ = ["MAX_HORIZON", "WarehouseOptions", "parse_options"]

MAX_HORIZON = 100_000
_KEYS = ("mode", "seed", "horizon", "noise", "noise_seed", "scenario", "drift_at")
_EPISODE_ONLY = ("horizon", "scenario", "drift_at")


@attrs.frozen
class WarehouseOptions:
    mode: str = "command"
    seed: int = 42
    horizon: int = 50
    noise: int = 0
    noise_seed: int = 42
    scenario: str | None = None
    drift_at: int = 25


def _int(options: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = options.get(key, default)
    if type(value) is not int or not low <= value <= high:
        raise InvalidInput(
            f"warehouse option {key} must be an integer from {low} to {high}, got {value!r}"
        )
    return value


def _noise(value: Any) -> int:
    if isinstance(value, str) and value.strip().lower() in LEVELS:
        return LEVELS[value.strip().lower()]
    if type(value) is int and 0 <= value <= 100:
        return value
    raise InvalidInput(
        "warehouse option noise must be a number of telemetry lines from 0 to 100 or one of "
        f"{', '.join(LEVELS)}, got {value!r}"
    )


def parse_options(options: Any) -> WarehouseOptions:
    """Check ``options`` (a JSON object) and fill in the defaults."""
    if not isinstance(options, Mapping):
        raise InvalidInput(
            f"warehouse environment options must be a JSON object, got {type(options).__name__}"
        )
    unknown = sorted(k for k in options if k not in _KEYS)
    if unknown:
        raise InvalidInput(
            f"unknown warehouse option {', '.join(unknown)}; known options: {', '.join(_KEYS)}"
        )
    mode = options.get("mode", "command")
    if mode not in ("command", "episode"):
        raise InvalidInput(f"warehouse option mode must be command or episode, got {mode!r}")
    if mode == "command":
        extra = [k for k in _EPISODE_ONLY if k in options]
        if extra:
            raise InvalidInput(
                f"warehouse option {', '.join(extra)} applies only to mode episode "
                '(add "mode": "episode")'
            )
    seed = _int(options, "seed", 42, 0, 2**63 - 1)
    horizon = _int(options, "horizon", 50, 1, MAX_HORIZON)
    scenario = options.get("scenario")
    if scenario is not None:
        name = canonical_scenario(scenario) if isinstance(scenario, str) else None
        if name is None:
            raise InvalidInput(
                f"warehouse option scenario must be one of {', '.join(SCENARIOS)} "
                f"(or A, B, C, D) or null, got {scenario!r}"
            )
        scenario = name
    return WarehouseOptions(
        mode=mode,
        seed=seed,
        horizon=horizon,
        noise=_noise(options.get("noise", 0)),
        noise_seed=_int(options, "noise_seed", seed, 0, 2**63 - 1),
        scenario=scenario,
        drift_at=_int(options, "drift_at", horizon // 2, 0, MAX_HORIZON),
    )
