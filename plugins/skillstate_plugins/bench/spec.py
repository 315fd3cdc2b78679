"""The records a benchmark is made of: :class:`BenchmarkSpec`, :class:`EpisodeConfig`, :class:`EpisodeOutcome`.

A benchmark is an environment plus what the harness needs to run episodes of it: the
instructions P every runtime gets, Σ_0 and Σ's JSON Schema, the scripted policies
(an oracle at least), how to build the environment's options for one episode, how
to read the score out of the environment's final snapshot, and which observation
lines the extractive Memory summary keeps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import attrs

if TYPE_CHECKING:
    from skillstate.plugin import Host

    from .policies import Policy

__all__ = [
    "DEFAULT_WINDOW_CHARS",
    "RUNTIMES",
    "BenchmarkSpec",
    "Benchmarks",
    "EpisodeConfig",
    "EpisodeOutcome",
    "benchmarks",
    "uses_state",
]

RUNTIMES = ("skill-state", "react", "memory", "stateful", "window")
"""Every runtime an episode can run under; ``all`` on the command line is the paper's four."""

PAPER_RUNTIMES = ("skill-state", "react", "memory", "stateful")

DEFAULT_WINDOW_CHARS = 2600
"""The window runtime's default budget (characters): about the warehouse's SKILL.state prompt."""

_NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")


def uses_state(runtime: str) -> bool:
    """Whether the runtime keeps Σ (SKILL.state and Stateful)."""
    return runtime in ("skill-state", "stateful")


@attrs.frozen
class EpisodeConfig:
    """One episode: benchmark, runtime, horizon, seed, noise, drift scenario, retry and parse rules.

    ``retries`` — rollback-retries per event (a reply that cannot be used, a schema
    rollback); ``env_retries`` — environment rejections per event; ``strict_parse`` —
    no repairs (a reply the parser would have to repair is a failure of its kind);
    ``memory_summary`` — ``extractive`` (the benchmark's confirmation and alert lines)
    or ``model`` (written by the policy's model, when it can).
    """

    benchmark: str = ""  # run_episode sets it to the benchmark it runs
    runtime: str = "skill-state"
    horizon: int = 50
    seed: int = 42
    noise: int = 0
    noise_seed: int | None = None
    scenario: str | None = None
    drift_at: int | None = None
    retries: int = 2
    env_retries: int = 0
    window_chars: int = DEFAULT_WINDOW_CHARS
    strict_parse: bool = False
    memory_summary: str = "extractive"

    def settings(self) -> dict[str, Any]:
        """Every setting, as JSON (the results file's key together with the policy)."""
        return attrs.asdict(self)

    def environment_options(self) -> dict[str, Any]:
        """The episode options every benchmark environment takes (``parse_episode_options``).

        ``seed``, ``horizon``, ``noise`` and, when set, ``noise_seed``, ``scenario``,
        ``drift_at``: what a :class:`BenchmarkSpec` sends its environment unless its
        ``environment_options`` says otherwise (a benchmark adding an option of its own
        writes ``lambda config: {"mode": "episode", **config.environment_options()}``).
        """
        options: dict[str, Any] = {"seed": self.seed, "horizon": self.horizon, "noise": self.noise}
        for key in ("noise_seed", "scenario", "drift_at"):
            value = getattr(self, key)
            if value is not None:
                options[key] = value
        return options


@attrs.frozen
class EpisodeOutcome:
    """What an environment's final snapshot says about an episode.

    ``successes`` / ``total`` — the score's numerator and denominator (warehouse:
    correct actions / actionable events; repo: merged feature requests / requested);
    ``events`` — one ``"1"``/``"0"`` per handled event (was the first accepted
    action the right one); ``drift`` — ``{"scenario", "at", "follow_up"}`` when the
    episode had a drift scenario (``follow_up`` is the event whose answer shows
    whether the agent recovered).
    """

    successes: int
    total: int
    events: str = ""
    drift: Mapping[str, Any] | None = None

    @property
    def score(self) -> float:
        return self.successes / self.total if self.total else 0.0


def _check_name(instance: Any, attribute: Any, value: str) -> None:
    if not isinstance(value, str) or not _NAME.match(value) or value in ("report", "plot"):
        raise ValueError(
            f"a benchmark name must be lowercase letters, digits and '-' (not report or plot), got {value!r}"
        )


@attrs.frozen
class BenchmarkSpec:
    """A benchmark ``skillstate bench NAME`` runs, registered by ``skillstate_register_benchmarks``.

    - ``name`` — what users type; ``help`` — one line for ``--help``;
    - ``environment`` — the registered environment episodes run in;
    - ``instructions`` — P, the same for every runtime;
    - ``initial_state`` / ``state_schema`` — Σ_0 and its JSON Schema (SKILL.state;
      the Stateful baseline gets Σ_0 without the schema, as its A.3 format is flat);
    - ``policies`` — scripted policies by name → factory (``oracle`` at least;
      ``wait`` and ``llm`` are the harness's own);
    - ``outcome`` — the final environment snapshot → :class:`EpisodeOutcome`;
    - ``environment_options`` — an :class:`EpisodeConfig` → the environment's
      options (default :meth:`EpisodeConfig.environment_options`);
    - ``summary_lines`` — the lines of an observation the extractive Memory summary
      keeps (default: none, so the summary stays empty);
    - ``scenarios`` — the drift scenario names (``--scenario`` lists them);
    - ``wait_action`` / ``skip_action`` — the environment's no-op, and the action
      with which the runner gives an event up (it must be accepted and score 0).
    """

    name: str = attrs.field(validator=_check_name)
    help: str
    environment: str
    instructions: str
    initial_state: Mapping[str, Any]
    state_schema: Mapping[str, Any] | None
    policies: Mapping[str, Callable[..., Policy]]
    outcome: Callable[[Mapping[str, Any]], EpisodeOutcome]
    environment_options: Callable[[EpisodeConfig], dict[str, Any]] = (
        EpisodeConfig.environment_options
    )
    summary_lines: Callable[[str], list[str]] = lambda observation: []
    scenarios: tuple[str, ...] = ()
    wait_action: str = "Wait"
    skip_action: str = "Skip"
    window_chars: int = DEFAULT_WINDOW_CHARS
    description: str = ""


class Benchmarks(Protocol):
    """A host's benchmark registry (what :func:`benchmarks` returns)."""

    def get(self, key: str) -> BenchmarkSpec | None: ...

    def owner(self, key: str) -> str | None: ...

    def names(self) -> list[str]: ...

    def __iter__(self) -> Iterator[BenchmarkSpec]: ...


def benchmarks(host: Host) -> Benchmarks:
    """``host``'s benchmarks: every plugin's ``skillstate_register_benchmarks``, by name.

    Built once per host by the core's registry rules (:meth:`Host.registry
    <skillstate.plugin.Host.registry>`): two plugins registering one name is a
    :class:`~skillstate.plugin.PluginError` naming both, ``report`` and ``plot`` are the
    ``bench`` command's own, and a plugin whose hook failed registers none of its
    benchmarks (a warning names it). ``get(name)``, ``owner(name)``, ``names()``, and
    iteration in registration order.
    """
    return host.registry(
        "skillstate_register_benchmarks",
        BenchmarkSpec,
        kind="benchmark",
        reserved=("report", "plot"),
    )
