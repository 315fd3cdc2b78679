"""The warehouse's environment options, checked with clear errors.

``{"mode": "command" | "episode", "seed": 42, "horizon": 50, "noise": 0,
"noise_seed": <seed>, "scenario": null, "drift_at": <horizon // 2>}`` — every key
optional; ``horizon``, ``scenario`` and ``drift_at`` only in episode mode. ``noise``
is a count of telemetry lines per observation (0–100) or a level name
(``none``/``low``/``medium``/``high`` = 0/5/20/50). Everything but ``mode`` is the
episode options every benchmark environment takes
(:func:`skillstate_plugins.bench.parse_episode_options`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillstate.plugin import InvalidInput
from skillstate_plugins.bench import EpisodeOptions, parse_episode_options

from .drift import ALIASES, SCENARIOS

__all__ = ["MAX_HORIZON", "WarehouseOptions", "parse_options"]

MAX_HORIZON = 100_000
_EPISODE_ONLY = ("horizon", "scenario", "drift_at")


@attrs.frozen
class WarehouseOptions(EpisodeOptions):
    """The episode options, and the mode: ``command`` (the reference's executor) or ``episode``."""

    mode: str = "command"


def parse_options(options: Any) -> WarehouseOptions:
    """Check ``options`` (a JSON object) and fill in the defaults."""
    mode = options.get("mode", "command") if isinstance(options, Mapping) else "command"
    if mode not in ("command", "episode"):
        raise InvalidInput(f"warehouse option mode must be command or episode, got {mode!r}")
    episode = parse_episode_options(
        options,
        environment="warehouse",
        max_horizon=MAX_HORIZON,
        scenarios=SCENARIOS,
        aliases=ALIASES,
        extra_keys=("mode",),
    )
    if mode == "command":
        extra = [k for k in _EPISODE_ONLY if k in options]
        if extra:
            raise InvalidInput(
                f"warehouse option {', '.join(extra)} applies only to mode episode "
                '(add "mode": "episode")'
            )
    return WarehouseOptions(mode=mode, **attrs.asdict(episode))
