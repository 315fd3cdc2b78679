"""What the environments of benchmarks share: their episode options and their commands' records.

Every SkillExecBench environment takes the same episode options (the harness's
:meth:`~skillstate_plugins.bench.EpisodeConfig.environment_options` sends them):

``{"seed": 42, "horizon": 50, "noise": 0, "noise_seed": <seed>, "scenario": null,
"drift_at": <horizon // 2>}`` — every key optional. ``noise`` is a number of
telemetry lines per observation (0–100) or a level name (:data:`NOISE_LEVELS`:
``none``/``low``/``medium``/``high`` = 0/5/20/50, the paper's levels); ``scenario`` is
one of the environment's drift scenarios or an alias (``A``, ``B``...), or ``null``.

:func:`parse_episode_options` checks them with one-line errors naming the environment
and the option (:class:`~skillstate.plugin.InvalidInput`) and fills in the defaults
(:class:`EpisodeOptions`); an environment with options of its own names them in
``extra_keys`` and checks them itself. An environment's command is a
:class:`Command` (verb and arguments), what it did an :class:`Outcome`, and
:func:`raw_action` reads the action a runtime hands over (a string, or an object with a
string ``command``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from skillstate.plugin import InvalidInput

__all__ = [
    "EPISODE_OPTION_KEYS",
    "NOISE_LEVELS",
    "Command",
    "EpisodeOptions",
    "Outcome",
    "parse_episode_options",
    "raw_action",
    "scenario_name",
]

NOISE_LEVELS = {"none": 0, "low": 5, "medium": 20, "high": 50}
"""The paper's noise levels (Tables 2 and 9: 5, 20, 50 lines per turn; 0 the baseline)."""

EPISODE_OPTION_KEYS = ("seed", "horizon", "noise", "noise_seed", "scenario", "drift_at")

_MAX_SEED = 2**63 - 1


@attrs.frozen
class EpisodeOptions:
    """Checked episode options, defaults filled in (``noise_seed`` defaults to ``seed``,
    ``drift_at`` to ``horizon // 2``)."""

    seed: int = 42
    horizon: int = 50
    noise: int = 0
    noise_seed: int = 42
    scenario: str | None = None
    drift_at: int = 25


@attrs.frozen
class Command:
    """A parsed command: ``verb`` lowercased, ``args`` as given."""

    verb: str
    args: tuple[str, ...]


@attrs.frozen
class Outcome:
    """What a command did: ``status`` accepted/rejected/completed, the text, the command."""

    status: str
    text: str
    command: Command | None = None


def raw_action(action: Any) -> str:
    """The action string trimmed, or a JSON object's string ``command`` trimmed, else ``""``."""
    if isinstance(action, str):
        return action.strip()
    if isinstance(action, Mapping) and isinstance(action.get("command"), str):
        return str(action["command"]).strip()
    return ""


def scenario_name(
    name: str, scenarios: Sequence[str], aliases: Mapping[str, str] | None = None
) -> str | None:
    """``name``'s canonical scenario (case-insensitive; ``aliases`` lowercase), or ``None``."""
    key = name.strip().lower()
    if key in scenarios:
        return key
    return (aliases or {}).get(key)


def _integer(
    environment: str, options: Mapping[str, Any], key: str, default: int, low: int, high: int
) -> int:
    value = options.get(key, default)
    if type(value) is not int or not low <= value <= high:
        raise InvalidInput(
            f"{environment} option {key} must be an integer from {low} to {high}, got {value!r}"
        )
    return value


def parse_episode_options(
    options: Any,
    *,
    environment: str,
    max_horizon: int,
    scenarios: Sequence[str] = (),
    aliases: Mapping[str, str] | None = None,
    extra_keys: Sequence[str] = (),
) -> EpisodeOptions:
    """Check ``options`` (a JSON object) against :data:`EPISODE_OPTION_KEYS` and fill in the defaults.

    - ``environment`` — the name errors use (``repo option seed must be …``);
    - ``max_horizon`` — the longest episode;
    - ``scenarios`` / ``aliases`` — the drift scenarios' canonical names, and other
      names for them (lowercase: ``{"a": "audit"}``; one-letter ones are listed in the
      error);
    - ``extra_keys`` — options the environment checks itself (``mode``): not unknown here.
    """
    if not isinstance(options, Mapping):
        raise InvalidInput(
            f"{environment} environment options must be a JSON object, got {type(options).__name__}"
        )
    known = (*extra_keys, *EPISODE_OPTION_KEYS)
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise InvalidInput(
            f"unknown {environment} option {', '.join(unknown)}; known options: {', '.join(known)}"
        )
    seed = _integer(environment, options, "seed", 42, 0, _MAX_SEED)
    horizon = _integer(environment, options, "horizon", 50, 1, max_horizon)
    noise = options.get("noise", 0)
    if isinstance(noise, str) and noise.strip().lower() in NOISE_LEVELS:
        noise = NOISE_LEVELS[noise.strip().lower()]
    if type(noise) is not int or not 0 <= noise <= 100:
        raise InvalidInput(
            f"{environment} option noise must be a number of telemetry lines from 0 to 100 or "
            f"one of {', '.join(NOISE_LEVELS)}, got {options.get('noise')!r}"
        )
    scenario = options.get("scenario")
    if scenario is not None:
        name = scenario_name(scenario, scenarios, aliases) if isinstance(scenario, str) else None
        if name is None:
            letters = sorted(k.upper() for k in (aliases or {}) if len(k) == 1)
            also = f" (or {', '.join(letters)})" if letters else ""
            raise InvalidInput(
                f"{environment} option scenario must be one of {', '.join(scenarios)}{also} "
                f"or null, got {scenario!r}"
            )
        scenario = name
    return EpisodeOptions(
        seed=seed,
        horizon=horizon,
        noise=noise,
        noise_seed=_integer(environment, options, "noise_seed", seed, 0, _MAX_SEED),
        scenario=scenario,
        drift_at=_integer(environment, options, "drift_at", horizon // 2, 0, max_horizon),
    )
