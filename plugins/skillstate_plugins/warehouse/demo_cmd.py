"""``skillstate demo``: a short warehouse episode, turn by turn, on the embedded file store.

The oracle policy answers each event under the SKILL.state runtime: it reads only
(P, Σ_t, O_t) and sends a patch and an action. One turn deliberately stores on an
occupied shelf, so the environment rejects it and the patch rolls back; telemetry
noise rides on every observation (shown in full once) and never reaches Σ.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skillstate.plugin.cli import CliContext
    from skillstate_plugins.bench import TurnRecord

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--horizon", type=int, default=8, help="events in the episode [8]")
    parser.add_argument("--seed", type=int, default=42, help="generator seed [42]")
    parser.add_argument("--noise", type=int, default=3, help="telemetry lines per observation [3]")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the temporary store directory (default: removed at the end)",
    )


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _split(observation: str) -> tuple[str, list[str]]:
    head, _, tail = observation.partition("--- BACKGROUND TELEMETRY ---")
    return head.strip(), [line for line in tail.splitlines() if line.strip()]


class _Printer:
    def __init__(self, ctx: CliContext) -> None:
        self.ctx = ctx
        self.noise_shown = False
        self.step = 0

    def say(self, text: str = "") -> None:
        print(text, file=self.ctx.out)

    def observation(self, label: str, observation: str) -> None:
        head, noise = _split(observation)
        self.say(f"  {label}")
        self.say(_indent(head, "      "))
        if noise and not self.noise_shown:
            self.noise_shown = True
            self.say(f"      --- BACKGROUND TELEMETRY --- ({len(noise)} noisy lines, not in Σ)")
            self.say(_indent("\n".join(noise), "      "))
        elif noise:
            self.say(f"      (+ {len(noise)} background telemetry lines)")

    def turn(self, turn: TurnRecord) -> None:
        self.say(f"turn {turn.call + 1} · event {turn.event + 1}")
        self.observation("O_t  observation:", turn.observation)
        self.say(f"  ΔΣ   patch:   {json.dumps(turn.patch, separators=(',', ':'))}")
        self.say(f"  a_t  action:  {turn.action}")
        if turn.outcome == "accepted":
            self.step += 1
            verdict = f"accepted — committed as step {self.step}"
        else:
            verdict = (
                f"{turn.category} — ROLLED BACK: Σ unchanged, still step {self.step}, "
                "the event stays pending"
            )
        self.say(f"  outcome: {verdict}; Σ is {turn.state_bytes} bytes")
        head, _ = _split(turn.result)
        first = head.splitlines()[0] if head else ""
        self.say(f"      {first}")
        self.say()


def run(ctx: CliContext) -> int:
    from skillstate.plugin.runtime import Runtime
    from skillstate_plugins.bench import EpisodeConfig, run_episode

    from .bench.policies import OraclePolicy
    from .bench.spec import WAREHOUSE_INSTRUCTIONS
    from .benchmark import WAREHOUSE_BENCHMARK

    args = ctx.args
    if not 3 <= args.horizon <= 200 or not 0 <= args.noise <= 50:
        ctx.error("--horizon must be 3–200 and --noise 0–50")
        return 2
    temp = None
    store = args.store
    if store is None:
        temp = tempfile.mkdtemp(prefix="skillstate-demo-")
        store = f"file:{temp}/state"
    printer = _Printer(ctx)
    try:
        with Runtime(store, host=ctx.host) as runtime:
            config = EpisodeConfig(
                runtime="skill-state",
                horizon=args.horizon,
                seed=args.seed,
                noise=args.noise,
                env_retries=1,
            )
            printer.say(
                f"skillstate demo: {_article(args.horizon)} {args.horizon}-event SKILL.state warehouse episode "
                f"(seed {args.seed}, {args.noise} telemetry lines per observation)"
            )
            printer.say(f"store: {store}")
            printer.say(
                f"P: the warehouse instructions, {len(WAREHOUSE_INSTRUCTIONS):,} characters, "
                'immutable.  Σ_0 = {"inventory":{}}.  Each turn the model sees only (P, Σ_t, O_t).'
            )
            printer.say()
            result = run_episode(
                WAREHOUSE_BENCHMARK,
                config,
                OraclePolicy(collide_at=2),
                runtime,
                session_id="demo-warehouse",
                on_turn=printer.turn,
            )
            state = runtime.get_session(result.session_id)["execution_state"]
            journal = runtime.store.journal(result.session_id)
        printer.say(
            f"score {result.score:.2f} ({result.successes}/{result.total} events handled), "
            f"{result.calls} calls, rejections: "
            + (", ".join(f"{k}={v}" for k, v in result.rejections.items()) or "none")
        )
        printer.say(f"final Σ: {json.dumps(state, separators=(',', ':'))}")
        printer.say(
            f"journal: {len(journal)} entries (every committed step, and each rollback's "
            "observation); the reasoning was never stored"
        )
        if temp is not None and args.keep:
            printer.say(f"kept: {temp}")
    finally:
        if temp is not None and not args.keep:
            shutil.rmtree(temp, ignore_errors=True)
    return 0


def _article(number: int) -> str:
    """English article for a number read aloud: an 8, an 11, an 18, an 80; a 5, a 20."""
    return "an" if str(number).startswith("8") or number in (11, 18) else "a"
