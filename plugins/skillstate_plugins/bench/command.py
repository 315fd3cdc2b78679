"""``skillstate bench``: run a registered benchmark, or report on and plot a results file.

    skillstate bench warehouse --runtime all --horizon 10,25,50,100,200 --seeds 5
    skillstate bench repo --policy llm --runtime all --seeds 5 --out runs.jsonl --concurrency 4
    skillstate bench report runs.jsonl [--csv summary.csv] [--json]
    skillstate bench plot runs.jsonl -o figure.png

Benchmarks come from plugins (``skillstate_register_benchmarks``, this package's own hook:
:mod:`.hookspecs`); every one takes the same options. Episodes run through the session runtime on ``--store`` (default
``memory:``). Exit codes: 0 done, 2 bad usage, 3 the model endpoint failed (after its
retries; the finished episodes are kept), 130 interrupted (Ctrl-C; likewise).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from skillstate.plugin import Host
    from skillstate.plugin.cli import CliContext

    from .spec import BenchmarkSpec

__all__ = ["configure", "run"]


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
    from .episodes import NOISE_LEVELS as _NOISE_LEVELS

    out = []
    for part in text.split(","):
        part = part.strip().lower()
        out += [_NOISE_LEVELS[part]] if part in _NOISE_LEVELS else _ints(part)
    return out


def _benchmark_options(parser: argparse.ArgumentParser, spec: BenchmarkSpec) -> None:
    from .spec import RUNTIMES

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


def configure(parser: argparse.ArgumentParser, host: Host) -> None:
    """``bench``'s arguments: one sub-command per benchmark of ``host``, then report and plot."""
    from .spec import benchmarks

    sub = parser.add_subparsers(dest="bench", metavar="BENCHMARK", required=True)
    registry = benchmarks(host)
    for spec in registry:
        owner = registry.owner(spec.name)
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
    plot.add_argument(
        "--where", action="append", metavar="FIELD=VALUE",
        help="only the episodes with this setting (repeatable; e.g. policy=oracle, "
        "strict_parse=true): a figure shows one setting",
    )  # fmt: skip
    plot.add_argument("--title", default=None, help="a title above the panels")
    plot.set_defaults(_benchmark="plot")


def _dispatch(ctx: CliContext) -> int:
    name = ctx.args._benchmark
    if name in ("report", "plot"):
        from . import report_cmd as bench_report

        return bench_report.report(ctx) if name == "report" else bench_report.plot(ctx)
    from .spec import benchmarks

    spec = benchmarks(ctx.host).get(name)
    if spec is None:  # pragma: no cover - argparse only offers registered names
        ctx.error(f"unknown benchmark {name!r}")
        return 2
    from .run_cmd import run_benchmark

    return run_benchmark(ctx, spec)


def _quiet_stdout(stream: TextIO) -> None:
    """Point a closed pipe's descriptor at /dev/null, so the exit's flush has nowhere to fail."""
    try:
        if stream is sys.stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
            os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass


def run(ctx: CliContext) -> int:
    """Run a benchmark, ``report`` or ``plot``; a reader that went away (``| head``) ends it quietly."""
    try:
        code = _dispatch(ctx)
        ctx.out.flush()
    except BrokenPipeError:
        _quiet_stdout(ctx.out)
        return 141  # as every command whose output was closed early (docs/cli.md)
    return code
