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
  environment appends) and :func:`relevant_lines` (an observation without it).

A minimal benchmark::

    from skillstate.plugin import hookimpl
    from skillstate.plugin.bench import BenchmarkSpec, EpisodeOutcome

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
    from skillstate.bench.llm import ChatCompletionsPolicy, public_endpoint
    from skillstate.bench.policies import (
        EndpointError,
        Policy,
        PolicyError,
        Reply,
        TurnView,
        WaitPolicy,
        format_reply,
    )
    from skillstate.bench.replies import KINDS, ParsedReply, ParseFailure, dropped_keys, parse_reply
    from skillstate.bench.report import paired_differences, summarize
    from skillstate.bench.results import ResultsFile, episode_key, read_results
    from skillstate.bench.runner import (
        EpisodeResult,
        Interrupted,
        TurnRecord,
        estimate_tokens,
        run_episode,
    )
    from skillstate.bench.runtimes import RECENT, extractive_summary, render_prompt
    from skillstate.bench.spec import (
        DEFAULT_WINDOW_CHARS,
        RUNTIMES,
        BenchmarkSpec,
        EpisodeConfig,
        EpisodeOutcome,
        default_environment_options,
        uses_state,
    )
    from skillstate.bench.stats import estimate, paired
    from skillstate.bench.sweep import run_sweep
    from skillstate.bench.telemetry import TELEMETRY_HEADER, relevant_lines, telemetry_block

_TABLE = {
    "skillstate.bench.llm": ("ChatCompletionsPolicy", "public_endpoint"),
    "skillstate.bench.policies": (
        "EndpointError", "Policy", "PolicyError", "Reply", "TurnView", "WaitPolicy", "format_reply",
    ),
    "skillstate.bench.replies": ("KINDS", "ParseFailure", "ParsedReply", "dropped_keys", "parse_reply"),
    "skillstate.bench.report": ("paired_differences", "summarize"),
    "skillstate.bench.results": ("ResultsFile", "episode_key", "read_results"),
    "skillstate.bench.runner": (
        "EpisodeResult", "Interrupted", "TurnRecord", "estimate_tokens", "run_episode",
    ),
    "skillstate.bench.runtimes": ("RECENT", "extractive_summary", "render_prompt"),
    "skillstate.bench.spec": (
        "DEFAULT_WINDOW_CHARS", "RUNTIMES", "BenchmarkSpec", "EpisodeConfig", "EpisodeOutcome",
        "default_environment_options", "uses_state",
    ),
    "skillstate.bench.stats": ("estimate", "paired"),
    "skillstate.bench.sweep": ("run_sweep",),
    "skillstate.bench.telemetry": ("TELEMETRY_HEADER", "relevant_lines", "telemetry_block"),
}  # fmt: skip

_LAZY = {name: module for module, names in _TABLE.items() for name in names}

__all__ = [
    "DEFAULT_WINDOW_CHARS",
    "KINDS",
    "RECENT",
    "RUNTIMES",
    "TELEMETRY_HEADER",
    "BenchmarkSpec",
    "ChatCompletionsPolicy",
    "EndpointError",
    "EpisodeConfig",
    "EpisodeOutcome",
    "EpisodeResult",
    "Interrupted",
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
    "parse_reply",
    "public_endpoint",
    "read_results",
    "relevant_lines",
    "render_prompt",
    "run_episode",
    "run_sweep",
    "summarize",
    "telemetry_block",
    "uses_state",
]

__getattr__ = lazy_getattr("skillstate.plugin.bench", _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
