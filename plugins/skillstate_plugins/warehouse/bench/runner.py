"""The episode runner: one warehouse episode, one policy, one runtime, through :class:`Runtime`.

Every turn: render the runtime's prompt, ask the policy, parse the reply, and hand the
patch and action to ``Runtime.execute_step`` (which validates Σ ⊕ ΔΣ, runs the action
in the session's warehouse and commits both or neither). Retry rules (the paper gives
none; ``docs/warehouse.md``):

- an unparsable reply or a schema rollback is a **rollback-retry**: Σ and the event
  stay, the next observation is the error followed by the observation being answered
  (``inject_observation``); after ``retries`` consecutive ones the runner gives the
  event up (``Skip``);
- an environment rejection rolls back too (the event stays pending and the environment
  restates it); after ``env_retries`` rejections of one event the runner gives it up.
  The default 0 is the paper's one action per event: a rejected Store loses one event.

Giving up (``Skip``) is the runner's, not a call; it scores 0 for the event.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from skillstate.plugin.runtime import Runtime, json_size

from .policies import Policy, PolicyError, TurnView
from .runtimes import (
    DEFAULT_WINDOW_CHARS,
    ParseFailure,
    parse_reply,
    render_prompt,
    uses_state,
)
from .spec import INITIAL_STATE, STATE_SCHEMA, WAREHOUSE_INSTRUCTIONS

__all__ = ["EpisodeConfig", "EpisodeResult", "TurnRecord", "estimate_tokens", "run_episode"]


def estimate_tokens(text: str) -> int:
    """A token estimate: characters / 4, rounded up (no tokenizer is assumed)."""
    return (len(text) + 3) // 4


@attrs.frozen
class EpisodeConfig:
    """One episode: runtime, horizon, seed, noise, drift scenario and the retry rules."""

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

    def environment_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {
            "mode": "episode",
            "seed": self.seed,
            "horizon": self.horizon,
            "noise": self.noise,
        }
        for key in ("noise_seed", "scenario", "drift_at"):
            if getattr(self, key) is not None:
                options[key] = getattr(self, key)
        return options


@attrs.frozen
class TurnRecord:
    """One policy call: sizes, what it asked for, and what became of it.

    ``outcome`` — ``accepted``, ``rejected`` (schema or environment rollback) or
    ``unparsed``; ``category`` — the failure category; ``result`` — the next
    observation; ``skipped`` — the runner gave the event up after this call.
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
    usage_prompt_tokens: int | None = None
    usage_completion_tokens: int | None = None


@attrs.frozen
class EpisodeResult:
    config: EpisodeConfig
    policy: str
    session_id: str
    score: float
    successes: int
    events: int
    turns: tuple[TurnRecord, ...]
    rejections: dict[str, int]
    skipped: int
    recovery: dict[str, Any] | None
    elapsed: float

    @property
    def calls(self) -> int:
        return len(self.turns)

    @property
    def prompt_chars(self) -> list[int]:
        return [t.prompt_chars for t in self.turns]

    def to_dict(self, *, turns: bool = False) -> dict[str, Any]:
        chars = self.prompt_chars or [0]
        tokens = [t.prompt_tokens for t in self.turns] or [0]
        usage = [t.usage_prompt_tokens for t in self.turns if t.usage_prompt_tokens is not None]
        out: dict[str, Any] = {
            "runtime": self.config.runtime,
            "policy": self.policy,
            "horizon": self.config.horizon,
            "seed": self.config.seed,
            "noise": self.config.noise,
            "scenario": self.config.scenario,
            "score": round(self.score, 4),
            "successes": self.successes,
            "actionable_events": self.events,
            "calls": self.calls,
            "avg_prompt_chars": round(sum(chars) / len(chars), 1),
            "max_prompt_chars": max(chars),
            "total_prompt_chars": sum(chars),
            "avg_prompt_tokens_est": round(sum(tokens) / len(tokens), 1),
            "max_prompt_tokens_est": max(tokens),
            "total_prompt_tokens_est": sum(tokens),
            "total_completion_chars": sum(t.completion_chars for t in self.turns),
            "usage_prompt_tokens": sum(usage) if usage else None,
            "usage_completion_tokens": (
                sum(t.usage_completion_tokens or 0 for t in self.turns) if usage else None
            ),
            "rejections": dict(sorted(self.rejections.items())),
            "skipped_events": self.skipped,
            "recovery": self.recovery,
            "session_id": self.session_id,
            "elapsed_s": round(self.elapsed, 3),
        }
        if turns:
            out["turns"] = [attrs.asdict(t) for t in self.turns]
        return out


