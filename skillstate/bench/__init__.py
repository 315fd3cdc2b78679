"""The warehouse benchmark harness: policies, runtimes, the episode runner, the LLM adapter.

- :func:`run_episode` / :class:`EpisodeConfig` (``skillstate.bench.runner``);
- policies (``skillstate.bench.policies``): ``oracle``, ``stale``, ``wait``, and
  :class:`ChatCompletionsPolicy` (``skillstate.bench.llm``);
- runtimes (``skillstate.bench.runtimes``): skill-state, react, memory, stateful, window.

Needs the ``warehouse`` environment plugin. See ``docs/warehouse.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_getattr

if TYPE_CHECKING:
    from skillstate.bench.llm import ChatCompletionsPolicy
    from skillstate.bench.policies import OraclePolicy, Policy, Reply, TurnView, WaitPolicy
    from skillstate.bench.runner import EpisodeConfig, EpisodeResult, run_episode

__all__ = [
    "ChatCompletionsPolicy",
    "EpisodeConfig",
    "EpisodeResult",
    "OraclePolicy",
    "Policy",
    "Reply",
    "TurnView",
    "WaitPolicy",
    "run_episode",
]

_LAZY = {
    "ChatCompletionsPolicy": "skillstate.bench.llm",
    "OraclePolicy": "skillstate.bench.policies",
    "Policy": "skillstate.bench.policies",
    "Reply": "skillstate.bench.policies",
    "TurnView": "skillstate.bench.policies",
    "WaitPolicy": "skillstate.bench.policies",
    "EpisodeConfig": "skillstate.bench.runner",
    "EpisodeResult": "skillstate.bench.runner",
    "run_episode": "skillstate.bench.runner",
}


__getattr__ = lazy_getattr("skillstate.bench", _LAZY, globals())
