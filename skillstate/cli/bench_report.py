"""``skillstate bench report`` and ``skillstate bench plot``: tables and figures from a results file.

Neither needs a plugin: a results file is self-describing. Exit codes: 0 done, 2 a
results file that cannot be read, an output that cannot be written, bad usage.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillstate.cli.context import CliContext

__all__ = ["plot", "report"]


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


def report(ctx: CliContext) -> int:
    """``skillstate bench report RESULTS``."""
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


def plot(ctx: CliContext) -> int:
    """``skillstate bench plot RESULTS -o FILE``."""
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
