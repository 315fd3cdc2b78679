"""``skillstate bench NAME``: options checked, episodes configured, the sweep run, the runs printed.

The command line's ``bench`` (:mod:`skillstate_plugins.bench.command`) hands a benchmark's
parsed options here. Exit codes: 0 done, 2 bad usage, 3 the model endpoint failed
(after its retries; the finished episodes are kept), 130 interrupted (Ctrl-C; likewise),
143 terminated (SIGTERM, ``kill PID``; likewise), 141 the output's reader went away
(``… | head``: the sweep stops at once, prints nothing more, keeps the finished episodes).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from skillstate.plugin.cli import CliContext

    from .spec import BenchmarkSpec, EpisodeConfig

__all__ = ["CLOSED", "ENDPOINT_FAILED", "INTERRUPTED", "TERMINATED", "run_benchmark"]

ENDPOINT_FAILED = 3
INTERRUPTED = 130
CLOSED = 141
TERMINATED = 143


def _reader_gone(stream: TextIO) -> Callable[[], bool] | None:
    """For a pipe or socket: a check that is true once its reader closed it (``| head``)."""
    try:
        fd = stream.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode) and not stat.S_ISSOCK(os.fstat(fd).st_mode):
            return None
    except (AttributeError, OSError, ValueError):
        return None
    poller = select.poll()
    poller.register(fd, 0)  # no events asked: only the error and hang-up that poll always reports
    gone = select.POLLERR | select.POLLHUP
    return lambda: any(event & gone for _fd, event in poller.poll(0))


def _runtimes(text: str) -> list[str]:
    from .spec import PAPER_RUNTIMES, RUNTIMES

    if text.strip() == "all":
        return list(PAPER_RUNTIMES)
    names = [part.strip() for part in text.split(",") if part.strip()]
    bad = [n for n in names if n not in RUNTIMES]
    if bad or not names:
        raise ValueError(
            f"unknown runtime {', '.join(bad) or repr(text)}; choose from {', '.join(RUNTIMES)} or all"
        )
    return names


def _usage(args: argparse.Namespace, spec: BenchmarkSpec) -> str | None:
    if args.policy not in (*spec.policies, "wait", "llm"):
        return f"unknown policy {args.policy!r}; choose one of {', '.join([*spec.policies, 'wait', 'llm'])}"
    if args.seeds < 1 or args.retries < 0 or args.env_retries < 0:
        return "--seeds must be at least 1; --retries and --env-retries at least 0"
    if any(h < 1 for h in args.horizon):
        return "--horizon values must be at least 1"
    if args.concurrency < 1:
        return "--concurrency must be at least 1"
    if args.window_chars is not None and args.window_chars < 1:
        return f"--window-chars must be a budget of at least 1 character, got {args.window_chars}"
    if args.resume and args.out is None:
        return "--resume needs --out RESULTS.jsonl (the file to continue)"
    return None


def _policy_factory(
    spec: BenchmarkSpec, args: argparse.Namespace
) -> tuple[Callable[[], Any], dict[str, Any]]:
    from .policies import WaitPolicy

    none = dict.fromkeys(
        ("model", "endpoint", "temperature", "top_p", "max_tokens", "timeout_s", "http_retries")
    )
    if args.policy == "wait":
        return (lambda: WaitPolicy(spec.wait_action)), none
    if args.policy == "llm":
        from .llm import ChatCompletionsPolicy

        llm = ChatCompletionsPolicy.from_environment(
            model=args.llm_model,
            base_url=args.llm_base_url,
            temperature=args.temperature,
            top_p=args.top_p,
            max_tokens=args.max_tokens,
            timeout=args.timeout,
            http_retries=args.http_retries,
        )
        return (lambda: llm), llm.settings()
    factory = spec.policies[args.policy]
    return (lambda: factory()), none


def _configs(
    spec: BenchmarkSpec, args: argparse.Namespace, runtimes: list[str]
) -> list[EpisodeConfig]:
    from .spec import EpisodeConfig

    summary = args.memory_summary
    if summary == "auto":
        summary = "model" if args.policy == "llm" else "extractive"
    return [
        EpisodeConfig(
            benchmark=spec.name,
            runtime=runtime,
            horizon=horizon,
            seed=args.seed_base + i,
            noise=noise,
            noise_seed=args.noise_seed,
            scenario=args.scenario,
            drift_at=args.drift_at,
            retries=args.retries,
            env_retries=args.env_retries,
            window_chars=spec.window_chars if args.window_chars is None else args.window_chars,
            strict_parse=args.strict_parse,
            memory_summary=summary if runtime == "memory" else "extractive",
        )
        for runtime in runtimes
        for horizon in args.horizon
        for noise in args.noise
        for i in range(args.seeds)
    ]


def _check_options(ctx: CliContext, spec: BenchmarkSpec, configs: list[EpisodeConfig]) -> None:
    """Build the environment once per distinct options: a bad option fails before anything runs."""
    env = ctx.host.environment(spec.environment)
    seen: set[str] = set()
    for config in configs:
        options = spec.environment_options(config)
        key = json.dumps(options, sort_keys=True)
        if key not in seen:
            seen.add(key)
            env.factory(options, None)


def run_benchmark(ctx: CliContext, spec: BenchmarkSpec) -> int:
    """``skillstate bench NAME``: check the options, run the sweep, print the runs."""
    from importlib.metadata import version

    from .progress import Progress
    from .report import format_runs, format_summary, paired_differences, summarize
    from .results import ResultsError, ResultsFile, episode_key
    from .sweep import run_sweep

    args = ctx.args
    try:
        runtimes = _runtimes(args.runtime)
    except ValueError as exc:
        ctx.error(str(exc))
        return 2
    problem = _usage(args, spec)
    if problem:
        ctx.error(problem)
        return 2
    try:
        make_policy, settings = _policy_factory(spec, args)
    except ValueError as exc:
        ctx.error(str(exc))
        return 2
    configs = _configs(spec, args, runtimes)
    _check_options(ctx, spec, configs)
    policy_name = str(make_policy().name)
    settings = {**settings, "skillstate_version": version("skillstate")}
    results = None
    previous: dict[str, dict[str, Any]] = {}
    if args.out is not None:
        results = ResultsFile(args.out)
        if results.exists() and not args.resume:
            ctx.error(
                f"{args.out} already holds results; add --resume to continue it, or choose another --out"
            )
            return 2
        try:
            previous = {episode_key(line): line for line in results.open_for_append()}
        except ResultsError as exc:
            ctx.error(str(exc))
            return 2
        if results.cut_bytes:
            ctx.error(f"{args.out}: cut off a torn last line ({results.cut_bytes} bytes)")
    keys = [episode_key({**c.settings(), "policy": policy_name, **settings}) for c in configs]
    todo = [c for c, k in zip(configs, keys, strict=True) if k not in previous]
    if args.resume and len(todo) < len(configs):
        print(
            f"skillstate: resuming {args.out}: {len(configs) - len(todo)} of {len(configs)} "
            "episodes are done",
            file=ctx.err,
        )
    show = args.progress if args.progress is not None else args.policy == "llm"
    mode = ("bar" if ctx.err.isatty() else "lines") if show else "off"
    progress = Progress(len(todo), sum(c.horizon for c in todo), ctx.err, mode=mode)
    try:
        outcome = run_sweep(
            spec,
            todo,
            make_policy,
            store=args.store or "memory:",
            host=ctx.host,
            settings=settings,
            concurrency=args.concurrency,
            results=results,
            progress=progress,
            turns=args.turns,
            closed=_reader_gone(ctx.out),
        )
    finally:
        if results is not None:
            results.close()
    if outcome.closed:  # nobody reads the runs: print nothing more (the results file is kept)
        return CLOSED
    if mode != "off" and not outcome.interrupted:
        progress.finish()
    new = {line["key"]: line for line in outcome.runs}
    runs = [previous.get(k) or new[k] for k in keys if k in previous or k in new]
    if args.json:
        print(
            json.dumps(
                {"runs": runs, "summary": summarize(runs), "differences": paired_differences(runs)},
                indent=2,
            ),
            file=ctx.out,
        )
    elif runs:
        print(format_runs(runs), file=ctx.out)
        if len(runs) > 1:
            print("\nmean ± SD over seeds\n" + format_summary(summarize(runs)), file=ctx.out)
    where = f" are in {args.out} (--resume continues)" if args.out else " are printed above"
    finished = f"{len(outcome.runs)} episode{'s' * (len(outcome.runs) != 1)} finished{where}"
    if outcome.error:
        ctx.error(f"{outcome.error}; {finished}")
        return ENDPOINT_FAILED
    if outcome.interrupted:
        print(file=ctx.err)
        ctx.error(f"{'terminated' if outcome.terminated else 'interrupted'}; {finished}")
        return TERMINATED if outcome.terminated else INTERRUPTED
    return 0
