"""The warehouse benchmark harness: policies, runtimes, the episode runner, the LLM adapter.

- :func:`run_episode` / :class:`EpisodeConfig` (:mod:`.runner`);
- policies (:mod:`.policies`): ``oracle``, ``stale``, ``wait``, and
  :class:`ChatCompletionsPolicy` (:mod:`.llm`);
- runtimes (:mod:`.runtimes`): skill-state, react, memory, stateful, window.

Needs the ``warehouse`` environment plugin. See ``docs/warehouse.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .llm import ChatCompletionsPolicy
    from .policies import OraclePolicy, Policy, Reply, TurnView, WaitPolicy
    from .runner import EpisodeConfig, EpisodeResult, run_episode

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
    "ChatCompletionsPolicy": "llm",
    "OraclePolicy": "policies",
    "Policy": "policies",
    "Reply": "policies",
    "TurnView": "policies",
    "WaitPolicy": "policies",
    "EpisodeConfig": "runner",
    "EpisodeResult": "runner",
    "run_episode": "runner",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
