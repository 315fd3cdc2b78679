"""Reporting: the per-run table, the mean ± SD summary over seeds, and a progress bar."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

__all__ = ["Progress", "format_runs", "format_summary", "summarize"]

_RUN_COLUMNS = (
    ("runtime", "runtime"),
    ("T", "horizon"),
    ("seed", "seed"),
    ("noise", "noise"),
    ("score", "score"),
    ("avg chars", "avg_prompt_chars"),
    ("max chars", "max_prompt_chars"),
    ("avg tok~", "avg_prompt_tokens_est"),
    ("max tok~", "max_prompt_tokens_est"),
    ("total chars", "total_prompt_chars"),
    ("total tok~", "total_prompt_tokens_est"),
    ("calls", "calls"),
    ("rejections", "rejections"),
    ("recovery", "recovery"),
)


def _cell(key: str, value: Any) -> str:
    if key == "score":
        return f"{value:.2f}"
    if key == "rejections":
        return ", ".join(f"{k}={v}" for k, v in value.items()) or "-"
    if key == "recovery":
        if not value:
            return "-"
        if value["recovered"]:
            return f"yes, lag {value['lag']}"
        return f"no ({value['stale_turns']} stale)"
    if isinstance(value, float):
        return f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells))
    return "\n".join(lines)


def format_runs(runs: Sequence[Mapping[str, Any]]) -> str:
    """One row per episode."""
    headers = [h for h, _ in _RUN_COLUMNS]
    rows = [[_cell(k, run[k]) for _, k in _RUN_COLUMNS] for run in runs]
    return _table(headers, rows)


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values) if len(values) > 1 else 0.0


def summarize(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Mean and sample SD over seeds, per (runtime, policy, T, noise, scenario)."""
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for run in runs:
        key = (run["runtime"], run["policy"], run["horizon"], run["noise"], run["scenario"])
        groups.setdefault(key, []).append(run)
    out = []
    for (runtime, policy, horizon, noise, scenario), group in groups.items():
        row: dict[str, Any] = {
            "runtime": runtime,
            "policy": policy,
            "horizon": horizon,
            "noise": noise,
            "scenario": scenario,
            "seeds": len(group),
        }
        for name in ("score", "avg_prompt_chars", "total_prompt_chars", "total_prompt_tokens_est"):
            mean, sd = _mean_sd([float(r[name]) for r in group])
            row[name] = round(mean, 4 if name == "score" else 1)
            row[name + "_sd"] = round(sd, 4 if name == "score" else 1)
        out.append(row)
    return out


def format_summary(summary: Sequence[Mapping[str, Any]]) -> str:
    """Mean ± SD over seeds (Table 1's columns, with characters and token estimates)."""
    headers = ["runtime", "T", "noise", "seeds", "score", "avg chars", "total chars", "total tok~"]
    rows = []
    for row in summary:
        rows.append(
            [
                str(row["runtime"]),
                str(row["horizon"]),
                str(row["noise"]),
                str(row["seeds"]),
                f"{row['score']:.2f} ±{row['score_sd']:.2f}",
                f"{row['avg_prompt_chars']:,.0f} ±{row['avg_prompt_chars_sd']:,.0f}",
                f"{row['total_prompt_chars']:,.0f} ±{row['total_prompt_chars_sd']:,.0f}",
                f"{row['total_prompt_tokens_est']:,.0f}",
            ]
        )
    return _table(headers, rows)


class Progress:
    """A one-line progress bar on ``stream`` (redrawn in place), silent when disabled."""

    def __init__(self, total: int, stream: TextIO, *, enabled: bool, width: int = 30) -> None:
        self.total, self.stream, self.enabled, self.width = max(total, 1), stream, enabled, width
        self.done = 0

    def advance(self, steps: int, label: str = "") -> None:
        self.done += steps
        if not self.enabled:
            return
        filled = int(self.width * min(self.done, self.total) / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} steps {label:<40.40}")
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