def _lost_keys(before: Any, after: Any, patch: Any, path: str = "") -> list[str]:
    """Keys of Σ_t missing from Σ_{t+1} without an explicit null (§8 ``premature_overwrite``)."""
    if not isinstance(before, Mapping):
        return []
    lost = []
    for key, value in before.items():
        sub = patch.get(key) if isinstance(patch, Mapping) else None
        if not isinstance(after, Mapping) or key not in after:
            if not (isinstance(patch, Mapping) and key in patch and sub is None):
                lost.append(path + key)
        elif isinstance(value, Mapping):
            lost += _lost_keys(value, after[key], sub, f"{path}{key}.")
    return lost


def _retry_observation(error: str, answering: str) -> str:
    return f"{error[:2000]}\n\nThe observation you are answering again:\n{answering}"


class _Episode:
    def __init__(self, config: EpisodeConfig, policy: Policy, runtime: Runtime, sid: str) -> None:
        self.config, self.policy, self.runtime, self.sid = config, policy, runtime, sid
        self.kind = config.runtime
        self.stateful = uses_state(self.kind)
        self.history: list[tuple[str, str]] = []
        self.turns: list[TurnRecord] = []
        self.counts: Counter[str] = Counter()
        self.event = 0
        self.failures = 0
        self.env_rejections = 0
        self.skipped = 0

    def start(self) -> None:
        payload = self.runtime.initialize_skill(
            self.sid,
            WAREHOUSE_INSTRUCTIONS,
            initial_state=dict(INITIAL_STATE) if self.stateful else None,
            state_schema=STATE_SCHEMA if self.stateful else None,
            environment="warehouse",
            environment_options=self.config.environment_options(),
        )
        self._take(payload)
        self.answering = self.observation

    def _take(self, payload: Mapping[str, Any]) -> None:
        prompt = payload["prompt_payload"]
        self.observation = str(prompt["latest_observation"])
        self.state = prompt["current_state"]
        self.status = str(payload["meta"]["status"])

    def _skip(self) -> None:
        payload = self.runtime.execute_step(
            self.sid, "", {}, "Skip", environment_observation=self.observation
        )
        self.skipped += 1
        self._advance(payload)

    def _advance(self, payload: Mapping[str, Any]) -> None:
        self._take(payload)
        self.answering = self.observation
        self.event += 1
        self.failures = self.env_rejections = 0

    def _retry(self, error: str) -> bool:
        """Count a rollback-retry; ``True`` when the event was given up instead."""
        self.failures += 1
        if self.failures > self.config.retries:
            self._skip()
            return True
        self.observation = _retry_observation(error, self.answering)
        self.runtime.inject_observation(self.sid, self.observation)
        return False

    def turn(self) -> TurnRecord:
        state = self.state if self.stateful else None
        prompt, shown, summary = render_prompt(
            self.kind,
            WAREHOUSE_INSTRUCTIONS,
            state,
            self.history,
            self.observation,
            window_chars=self.config.window_chars,
        )
        given = self.observation
        view = TurnView(self.kind, prompt, given, state, shown, summary, len(self.turns))
        try:
            reply = self.policy.respond(view)
            text = reply.text
            parsed = parse_reply(self.kind, text)
        except PolicyError as exc:
            reply, text, parsed = None, "", ParseFailure("policy_error", str(exc))
        self.history.append((given, text))
        before = self.state
        outcome, patch, action, skipped = "unparsed", None, None, False
        if isinstance(parsed, ParseFailure):
            category: str | None = parsed.category
            skipped = self._retry(f"[TURN REJECTED: {parsed.category}] {parsed.message}")
        else:
            patch, action = parsed.patch, parsed.action
            payload = self.runtime.execute_step(
                self.sid, parsed.reasoning, patch, action, environment_observation=given
            )
            meta = payload["meta"]
            if not meta["rolled_back"]:
                outcome, category = "accepted", None
                self._advance(payload)
                if self.stateful and _lost_keys(before, self.state, patch):
                    self.counts["premature_overwrite"] += 1
            elif meta["rejection"] == "schema":
                outcome, category = "rejected", "schema_violation"
                new = str(payload["prompt_payload"]["latest_observation"])
                skipped = self._retry(new)
            else:
                outcome, category = "rejected", "env_rejected"
                self._take(payload)
                self.answering = self.observation
                self.env_rejections += 1
                if self.env_rejections > self.config.env_retries:
                    self._skip()
                    skipped = True
        if category:
            self.counts[category] += 1
        record = TurnRecord(
            call=len(self.turns),
            event=self.event - (1 if outcome == "accepted" or skipped else 0),
            prompt_chars=len(prompt),
            prompt_tokens=estimate_tokens(prompt),
            completion_chars=len(text),
            observation=given,
            response=text,
            outcome=outcome,
            category=category,
            patch=patch,
            action=action,
            result=self.observation,
            state_bytes=json_size(self.state),
            skipped=skipped,
            usage_prompt_tokens=reply.prompt_tokens if reply else None,
            usage_completion_tokens=reply.completion_tokens if reply else None,
        )
        self.turns.append(record)
        return record


