"""The episode runner: one benchmark episode, one policy, one runtime, through :class:`Runtime`.

Every turn: render the runtime's prompt, ask the policy, read the reply, and hand the
patch and action to ``Runtime.execute_step`` (which validates Σ ⊕ ΔΣ, runs the action
in the session's environment and commits both or neither). Retry rules (the paper
gives none):

- a reply that cannot be used, or a schema rollback, is a **rollback-retry**: Σ and
  the event stay, the next observation is the error followed by the observation
  being answered (``inject_observation``); after ``retries`` consecutive ones the
  runner gives the event up (the benchmark's ``skip_action``) — and the next
  observation starts with the error's first line, so that even with ``retries=0`` a
  model learns why its reply was refused;
- an environment rejection rolls back too (the event stays pending and the
  environment restates it); after ``env_retries`` rejections of one event the runner
  gives it up — and the next observation still starts with the rejection's reason,
  so a model always sees why its action was refused;
- an :class:`~skillstate_plugins.bench.policies.EndpointError` is not the model's failure: it
  propagates, and the caller stops the run.

Giving up is the runner's, not a call; it scores 0 for the event.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from skillstate.plugin import compact, merge_patch
from skillstate.plugin.runtime import Runtime

from .policies import Interrupted, PolicyError, Reply, TurnView
from .records import EpisodeResult, TurnRecord, estimate_tokens, sum_known
from .replies import ParseFailure, dropped_keys, parse_reply
from .runtimes import RECENT, extractive_summary, render_prompt, summary_prompt
from .spec import BenchmarkSpec, EpisodeConfig, uses_state

__all__ = ["EpisodeResult", "Interrupted", "TurnRecord", "estimate_tokens", "run_episode"]


def _retry_observation(error: str, answering: str) -> str:
    return f"{error[:2000]}\n\nThe observation you are answering again:\n{answering}"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


class _Episode:
    def __init__(
        self,
        spec: BenchmarkSpec,
        config: EpisodeConfig,
        policy: Any,
        runtime: Runtime,
        sid: str,
        stop: threading.Event | None,
    ) -> None:
        self.spec, self.config, self.policy, self.runtime, self.sid = (
            spec,
            config,
            policy,
            runtime,
            sid,
        )
        self.stop = stop
        self.kind = config.runtime
        self.stateful = uses_state(self.kind)
        self.history: list[tuple[str, str]] = []
        self.turns: list[TurnRecord] = []
        self.counts: Counter[str] = Counter()
        self.repairs: Counter[str] = Counter()
        self.event = 0
        self.failures = 0
        self.env_rejections = 0
        self.skipped = 0
        self.summary = "(nothing yet)"
        self.folded = 0
        self.summary_calls = 0
        self.summary_chars = 0
        self.summary_tokens_est = 0
        self.summary_tokens: list[int | None] = []

    def start(self) -> None:
        spec = self.spec
        payload = self.runtime.initialize_skill(
            self.sid,
            spec.instructions,
            initial_state=dict(spec.initial_state) if self.stateful else None,
            # the Stateful baseline (A.3) writes flat "StateUpdate: {...}" lines: no schema
            state_schema=dict(spec.state_schema)
            if self.kind == "skill-state" and spec.state_schema is not None
            else None,
            environment=spec.environment,
            environment_options=spec.environment_options(self.config),
        )
        self._take(payload)
        self.answering = self.observation

    def _take(self, payload: Mapping[str, Any]) -> None:
        prompt = payload["prompt_payload"]
        self.observation = str(prompt["latest_observation"])
        self.state = prompt["current_state"]
        self.status = str(payload["meta"]["status"])

    def _skip(self, because: str | None = None) -> None:
        payload = self.runtime.execute_step(
            self.sid, "", {}, self.spec.skip_action, environment_observation=self.observation
        )
        self.skipped += 1
        self._advance(payload)
        if because and self.status == "active":
            self.observation = f"{because}\n{self.observation}"
            self.runtime.inject_observation(self.sid, self.observation)
            self.answering = self.observation

    def _advance(self, payload: Mapping[str, Any]) -> None:
        self._take(payload)
        self.answering = self.observation
        self.event += 1
        self.failures = self.env_rejections = 0

    def _retry(self, error: str) -> bool:
        """Count a rollback-retry; ``True`` when the event was given up instead."""
        self.failures += 1
        if self.failures > self.config.retries:
            self._skip(because=_first_line(error))  # the model still learns why
            return True
        self.observation = _retry_observation(error, self.answering)
        self.runtime.inject_observation(self.sid, self.observation)
        return False

    def _summary(self) -> str:
        if self.kind != "memory":
            return self.summary
        summarize = getattr(self.policy, "summarize", None)
        if self.config.memory_summary != "model" or summarize is None:
            return extractive_summary(self.history, self.spec.summary_lines)
        while self.folded < len(self.history) - RECENT:
            observation, response = self.history[self.folded]
            prompt = summary_prompt(self.summary, observation, response)
            reply: Reply = summarize(prompt)
            self.summary = reply.text.strip() or self.summary
            self.summary_calls += 1
            self.summary_chars += len(prompt)
            self.summary_tokens_est += estimate_tokens(prompt)
            self.summary_tokens.append(reply.prompt_tokens)
            self.folded += 1
        return self.summary

    def turn(self) -> TurnRecord:
        if self.stop is not None and self.stop.is_set():
            raise Interrupted
        state = self.state if self.stateful else None
        summary = self._summary()
        prompt, shown = render_prompt(
            self.kind,
            self.spec.instructions,
            state,
            self.history,
            self.observation,
            summary=summary,
            window_chars=self.config.window_chars,
        )
        given = self.observation
        view = TurnView(
            self.kind,
            prompt,
            given,
            state,
            shown,
            summary if self.kind == "memory" else None,
            len(self.turns),
        )
        reply: Reply | None
        try:
            reply = self.policy.respond(view)
            text = reply.text
            parsed = parse_reply(self.kind, text, strict=self.config.strict_parse)
        except PolicyError as exc:
            reply, text, parsed = None, "", ParseFailure("policy_error", str(exc))
        self.history.append((given, text))
        before = self.state
        outcome, patch, action, skipped = "unparsed", None, None, False
        repairs: tuple[str, ...] = ()
        category: str | None
        if isinstance(parsed, ParseFailure):
            category = parsed.category
            skipped = self._retry(f"[TURN REJECTED: {parsed.category}] {parsed.message}")
        else:
            patch, action, repairs = parsed.patch, parsed.action, parsed.repairs
            for repair in repairs:
                self.repairs[repair] += 1
            dropped = (
                dropped_keys(before, merge_patch(before, patch), patch) if self.stateful else []
            )
            payload = self.runtime.execute_step(
                self.sid, parsed.reasoning, patch, action, environment_observation=given
            )
            meta = payload["meta"]
            if not meta["rolled_back"]:
                outcome = "accepted"
                category = "premature_overwrite" if dropped else None
                self._advance(payload)
            elif meta["rejection"] == "schema":
                outcome = "rejected"
                category = "premature_overwrite" if dropped else "schema_violation"
                new = str(payload["prompt_payload"]["latest_observation"])
                skipped = self._retry(new)
            else:
                outcome, category = "rejected", "env_rejected"
                self._take(payload)
                self.answering = self.observation
                self.env_rejections += 1
                if self.env_rejections > self.config.env_retries:
                    self._skip(because=_first_line(self.observation))
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
            state_bytes=len(compact(self.state).encode("utf-8")),
            skipped=skipped,
            repairs=repairs,
            usage_prompt_tokens=reply.prompt_tokens if reply else None,
            usage_completion_tokens=reply.completion_tokens if reply else None,
        )
        self.turns.append(record)
        return record


def _recovery(
    drift: Mapping[str, Any] | None, events: str, turns: list[TurnRecord]
) -> dict[str, Any] | None:
    if drift is None:
        return None
    follow = int(drift["follow_up"])
    attempts = sum(1 for t in turns if t.event == follow)
    recovered = len(events) > follow and events[follow] == "1"
    return {
        "scenario": drift["scenario"],
        "drift_event": drift["at"],
        "follow_up_event": follow,
        "recovered": recovered,
        "lag": attempts - 1 if recovered else None,
        "stale_turns": attempts - (1 if recovered else 0),
    }


def run_episode(
    spec: BenchmarkSpec,
    config: EpisodeConfig,
    policy: Any,
    runtime: Runtime,
    *,
    session_id: str | None = None,
    on_turn: Callable[[TurnRecord], None] | None = None,
    stop: threading.Event | None = None,
) -> EpisodeResult:
    """Run one episode to its end (or the call cap) and score it from the environment.

    Raises :class:`~skillstate_plugins.bench.policies.EndpointError` when the policy's endpoint
    failed, and :class:`Interrupted` when ``stop`` was set; nothing of the episode is
    returned then.
    """
    started = time.perf_counter()
    if config.benchmark != spec.name:  # the label results carry is the benchmark run
        config = attrs.evolve(config, benchmark=spec.name)
    sid = session_id or (
        f"bench-{config.benchmark}-{config.runtime}-t{config.horizon}-s{config.seed}-"
        f"{uuid.uuid4().hex[:8]}"
    )
    episode = _Episode(spec, config, policy, runtime, sid, stop)
    episode.start()
    cap = config.horizon * (2 + config.retries + config.env_retries) + 10
    while episode.status == "active":
        if len(episode.turns) >= cap:
            episode.counts["step_cap"] += 1
            break
        record = episode.turn()
        if on_turn is not None:
            on_turn(record)
    snapshot = runtime.get_session(sid)["metadata"]["environmentState"]
    outcome = spec.outcome(snapshot)
    return EpisodeResult(
        config=config,
        policy=str(policy.name),
        session_id=sid,
        score=outcome.score,
        successes=outcome.successes,
        total=outcome.total,
        turns=tuple(episode.turns),
        rejections=dict(episode.counts),
        repairs=dict(episode.repairs),
        skipped=episode.skipped,
        recovery=_recovery(outcome.drift, outcome.events, episode.turns),
        elapsed=time.perf_counter() - started,
        summary_calls=episode.summary_calls,
        summary_prompt_chars=episode.summary_chars,
        summary_usage_prompt_tokens=sum_known(episode.summary_tokens),
        summary_prompt_tokens_est=episode.summary_tokens_est,
    )
