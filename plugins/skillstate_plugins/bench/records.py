"""The records of a run: one :class:`TurnRecord` per policy call, one :class:`EpisodeResult` per episode.

:meth:`EpisodeResult.to_dict` is the episode's line in the results file (every
setting, the score, prompt sizes in characters and in our tokenizer's count,
:func:`estimate_tokens`, the endpoint's usage, failures by category and kind, and the
Memory runtime's summary calls apart). With ``turns=True`` it adds every turn —
without the raw reply: the reasoning is never written (SKILL.state's principle), the
turn's patch, action and sizes are.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs

from .replies import KINDS
from .spec import EpisodeConfig

__all__ = ["UNWRITTEN", "EpisodeResult", "TurnRecord", "estimate_tokens", "sum_known"]

UNWRITTEN = frozenset({"response"})
"""What :meth:`EpisodeResult.to_dict` leaves out of a turn: the raw reply, whose reasoning
SKILL.state discards (its size is ``completion_chars``; its patch and action are kept)."""


def estimate_tokens(text: str) -> int:
    """Our tokenizer's count: characters / 4, rounded up (no model tokenizer is assumed)."""
    return (len(text) + 3) // 4


@attrs.frozen
class TurnRecord:
    """One policy call: sizes, what it asked for, and what became of it.

    ``outcome`` — ``accepted``, ``rejected`` (schema or environment rollback) or
    ``unparsed``; ``category`` — the failure category (``premature_overwrite`` can
    also mark an accepted turn); ``result`` — the next observation; ``skipped`` —
    the runner gave the event up after this call.
    """

    call: int
    event: int
    prompt_chars: int
    prompt_tokens: int
    completion_chars: int
    observation: str
    response: str
    outcome: str
    category: str | None
    patch: dict[str, Any] | None
    action: str | None
    result: str
    state_bytes: int
    skipped: bool = False
    repairs: tuple[str, ...] = ()
    usage_prompt_tokens: int | None = None
    usage_completion_tokens: int | None = None


def sum_known(values: list[int | None]) -> int | None:
    """The sum of the values that are known, ``None`` when none is."""
    known = [v for v in values if v is not None]
    return sum(known) if known else None


@attrs.frozen
class EpisodeResult:
    """A finished episode: its configuration, score, every turn, failures by category and kind."""

    config: EpisodeConfig
    policy: str
    session_id: str
    score: float
    successes: int
    total: int
    turns: tuple[TurnRecord, ...]
    rejections: dict[str, int]
    repairs: dict[str, int]
    skipped: int
    recovery: dict[str, Any] | None
    elapsed: float
    summary_calls: int = 0
    summary_prompt_chars: int = 0
    summary_usage_prompt_tokens: int | None = None
    summary_prompt_tokens_est: int = 0

    @property
    def calls(self) -> int:
        return len(self.turns)

    @property
    def prompt_chars(self) -> list[int]:
        return [t.prompt_chars for t in self.turns]

    def kinds(self) -> dict[str, int]:
        """Failures by §5.7 kind (``json_syntax``, ``schema_type``, ``premature_overwrite``...)."""
        out: Counter[str] = Counter()
        for category, count in self.rejections.items():
            out[KINDS.get(category, "other")] += count
        return dict(sorted(out.items()))

    def to_dict(self, *, turns: bool = False) -> dict[str, Any]:
        chars = self.prompt_chars or [0]
        tokens = [t.prompt_tokens for t in self.turns] or [0]
        out: dict[str, Any] = {
            **self.config.settings(),
            "policy": self.policy,
            "score": round(self.score, 4),
            "successes": self.successes,
            "total": self.total,
            "calls": self.calls,
            "avg_prompt_chars": round(sum(chars) / len(chars), 1),
            "max_prompt_chars": max(chars),
            "total_prompt_chars": sum(chars),
            "avg_prompt_tokens_est": round(sum(tokens) / len(tokens), 1),
            "max_prompt_tokens_est": max(tokens),
            "total_prompt_tokens_est": sum(tokens),
            "total_completion_chars": sum(t.completion_chars for t in self.turns),
            "total_completion_tokens_est": sum(estimate_tokens(t.response) for t in self.turns),
            "usage_prompt_tokens": sum_known([t.usage_prompt_tokens for t in self.turns]),
            "usage_completion_tokens": sum_known([t.usage_completion_tokens for t in self.turns]),
            "summary_calls": self.summary_calls,
            "summary_prompt_chars": self.summary_prompt_chars,
            "summary_prompt_tokens_est": self.summary_prompt_tokens_est,
            "summary_usage_prompt_tokens": self.summary_usage_prompt_tokens,
            "rejections": dict(sorted(self.rejections.items())),
            "failure_kinds": self.kinds(),
            "repairs": dict(sorted(self.repairs.items())),
            "skipped_events": self.skipped,
            "recovery": self.recovery,
            "prompt_chars_per_call": self.prompt_chars,
            "session_id": self.session_id,
            "elapsed_s": round(self.elapsed, 3),
        }
        if turns:  # the reply's reasoning is never written: its patch and action are the answer
            out["turns"] = [
                {k: v for k, v in attrs.asdict(t).items() if k not in UNWRITTEN} for t in self.turns
            ]
        return out