def _recovery(env_state: Mapping[str, Any], turns: list[TurnRecord]) -> dict[str, Any] | None:
    plan = env_state.get("drift_plan")
    if not isinstance(plan, Mapping):
        return None
    follow = int(plan["follow_up"])
    results = str(env_state.get("results", ""))
    attempts = sum(1 for t in turns if t.event == follow)
    recovered = len(results) > follow and results[follow] == "1"
    return {
        "scenario": plan["scenario"],
        "drift_event": plan["at"],
        "follow_up_event": follow,
        "recovered": recovered,
        "lag": attempts - 1 if recovered else None,
        "stale_turns": attempts - (1 if recovered else 0),
    }


def run_episode(
    config: EpisodeConfig,
    policy: Policy,
    runtime: Runtime,
    *,
    session_id: str | None = None,
    on_turn: Callable[[TurnRecord], None] | None = None,
) -> EpisodeResult:
    """Run one episode to its end (or the call cap) and score it from the environment."""
    started = time.perf_counter()
    sid = session_id or (
        f"bench-{config.runtime}-t{config.horizon}-s{config.seed}-{uuid.uuid4().hex[:8]}"
    )
    episode = _Episode(config, policy, runtime, sid)
    episode.start()
    cap = config.horizon * (2 + config.retries + config.env_retries) + 10
    while episode.status == "active":
        if len(episode.turns) >= cap:
            episode.counts["step_cap"] += 1
            break
        record = episode.turn()
        if on_turn is not None:
            on_turn(record)
    env_state = runtime.get_session(sid)["metadata"]["environmentState"]
    results = str(env_state.get("results", ""))
    successes = results.count("1")
    return EpisodeResult(
        config=config,
        policy=policy.name,
        session_id=sid,
        score=successes / config.horizon,
        successes=successes,
        events=config.horizon,
        turns=tuple(episode.turns),
        rejections=dict(episode.counts),
        skipped=episode.skipped,
        recovery=_recovery(env_state, episode.turns),
        elapsed=time.perf_counter() - started,
    )
