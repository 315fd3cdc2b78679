"""Tables from episodes: one row per run, mean ± SD with a 95% CI per setting, paired differences.

A *setting* is everything but the seed: (benchmark, policy, T, noise, scenario,
runtime). :func:`summarize` gives each setting's mean, sample SD and 95% interval of
the score and of the prompt sizes over its seeds; :func:`paired_differences` compares
every runtime with SKILL.state on the seeds both ran (score difference, its interval,
t and significance). :func:`write_csv` writes either table as CSV.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from skillstate.bench.stats import estimate, paired

__all__ = [
    "format_differences",
    "format_runs",
    "format_summary",
    "paired_differences",
    "summarize",
    "write_csv",
]

_SETTING = ("benchmark", "policy", "horizon", "noise", "scenario")
_METRICS = (
    "score",
    "avg_prompt_chars",
    "total_prompt_chars",
    "avg_prompt_tokens_est",
    "total_prompt_tokens_est",
    "usage_prompt_tokens",
    "calls",
)

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
    rows = [[_cell(k, run.get(k)) for _, k in _RUN_COLUMNS] for run in runs]
    return _table(headers, rows)


def _groups(runs: Sequence[Mapping[str, Any]]) -> dict[tuple[Any, ...], list[Mapping[str, Any]]]:
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for run in runs:
        key = (*(run.get(k) for k in _SETTING), run["runtime"])
        groups.setdefault(key, []).append(run)
    return groups


def summarize(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per setting: seeds, and mean, SD, 95% CI of the score and the prompt sizes."""
    out = []
    for key, group in _groups(runs).items():
        row: dict[str, Any] = dict(zip((*_SETTING, "runtime"), key, strict=True))
        row["seeds"] = len(group)
        for name in _METRICS:
            values = [float(r[name]) for r in group if r.get(name) is not None]
            if not values:
                continue
            found = estimate(values)
            digits = 4 if name == "score" else 1
            row[name] = round(found.mean, digits)
            row[name + "_sd"] = round(found.sd, digits)
            row[name + "_ci95"] = [round(found.low, digits), round(found.high, digits)]
        out.append(row)
    return out


def paired_differences(
    runs: Sequence[Mapping[str, Any]], baseline: str = "skill-state"
) -> list[dict[str, Any]]:
    """Each runtime's score minus the baseline's, paired by seed, per setting."""
    by_setting: dict[tuple[Any, ...], dict[str, dict[int, float]]] = {}
    for run in runs:
        setting = tuple(run.get(k) for k in _SETTING)
        by_setting.setdefault(setting, {}).setdefault(run["runtime"], {})[run["seed"]] = float(
            run["score"]
        )
    out = []
    for setting, by_runtime in by_setting.items():
        base = by_runtime.get(baseline)
        if base is None:
            continue
        for runtime, scores in by_runtime.items():
            if runtime == baseline:
                continue
            seeds = sorted(set(scores) & set(base))
            if not seeds:
                continue
            found = paired([scores[s] for s in seeds], [base[s] for s in seeds])
            out.append(
                {
                    **dict(zip(_SETTING, setting, strict=True)),
                    "runtime": runtime,
                    "versus": baseline,
                    "seeds": len(seeds),
                    "score_difference": round(found.mean, 4),
                    "sd": round(found.sd, 4),
                    "ci95": [round(found.low, 4), round(found.high, 4)],
                    "t": None if found.t is None else round(found.t, 3),
                    "p": found.significance or None,
                }
            )
    return out


def _ci(row: Mapping[str, Any], name: str, fmt: str) -> str:
    low, high = row[name + "_ci95"]
    return f"[{format(low, fmt)}, {format(high, fmt)}]"


def format_summary(summary: Sequence[Mapping[str, Any]]) -> str:
    """Mean ± SD and the 95% CI over seeds (Table 1's columns: characters and token estimates)."""
    headers = [
        "runtime", "T", "noise", "scenario", "seeds", "score", "95% CI",
        "avg chars", "total chars", "total tok~",
    ]  # fmt: skip
    rows = []
    for row in summary:
        rows.append(
            [
                str(row["runtime"]),
                str(row["horizon"]),
                str(row["noise"]),
                str(row["scenario"] or "-"),
                str(row["seeds"]),
                f"{row['score']:.2f} ±{row['score_sd']:.2f}",
                _ci(row, "score", ".2f"),
                f"{row['avg_prompt_chars']:,.0f} ±{row['avg_prompt_chars_sd']:,.0f}",
                f"{row['total_prompt_chars']:,.0f} ±{row['total_prompt_chars_sd']:,.0f}",
                f"{row['total_prompt_tokens_est']:,.0f}",
            ]
        )
    return _table(headers, rows)


def format_differences(differences: Sequence[Mapping[str, Any]]) -> str:
    """The paired score differences against SKILL.state."""
    headers = ["runtime", "T", "noise", "scenario", "seeds", "score − SKILL.state", "95% CI", "p"]
    rows = [
        [
            str(d["runtime"]),
            str(d["horizon"]),
            str(d["noise"]),
            str(d["scenario"] or "-"),
            str(d["seeds"]),
            f"{d['score_difference']:+.2f} ±{d['sd']:.2f}",
            f"[{d['ci95'][0]:+.2f}, {d['ci95'][1]:+.2f}]",
            str(d["p"] or "-"),
        ]
        for d in differences
    ]
    return _table(headers, rows)


def write_csv(rows: Sequence[Mapping[str, Any]], out: TextIO) -> None:
    """``rows`` as CSV: one column per key (in first-seen order); lists and objects as JSON."""
    import json

    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        cells = []
        for column in columns:
            value = row.get(column)
            if isinstance(value, list | dict):
                value = json.dumps(value, separators=(",", ":"))
            cells.append("" if value is None else value)
        writer.writerow(cells)
