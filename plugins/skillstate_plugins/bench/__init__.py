"""The benchmark harness, and the author API of benchmark plugins: what ``skillstate bench NAME`` shares.

``skillstate bench NAME`` runs a benchmark a plugin registers: seeded episodes of one of
its environments under SKILL.state (App. A.4) and the paper's baselines (A.1 ReAct, A.2
Memory, A.3 Stateful, and a sliding window), with scripted policies or any
OpenAI-compatible model, into a results file that ``skillstate bench report`` and
``skillstate bench plot`` read. The harness is the same for every benchmark; a
benchmark plugin brings what is its own.

A benchmark, start to finish
----------------------------

A benchmark is an environment (``skillstate_register_environments``, ``docs/plugins.md``)
plus a :class:`BenchmarkSpec`, registered through this package's hook
``skillstate_register_benchmarks`` (``docs/hooks.md``). Mark it
``optionalhook=True``: the hook is the ``bench`` plugin's, so with ``bench`` blocked or
absent the rest of your plugin still loads. ``my_tickets/__init__.py``::

    from skillstate.plugin import hookimpl
    from skillstate_plugins.bench import BenchmarkSpec, EpisodeOutcome, Reply, format_reply

    class TicketOracle:                     # a policy: a name, and respond(view) -> Reply
        name = "oracle"

        def respond(self, view):            # view: a TurnView (runtime, prompt, O_t, Σ_t)
            return Reply(format_reply(view.runtime, "triage the newest", {}, "Close 1"))

    @hookimpl(optionalhook=True)
    def skillstate_register_benchmarks(register):
        register(BenchmarkSpec(
            name="tickets", help="triage a seeded ticket queue", environment="tickets",
            instructions=INSTRUCTIONS, initial_state={"open": {}}, state_schema=SCHEMA,
            policies={"oracle": TicketOracle},
            outcome=lambda snap: EpisodeOutcome(snap["solved"], snap["total"], snap["marks"]),
        ))

``skillstate bench tickets --runtime all --horizon 10,50 --seeds 5 --out r.jsonl``, then
``skillstate bench report r.jsonl`` and ``skillstate bench plot r.jsonl -o r.png``
(``pip install 'skillstate[plot]'``). Each episode runs through the session runtime
(``skillstate.plugin.runtime.Runtime``) on ``--store``; the environment gets its
options from :meth:`EpisodeConfig.environment_options` (or the spec's
``environment_options``) and the score is read from its final snapshot
(:class:`EpisodeOutcome`).

The names
---------

- **The benchmark:** :class:`BenchmarkSpec` (P, Σ_0 and Σ's schema, the policies, the
  score), :class:`EpisodeConfig` (one episode's settings), :class:`EpisodeOutcome`.
- **Policies** (what answers a turn): a :class:`TurnView` in, a :class:`Reply` out;
  :func:`format_reply` writes a reply in each runtime's format; a scripted policy that
  cannot answer raises :class:`PolicyError` (counted; the run goes on).
- **One episode in Python:** :func:`run_episode` (a benchmark, an
  :class:`EpisodeConfig`, a policy, a ``Runtime``) → :class:`EpisodeResult`, with one
  :class:`TurnRecord` per model call (``on_turn`` sees each as it happens).
- **For a benchmark's environment** (what the paper's two share):
  :func:`parse_episode_options` checks the episode options every environment takes
  (seed, horizon, noise, noise seed, drift scenario and point) with one-line errors and
  returns :class:`EpisodeOptions`; :func:`scenario_name` reads a scenario's name or
  alias; :class:`Command` and :class:`Outcome` are a command and what it did, and
  :func:`raw_action` reads the action a runtime hands over; :func:`telemetry_block`
  writes App. C's background telemetry and :func:`relevant_lines` reads an observation
  without it.

Everything else (the runtimes' prompts, the reply parser, the LLM adapter, the results
file, sweeps, report, plot) is the harness's own, reached through ``skillstate bench``.
Names are imported on first use: importing this package costs a plugin nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from skillstate.plugin import hookimpl

if TYPE_CHECKING:
    from .episodes import (
        Command,
        EpisodeOptions,
        Outcome,
        parse_episode_options,
        raw_action,
        scenario_name,
    )
    from .policies import PolicyError, Reply, TurnView, format_reply
    from .records import EpisodeResult, TurnRecord
    from .runner import run_episode
    from .spec import BenchmarkSpec, EpisodeConfig, EpisodeOutcome
    from .telemetry import relevant_lines, telemetry_block

__all__ = [
    "BenchmarkSpec",
    "Command",
    "EpisodeConfig",
    "EpisodeOptions",
    "EpisodeOutcome",
    "EpisodeResult",
    "Outcome",
    "PolicyError",
    "Reply",
    "TurnRecord",
    "TurnView",
    "format_reply",
    "parse_episode_options",
    "raw_action",
    "relevant_lines",
    "run_episode",
    "scenario_name",
    "telemetry_block",
]

_WHERE = {
    "episodes": (
        "Command", "EpisodeOptions", "Outcome", "parse_episode_options", "raw_action",
        "scenario_name",
    ),
    "policies": ("PolicyError", "Reply", "TurnView", "format_reply"),
    "records": ("EpisodeResult", "TurnRecord"),
    "runner": ("run_episode",),
    "spec": ("BenchmarkSpec", "EpisodeConfig", "EpisodeOutcome"),
    "telemetry": ("relevant_lines", "telemetry_block"),
}  # fmt: skip

_MODULE = {name: module for module, names in _WHERE.items() for name in names}

_HELP = "run a plugin's benchmark (bench NAME); bench report / plot a results file"


def __getattr__(name: str) -> Any:
    module = _MODULE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # the next look-up is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})  # the hooks too: pluggy finds them through dir()


@hookimpl
def skillstate_addhooks(pluginmanager: Any) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@hookimpl
def skillstate_register_commands(register: Any, host: Any) -> None:
    from skillstate.plugin import CommandSpec

    def configure(parser: Any) -> None:
        from .command import configure

        configure(parser, host)  # its sub-commands are this host's benchmarks

    def run(ctx: Any) -> int:
        from .command import run

        return run(ctx)

    register(CommandSpec("bench", _HELP, configure, run))
