"""``skillstate bench``: run a registered benchmark, or report on and plot a results file.

    skillstate bench warehouse --runtime all --horizon 10,25,50,100,200 --seeds 5
    skillstate bench repo --policy llm --runtime all --seeds 5 --out runs.jsonl --concurrency 4
    skillstate bench report runs.jsonl [--csv summary.csv] [--json]
    skillstate bench plot runs.jsonl -o figure.png

Benchmarks come from plugins (``skillstate_register_benchmarks``); every one takes the
same options. Episodes run through the session runtime on ``--store`` (default
``memory:``). Exit codes: 0 done, 2 bad usage, 3 the model endpoint failed (after its
retries; the finished episodes are kept), 130 interrupted (Ctrl-C; likewise).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillstate.bench.spec import BenchmarkSpec, EpisodeConfig
    from skillstate.cli.context import CliContext
    from skillstate.host import Host

__all__ = ["ENDPOINT_FAILED", "INTERRUPTED", "configure", "run"]

ENDPOINT_FAILED = 3
INTERRUPTED = 130
_NOISE_LEVELS = {"none": 0, "low": 5, "medium": 20, "high": 50}


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
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        out += [_NOISE_LEVELS[part]] if part in _NOISE_LEVELS else _ints(part)
    return out


def _benchmark_options(parser: argparse.ArgumentParser, spec: BenchmarkSpec) -> None:
    from skillstate.bench.spec import RUNTIMES

    policies = ", ".join([*spec.policies, "wait", "llm"])
    parser.add_argument(
        "--runtime",
        default="skill-state",
        help=f"{', '.join(RUNTIMES)}; comma-separated, or 'all' (the paper's four) [skill-state]",
    )
    parser.add_argument(
        "--horizon", type=_ints, default=[50], help="events per episode, e.g. 10,25 [50]"
    )
    parser.add_argument("--seeds", type=int, default=1, help="episodes per setting [1]")
    parser.add_argument("--seed-base", type=int, default=42, help="first seed [42]")
    parser.add_argument(
        "--noise",
        type=_noise,
        default=[0],
        help="telemetry lines per observation, e.g. 0,5,20,50 [0]",
    )
    parser.add_argument(
        "--noise-seed", type=int, default=None, help="noise seed [the episode's seed]"
    )
    parser.add_argument("--policy", default="oracle", help=f"{policies} [oracle]")
    scenarios = f": {', '.join(spec.scenarios)}" if spec.scenarios else ""
    parser.add_argument("--scenario", default=None, help=f"drift scenario{scenarios}")
    parser.add_argument(
        "--drift-at", type=int, default=None, help="drift event index [horizon // 2]"
    )
    parser.add_argument(
        "--retries", type=int, default=2, help="rollback-retries per event (bad reply/schema) [2]"
    )
    parser.add_argument(
        "--env-retries", type=int, default=0, help="environment rejections per event [0]"
    )
    parser.add_argument(
        "--window-chars",
        type=int,
        default=None,
        help=f"window runtime's prompt budget [{spec.window_chars}]",
    )
    parser.add_argument(
        "--strict-parse", action="store_true", help="no repairs: a reply needing one is a failure"
    )
    parser.add_argument(
        "--memory-summary",
        choices=("auto", "extractive", "model"),
        default="auto",
        help="memory runtime's summary: the benchmark's lines, or written by the model "
        "[auto: model for --policy llm]",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="append one JSON line per finished episode"
    )
    parser.add_argument(
        "--resume", action="store_true", help="with --out: skip episodes already in it"
    )
    parser.add_argument("--concurrency", type=int, default=1, help="episodes run in parallel [1]")
    llm = parser.add_argument_group("llm policy (any OpenAI-compatible endpoint)")
    llm.add_argument("--llm-model", default=None, help="overrides SKILLSTATE_LLM_MODEL")
    llm.add_argument("--llm-base-url", default=None, help="overrides SKILLSTATE_LLM_BASE_URL")
    llm.add_argument("--temperature", type=float, default=0.0, help="sampling temperature [0.0]")
    llm.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling [1.0]")
    llm.add_argument(
        "--max-tokens", type=int, default=None, help="completion limit [the endpoint's]"
    )
    llm.add_argument("--timeout", type=float, default=120.0, help="seconds per HTTP call [120]")
    llm.add_argument(
        "--http-retries", type=int, default=3, help="retries of a failed HTTP call [3]"
    )
    parser.add_argument(
        "--json", action="store_true", help="print JSON (runs, summary, differences)"
    )
    parser.add_argument(
        "--turns", action="store_true", help="with --json or --out: every turn of every run"
    )
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress", action="store_true", default=None,
        help="show progress (a bar on a terminal, plain lines elsewhere) [for llm runs]",
    )  # fmt: skip
    progress.add_argument("--no-progress", dest="progress", action="store_false")
    parser.set_defaults(_benchmark=spec.name)


def _host_for_help() -> Host:
    from skillstate.cli.context import current_host

    found = current_host()
    if found is not None:
        return found
    from skillstate.host import Host

    return Host.from_config()


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bench", metavar="BENCHMARK", required=True)
    host = _host_for_help()
    for spec in host.benchmarks:
        owner = host.benchmarks.owner(spec.name)
        child = sub.add_parser(
            spec.name,
            help=spec.help,
            description=f"{spec.description or spec.help} (plugin {owner})",
        )
        _benchmark_options(child, spec)
    report = sub.add_parser(
        "report", help="tables from a results file: mean ± SD, 95%% CI, paired differences"
    )
    report.add_argument("results", type=Path, metavar="RESULTS", help="a --out file")
    report.add_argument("--runs", action="store_true", help="also one row per episode")
    report.add_argument("--json", action="store_true", help="print JSON (summary, differences)")
    report.add_argument(
        "--csv", type=Path, default=None, help="write the summary as CSV ('-': stdout)"
    )
    report.add_argument("--csv-runs", type=Path, default=None, help="write one CSV row per episode")
    report.set_defaults(_benchmark="report")
    plot = sub.add_parser("plot", help="the paper's figures from a results file (matplotlib)")
    plot.add_argument("results", type=Path, metavar="RESULTS", help="a --out file")
    plot.add_argument("-o", "--output", type=Path, required=True, help="FILE.png or FILE.svg")
    plot.add_argument(
        "--figure", action="append", choices=("prompt", "total", "horizon", "noise"),
        help="a panel to draw (repeatable) [every one the data supports]",
    )  # fmt: skip
    plot.add_argument(
        "--benchmark", default=None, help="the benchmark to plot, if the file holds several"
    )
    plot.add_argument("--title", default=None, help="a title above the panels")
    plot.set_defaults(_benchmark="plot")


def _runtimes(text: str) -> list[str]:
    from skillstate.bench.spec import PAPER_RUNTIMES, RUNTIMES

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
    if args.resume and args.out is None:
        return "--resume needs --out RESULTS.jsonl (the file to continue)"
    return None


def _policy_factory(
    spec: BenchmarkSpec, args: argparse.Namespace
) -> tuple[Callable[[], Any], dict[str, Any]]:
    from skillstate.bench.policies import WaitPolicy

    none = dict.fromkeys(
        ("model", "endpoint", "temperature", "top_p", "max_tokens", "timeout_s", "http_retries")
    )
    if args.policy == "wait":
        return (lambda: WaitPolicy(spec.wait_action)), none
    if args.policy == "llm":
        from skillstate.bench.llm import ChatCompletionsPolicy

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
    from skillstate.bench.spec import EpisodeConfig

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
            window_chars=args.window_chars or spec.window_chars,
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


def _run_benchmark(ctx: CliContext, spec: BenchmarkSpec) -> int:
    from skillstate._version import __version__
    from skillstate.bench.progress import Progress
    from skillstate.bench.report import format_runs, format_summary, paired_differences, summarize
    from skillstate.bench.results import ResultsError, ResultsFile, episode_key
    from skillstate.bench.sweep import run_sweep

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
    settings = {**settings, "skillstate_version": __version__}
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
            previous = {
                line.get("key") or episode_key(line): line for line in results.open_for_append()
            }
        except (ResultsError, OSError) as exc:
            ctx.error(str(exc))
            return 2
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
        )
    finally:
        if results is not None:
            results.close()
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
        ctx.error(f"interrupted; {finished}")
        return INTERRUPTED
    return 0


def _read(ctx: CliContext, path: Path) -> list[dict[str, Any]] | None:
    from skillstate.bench.results import ResultsError, read_results

    try:
        runs = read_results(path)
    except ResultsError as exc:
        ctx.error(str(exc))
        return None
    if not runs:
        ctx.error(f"{path} holds no finished episode")
        return None
    return runs


def _report(ctx: CliContext) -> int:
    from skillstate.bench.report import (
        format_differences,
        format_runs,
        format_summary,
        paired_differences,
        summarize,
        write_csv,
    )

    args = ctx.args
    runs = _read(ctx, args.results)
    if runs is None:
        return 2
    summary, differences = summarize(runs), paired_differences(runs)
    for target, rows in ((args.csv, summary), (args.csv_runs, runs)):
        if target is None:
            continue
        flat = [
            {k: v for k, v in r.items() if k not in ("turns", "prompt_chars_per_call")}
            for r in rows
        ]
        if str(target) == "-":
            write_csv(flat, ctx.out)
        else:
            with target.open("w", encoding="utf-8", newline="") as handle:
                write_csv(flat, handle)
    if args.json:
        print(json.dumps({"summary": summary, "differences": differences}, indent=2), file=ctx.out)
        return 0
    if args.csv is not None and str(args.csv) == "-":
        return 0
    benchmarks = sorted({str(r.get("benchmark")) for r in runs})
    print(f"{len(runs)} episodes of {', '.join(benchmarks)} from {args.results}", file=ctx.out)
    if args.runs:
        print("\n" + format_runs(runs), file=ctx.out)
    print("\nmean ± SD over seeds, 95% CI (Student's t)\n" + format_summary(summary), file=ctx.out)
    if differences:
        print(
            "\npaired by seed, against SKILL.state\n" + format_differences(differences),
            file=ctx.out,
        )
    return 0


def _plot(ctx: CliContext) -> int:
    from skillstate.bench.plot import MissingPlotting, draw, save

    args = ctx.args
    suffix = args.output.suffix.lower()
    if suffix not in (".png", ".svg"):
        ctx.error(f"-o must name a .png or .svg file, got {args.output}")
        return 2
    runs = _read(ctx, args.results)
    if runs is None:
        return 2
    benchmarks = sorted({str(r.get("benchmark")) for r in runs})
    if args.benchmark:
        runs = [r for r in runs if r.get("benchmark") == args.benchmark]
        if not runs:
            ctx.error(
                f"{args.results} has no episode of benchmark {args.benchmark!r} ({', '.join(benchmarks)})"
            )
            return 2
    elif len(benchmarks) > 1:
        ctx.error(f"{args.results} holds {', '.join(benchmarks)}; choose one with --benchmark")
        return 2
    try:
        figure = draw(runs, args.figure, title=args.title or "")
    except MissingPlotting as exc:
        ctx.error(str(exc))
        return 2
    except ValueError as exc:
        ctx.error(str(exc))
        return 2
    save(figure, str(args.output))
    print(f"wrote {args.output}", file=ctx.out)
    return 0


def run(ctx: CliContext) -> int:
    name = ctx.args._benchmark
    if name == "report":
        return _report(ctx)
    if name == "plot":
        return _plot(ctx)
    spec = ctx.host.benchmarks.get(name)
    if spec is None:  # pragma: no cover - argparse only offers registered names
        ctx.error(f"unknown benchmark {name!r}")
        return 2
    try:
        return _run_benchmark(ctx, spec)
    except BrokenPipeError:
        sys.stderr.close()
        return 0
