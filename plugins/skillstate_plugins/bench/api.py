"""For benchmark authors: the harness every ``skillstate bench NAME`` shares.

A benchmark plugin brings an environment (``skillstate_register_environments``) and a
:class:`BenchmarkSpec` (``skillstate_register_benchmarks``): the instructions P, Σ_0
and Σ's JSON Schema, its scripted policies (an oracle), and how to read the score
from the environment's final snapshot (:class:`EpisodeOutcome`). Everything else is
here, environment-independent, and imported only when used:

- the runtimes (SKILL.state A.4, the A.1–A.3 baselines, a sliding window:
  :data:`RUNTIMES`, :func:`render_prompt`), replies in their formats
  (:func:`parse_reply`, failure categories and their §5.7 :data:`KINDS`,
  :func:`dropped_keys` for premature overwrites), and one episode through the session
  runtime (:func:`run_episode` → :class:`EpisodeResult` of :class:`TurnRecord`\\ s);
- policies: the :class:`Policy` protocol (:class:`TurnView` in, :class:`Reply` out,
  :func:`format_reply`), :class:`WaitPolicy`, and :class:`ChatCompletionsPolicy` for
  any OpenAI-compatible endpoint — whose failures are :class:`EndpointError`, not the
  model's (:class:`PolicyError`);
- sweeps and their results: :func:`run_sweep` (parallel, stoppable),
  :class:`ResultsFile` / :func:`read_results` (JSONL, one line per episode,
  :func:`episode_key` for ``--resume``), :func:`summarize`, :func:`paired_differences`
  and :func:`estimate` / :func:`paired` (mean ± SD, 95% CI);
- App. C's telemetry block: :data:`TELEMETRY_HEADER`, :func:`telemetry_block` (what an
  environment appends) and :func:`relevant_lines` (an observation without it);
- what a benchmark's environment shares with the others: :func:`parse_episode_options`
  (seed, horizon, noise level, noise seed, scenario, drift point, checked with one-line
  errors → :class:`EpisodeOptions`; :data:`NOISE_LEVELS`, :func:`scenario_name`), and
  the records of its commands, :class:`Command` and :class:`Outcome`, with
  :func:`raw_action`.

A minimal benchmark::

    from skillstate.plugin import hookimpl
    from skillstate_plugins.bench.api import BenchmarkSpec, EpisodeOutcome

    @hookimpl
    def skillstate_register_benchmarks(register):
        register(BenchmarkSpec(
            name="tickets", help="triage a seeded ticket queue", environment="tickets",
            instructions=INSTRUCTIONS, initial_state={"open": {}}, state_schema=SCHEMA,
            policies={"oracle": TicketOracle},
            outcome=lambda snap: EpisodeOutcome(snap["solved"], snap["total"], snap["marks"]),
        ))

``skillstate bench tickets --runtime all --horizon 10,50 --seeds 5 --out r.jsonl``, then
``skillstate bench report r.jsonl`` and ``skillstate bench plot r.jsonl -o r.png``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_getattr

if TYPE_CHECKING:
    from skillstate_plugins.bench.episodes import (
        EPISODE_OPTION_KEYS,
        NOISE_LEVELS,
        Command,
        EpisodeOptions,
        Outcome,
        parse_episode_options,
        raw_action,
        scenario_name,
    )
    from skillstate_plugins.bench.llm import ChatCompletionsPolicy, public_endpoint
    from skillstate_plugins.bench.policies import (
        EndpointError,
        Interrupted,
        Policy,
        PolicyError,
        Reply,
        TurnView,
        WaitPolicy,
        format_reply,
    )
    from skillstate_plugins.bench.records import EpisodeResult, TurnRecord, estimate_tokens
    from skillstate_plugins.bench.replies import KINDS, ParsedReply, ParseFailure, dropped_keys, parse_reply
    from skillstate_plugins.bench.report import paired_differences, summarize
    from skillstate_plugins.bench.results import ResultsFile, episode_key, read_results
    from skillstate_plugins.bench.runner import run_episode
    from skillstate_plugins.bench.runtimes import RECENT, extractive_summary, render_prompt
    from skillstate_plugins.bench.spec import (
        DEFAULT_WINDOW_CHARS,
        RUNTIMES,
        BenchmarkSpec,
        EpisodeConfig,
        EpisodeOutcome,
        default_environment_options,
        uses_state,
    )
    from skillstate_plugins.bench.stats import estimate, paired
    from skillstate_plugins.bench.sweep import run_sweep
    from skillstate_plugins.bench.telemetry import TELEMETRY_HEADER, relevant_lines, telemetry_block

_TABLE = {
    "skillstate_plugins.bench.episodes": (
        "EPISODE_OPTION_KEYS", "NOISE_LEVELS", "Command", "EpisodeOptions", "Outcome",
        "parse_episode_options", "raw_action", "scenario_name",
    ),
    "skillstate_plugins.bench.llm": ("ChatCompletionsPolicy", "public_endpoint"),
    "skillstate_plugins.bench.policies": (
        "EndpointError", "Interrupted", "Policy", "PolicyError", "Reply", "TurnView", "WaitPolicy",
        "format_reply",
    ),
    "skillstate_plugins.bench.replies": ("KINDS", "ParseFailure", "ParsedReply", "dropped_keys", "parse_reply"),
    "skillstate_plugins.bench.report": ("paired_differences", "summarize"),
    "skillstate_plugins.bench.results": ("ResultsFile", "episode_key", "read_results"),
    "skillstate_plugins.bench.records": ("EpisodeResult", "TurnRecord", "estimate_tokens"),
    "skillstate_plugins.bench.runner": ("run_episode",),
    "skillstate_plugins.bench.runtimes": ("RECENT", "extractive_summary", "render_prompt"),
    "skillstate_plugins.bench.spec": (
        "DEFAULT_WINDOW_CHARS", "RUNTIMES", "BenchmarkSpec", "EpisodeConfig", "EpisodeOutcome",
        "default_environment_options", "uses_state",
    ),
    "skillstate_plugins.bench.stats": ("estimate", "paired"),
    "skillstate_plugins.bench.sweep": ("run_sweep",),
    "skillstate_plugins.bench.telemetry": ("TELEMETRY_HEADER", "relevant_lines", "telemetry_block"),
}  # fmt: skip

_LAZY = {name: module for module, names in _TABLE.items() for name in names}

__all__ = [
    "DEFAULT_WINDOW_CHARS",
    "EPISODE_OPTION_KEYS",
    "KINDS",
    "NOISE_LEVELS",
    "RECENT",
    "RUNTIMES",
    "TELEMETRY_HEADER",
    "BenchmarkSpec",
    "ChatCompletionsPolicy",
    "Command",
    "EndpointError",
    "EpisodeConfig",
    "EpisodeOptions",
    "EpisodeOutcome",
    "EpisodeResult",
    "Interrupted",
    "Outcome",
    "ParseFailure",
    "ParsedReply",
    "Policy",
    "PolicyError",
    "Reply",
    "ResultsFile",
    "TurnRecord",
    "TurnView",
    "WaitPolicy",
    "default_environment_options",
    "dropped_keys",
    "episode_key",
    "estimate",
    "estimate_tokens",
    "extractive_summary",
    "format_reply",
    "paired",
    "paired_differences",
    "parse_episode_options",
    "parse_reply",
    "public_endpoint",
    "raw_action",
    "read_results",
    "relevant_lines",
    "render_prompt",
    "run_episode",
    "run_sweep",
    "scenario_name",
    "summarize",
    "telemetry_block",
    "uses_state",
]

__getattr__ = lazy_getattr("skillstate_plugins.bench.api", _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
