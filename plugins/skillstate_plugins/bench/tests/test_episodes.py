"""The episode options and command records every benchmark environment shares
(the author API, ``skillstate_plugins.bench``): both bundled environments check their
options through them."""

from __future__ import annotations

from typing import Any

import pytest
from skillstate_testing import make_host

from skillstate.plugin import InvalidInput

from .. import (
    Command,
    EpisodeConfig,
    EpisodeOptions,
    Outcome,
    parse_episode_options,
    raw_action,
    scenario_name,
)
from ..episodes import NOISE_LEVELS

SCENARIOS = ("flood", "fire")
ALIASES = {"a": "flood", "b": "fire", "deluge": "flood"}


def parse(options: Any, **extra: Any) -> EpisodeOptions:
    return parse_episode_options(
        options, environment="dam", max_horizon=500, scenarios=SCENARIOS, aliases=ALIASES, **extra
    )


def test_defaults_and_what_follows_from_the_seed_and_horizon() -> None:
    assert parse({}) == EpisodeOptions(42, 50, 0, 42, None, 25)
    found = parse({"seed": 7, "horizon": 10, "noise": "medium", "scenario": "B"})
    assert found == EpisodeOptions(7, 10, 20, 7, "fire", 5)
    assert parse({"scenario": " Deluge "}).scenario == "flood"
    assert NOISE_LEVELS == {"none": 0, "low": 5, "medium": 20, "high": 50}
    assert parse({"mode": "x"}, extra_keys=("mode",)) == EpisodeOptions()  # checked elsewhere


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ([1], "dam environment options must be a JSON object, got list"),
        ({"colour": 1, "mode": 2}, "unknown dam option colour, mode; known options: seed, horizon, "
         "noise, noise_seed, scenario, drift_at"),
        ({"seed": -1}, "dam option seed must be an integer from 0 to 9223372036854775807, got -1"),
        ({"horizon": 501}, "dam option horizon must be an integer from 1 to 500, got 501"),
        ({"horizon": True}, "dam option horizon must be an integer from 1 to 500, got True"),
        ({"noise": "loud"}, "dam option noise must be a number of telemetry lines from 0 to 100 or "
         "one of none, low, medium, high, got 'loud'"),
        ({"noise_seed": 1.5}, "dam option noise_seed must be an integer from 0 to"),
        ({"scenario": "meteor"}, "dam option scenario must be one of flood, fire (or A, B) or "
         "null, got 'meteor'"),
        ({"drift_at": -3}, "dam option drift_at must be an integer from 0 to 500, got -3"),
    ],
)  # fmt: skip
def test_every_bad_option_is_one_line_naming_it(options: Any, message: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        parse(options)
    assert str(raised.value).startswith(message)


def test_both_bundled_environments_check_their_options_through_it() -> None:
    host = make_host()
    try:
        for name, letters in (("warehouse", "A, B, C, D"), ("repo", "A, B, C")):
            factory = host.environment(name).factory
            extra = {"mode": "episode"} if name == "warehouse" else {}
            with pytest.raises(
                InvalidInput,
                match=rf"^{name} option scenario must be one of .* \(or {letters}\) or null",
            ):
                factory({**extra, "scenario": "meteor"}, None)
            with pytest.raises(
                InvalidInput, match=rf"^{name} option noise must be a number of telemetry lines"
            ):
                factory({**extra, "noise": 101}, None)
    finally:
        host.close()


def test_commands_and_outcomes() -> None:
    assert raw_action("  Wait ") == "Wait" and raw_action({"command": " Ship a b"}) == "Ship a b"
    assert raw_action({"command": 3}) == "" and raw_action(None) == ""
    outcome = Outcome("accepted", "done", Command("wait", ()))
    assert outcome.command == Command("wait", ()) and outcome.status == "accepted"
    assert scenario_name("FIRE", SCENARIOS) == "fire" and scenario_name("x", SCENARIOS) is None


def test_an_episode_config_sends_the_options_every_environment_takes() -> None:
    assert EpisodeConfig(horizon=10, seed=3).environment_options() == {
        "seed": 3, "horizon": 10, "noise": 0,
    }  # fmt: skip
    drifted = EpisodeConfig(noise=5, noise_seed=9, scenario="fire", drift_at=4)
    assert parse(drifted.environment_options()) == EpisodeOptions(42, 50, 5, 9, "fire", 4)
