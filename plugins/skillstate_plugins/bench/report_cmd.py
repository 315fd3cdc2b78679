"""``skillstate bench report`` and ``skillstate bench plot``: tables and figures from a results file.

Neither needs a plugin: a results file is self-describing. Exit codes: 0 done, 2 a
results file that cannot be read, an output that cannot be written, bad usage.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .results import SETTING_FIELDS

if TYPE_CHECKING:
    from skillstate.plugin.cli import CliContext

__all__ = ["WHERE_FIELDS", "plot", "report"]


def _read(ctx: CliContext, path: Path) -> list[dict[str, Any]] | None:
    from .results import ResultsError, load_results

    try:
        loaded = load_results(path)
    except ResultsError as exc:
        ctx.error(str(exc))
        return None
    torn = f"a torn last line ({loaded.torn_bytes} bytes)" if loaded.torn_bytes else ""
    if not loaded.runs:
        ctx.error(f"{path} holds no finished episode" + (f", only {torn}" if torn else ""))
        return None
    if torn:
        ctx.error(f"warning: {path}: ignoring {torn}")
    return loaded.runs


def _write(ctx: CliContext, target: Path, write: Callable[[TextIO], None]) -> bool:
    """``write`` to ``target`` (``-``: stdout); ``False`` after one line saying why it could not."""
    if str(target) == "-":
        write(ctx.out)
        return True
    try:
        with target.open("w", encoding="utf-8", newline="") as handle:
            write(handle)
    except OSError as exc:
        ctx.error(f"cannot write {target}: {exc.strerror or exc}")
        return False
    return True


def report(ctx: CliContext) -> int:
    """``skillstate bench report RESULTS``."""
    from .report import (
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
        if not _write(ctx, target, functools.partial(write_csv, flat)):
            return 2
    if args.json:
        print(json.dumps({"summary": summary, "differences": differences}, indent=2), file=ctx.out)
        return 0
    if "-" in (str(args.csv), str(args.csv_runs)):
        return 0
    benchmarks = sorted({str(r.get("benchmark")) for r in runs})
    print(f"{len(runs)} episodes of {', '.join(benchmarks)} from {args.results}", file=ctx.out)
    if args.runs:
        print("\n" + format_runs(runs), file=ctx.out)
    print(
        "\nmean ± SD over seeds, 95% CI (Student's t); totals: every prompt sent "
        "(Memory's summary calls included)\n" + format_summary(summary),
        file=ctx.out,
    )
    if differences:
        print(
            "\npaired by seed, against SKILL.state\n" + format_differences(differences),
            file=ctx.out,
        )
    return 0


WHERE_FIELDS = ("model", *SETTING_FIELDS)


def _where(items: list[str] | None) -> dict[str, Any] | str:
    """``FIELD=VALUE`` options as a filter (the value read as JSON when it is JSON), or the problem."""
    found: dict[str, Any] = {}
    for item in items or []:
        field, equals, text = item.partition("=")
        field = field.strip()
        if not equals or field not in WHERE_FIELDS:
            return f"--where takes FIELD=VALUE with FIELD one of {', '.join(WHERE_FIELDS)}; got {item!r}"
        try:
            found[field] = json.loads(text)
        except ValueError:
            found[field] = text
    return found


def plot(ctx: CliContext) -> int:
    """``skillstate bench plot RESULTS -o FILE``."""
    from .plot import MissingPlotting, draw, save, select

    args = ctx.args
    suffix = args.output.suffix.lower()
    if suffix not in (".png", ".svg"):
        ctx.error(f"-o must name a .png or .svg file, got {args.output}")
        return 2
    where = _where(args.where)
    if isinstance(where, str):
        ctx.error(where)
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
    if where:
        runs = select(runs, where)
        if not runs:
            ctx.error(f"{args.results} has no episode with {' '.join(args.where)}")
            return 2
    try:
        figure = draw(runs, args.figure, title=args.title or "")
    except MissingPlotting as exc:
        ctx.error(str(exc))
        return 3  # a missing extra is exit 3, as for mcp, ui and postgres (docs/cli.md)
    except ValueError as exc:
        ctx.error(f"{args.results}: {exc}")
        return 2
    try:
        save(figure, str(args.output))
    except OSError as exc:
        ctx.error(f"cannot write {args.output}: {exc.strerror or exc}")
        return 2
    print(f"wrote {args.output}", file=ctx.out)
    return 0
