"""``skillstate bench warehouse``: run warehouse episodes and print the per-run table (or JSON).

Examples::

    skillstate bench warehouse --runtime all --horizon 10,25,50,100,200 --seeds 5
    skillstate bench warehouse --runtime skill-state --noise 0,5,20,50 --horizon 50
    skillstate bench warehouse --scenario audit --policy stale --env-retries 3
    SKILLSTATE_LLM_MODEL=... skillstate bench warehouse --policy llm --horizon 10

Episodes run through the session runtime on ``--store`` (default ``memory:`` —
benchmark sessions are not kept unless a store is named). Seeds are
``seed-base + i`` for i < ``--seeds`` (default base 42, Algorithm 2's seed).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillstate.plugin.cli import CliContext

__all__ = ["configure", "run"]

_ALL_RUNTIMES = ("skill-state", "react", "memory", "stateful")


def _ints(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from None
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected non-negative integers, got {text!r}")
    return values


def _noise(text: str) -> list[int]:
    levels = {"none": 0, "low": 5, "medium": 20, "high": 50}
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        if part in levels:
            out.append(levels[part])
        else:
            out += _ints(part)
    return out


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bench", metavar="BENCHMARK", required=True)
    wh = sub.add_parser("warehouse", help="the SKILL.state paper's Warehouse benchmark")
    wh.add_argument(
        "--runtime",
        default="skill-state",
        help="skill-state, react, memory, stateful, window; comma-separated, or 'all' "
        "(the paper's four) [skill-state]",
    )
    wh.add_argument(
        "--horizon", type=_ints, default=[50], help="events per episode, e.g. 10,25 [50]"
    )
    wh.add_argument("--seeds", type=int, default=1, help="episodes per setting [1]")
    wh.add_argument("--seed-base", type=int, default=42, help="first seed [42]")
    wh.add_argument(
        "--noise",
        type=_noise,
        default=[0],
        help="telemetry lines per observation, e.g. 0,5,20,50 [0]",
    )
    wh.add_argument("--noise-seed", type=int, default=None, help="noise seed [the episode's seed]")
    wh.add_argument("--policy", default="oracle", help="oracle, stale, wait or llm [oracle]")
    wh.add_argument(
        "--scenario", default=None, help="drift scenario: audit, barcode, move, canceled-order"
    )
    wh.add_argument("--drift-at", type=int, default=None, help="drift event index [horizon // 2]")
    wh.add_argument(
        "--retries", type=int, default=2, help="rollback-retries per event (bad reply/schema) [2]"
    )
    wh.add_argument(
        "--env-retries", type=int, default=0, help="environment rejections per event [0]"
    )
    wh.add_argument(
        "--window-chars", type=int, default=None, help="window runtime's prompt budget (chars)"
    )
    wh.add_argument("--llm-model", default=None, help="overrides SKILLSTATE_LLM_MODEL")
    wh.add_argument("--llm-base-url", default=None, help="overrides SKILLSTATE_LLM_BASE_URL")
    wh.add_argument("--json", action="store_true", help="print JSON (runs and summary)")
    wh.add_argument("--turns", action="store_true", help="with --json: every turn of every run")
    progress = wh.add_mutually_exclusive_group()
    progress.add_argument("--progress", action="store_true", default=None, help="force the bar")
    progress.add_argument("--no-progress", dest="progress", action="store_false")


def _runtimes(text: str) -> list[str]:
    from .bench.runtimes import RUNTIMES

    if text.strip() == "all":
        return list(_ALL_RUNTIMES)
    names = [part.strip() for part in text.split(",") if part.strip()]
    bad = [n for n in names if n not in RUNTIMES]
    if bad or not names:
        raise ValueError(
            f"unknown runtime {', '.join(bad) or repr(text)}; choose from {', '.join(RUNTIMES)} or all"
        )
    return names


def run(ctx: CliContext) -> int:
    from skillstate.plugin.runtime import Runtime

    from .bench.policies import POLICIES, make_policy
    from .bench.report import Progress, format_runs, format_summary, summarize
    from .bench.runner import EpisodeConfig, run_episode
    from .bench.runtimes import DEFAULT_WINDOW_CHARS

    args = ctx.args
    try:
        runtimes = _runtimes(args.runtime)
    except ValueError as exc:
        ctx.error(str(exc))
        return 2
    if args.policy not in POLICIES:
        ctx.error(f"unknown policy {args.policy!r}; choose one of {', '.join(POLICIES)}")
        return 2
    if args.seeds < 1 or args.retries < 0 or args.env_retries < 0:
        ctx.error("--seeds must be at least 1; --retries and --env-retries at least 0")
        return 2
    if any(h < 1 for h in args.horizon):
        ctx.error("--horizon values must be at least 1")
        return 2
    configs = [
        EpisodeConfig(
            runtime=runtime,
            horizon=horizon,
            seed=args.seed_base + i,
            noise=noise,
            noise_seed=args.noise_seed,
            scenario=args.scenario,
            drift_at=args.drift_at,
            retries=args.retries,
            env_retries=args.env_retries,
            window_chars=args.window_chars or DEFAULT_WINDOW_CHARS,
        )
        for runtime in runtimes
        for horizon in args.horizon
        for noise in args.noise
        for i in range(args.seeds)
    ]
    total = sum(c.horizon for c in configs)
    show = args.progress if args.progress is not None else (ctx.err.isatty() and total >= 500)
    bar = Progress(total, ctx.err, enabled=bool(show))
    store = args.store or "memory:"
    runs: list[dict[str, Any]] = []
    with Runtime(store, host=ctx.host) as runtime:
        for config in configs:
            options = {}
            if args.policy == "llm":
                options = {"model": args.llm_model, "base_url": args.llm_base_url}
            try:
                policy = make_policy(args.policy, **options)
            except ValueError as exc:
                ctx.error(str(exc))
                return 2
            result = run_episode(config, policy, runtime)
            runs.append(result.to_dict(turns=args.turns))
            bar.advance(config.horizon, f"{config.runtime} T={config.horizon} seed={config.seed}")
    bar.finish()
    summary = summarize(runs)
    if args.json:
        print(json.dumps({"runs": runs, "summary": summary}, indent=2), file=ctx.out)
        return 0
    print(format_runs(runs), file=ctx.out)
    if len(runs) > 1:
        print("\nmean ± SD over seeds\n" + format_summary(summary), file=ctx.out)
    return 0
