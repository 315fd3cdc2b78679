"""Tables from episodes: one row per run, mean ± SD with a 95% CI per setting, paired differences.

A *setting* is everything of an episode's key but the seed
(:func:`~skillstate_plugins.bench.results.setting_of`: benchmark, runtime, policy, T, noise and
its seed, scenario and drift point, retries, parse and summary modes, the window's
budget, endpoint and sampling options — the two runtime-only ones counting only for
their runtime), so that the report never pools what ``--resume`` keeps apart.
:func:`summarize` gives each setting's mean, sample SD and 95% interval of the score
and of the prompt sizes over its seeds; :func:`paired_differences` compares every
runtime with SKILL.state on the seeds both ran in the same setting (score
difference, its interval, t and significance). The tables always show runtime, T,
noise and scenario, and any other setting that differs between their rows.

**Cost counts every prompt sent.** Under ``--memory-summary model`` the Memory runtime
also asks the model to fold each turn that scrolls out into its summary;
``sent_calls``, ``sent_prompt_chars`` and ``sent_prompt_tokens_est`` are the turns'
plus those summary calls, and the tables' ``total chars`` / ``total tok~`` columns are
them (``summary calls`` is shown when there are any). A drift setting's row also has its
recovery over the seeds (``recovered`` of ``recovery_seeds``, mean ``recovery_lag`` and
``stale_turns``; the ``recovery`` column). :func:`write_csv` writes either table as CSV.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from .results import RUNTIME_ONLY, SETTING_FIELDS, setting_of
from .stats import estimate, paired

__all__ = [
    "format_differences",
    "format_runs",
    "format_summary",
    "paired_differences",
    "summarize",
    "varying",
    "with_costs",
    "write_csv",
]

_FIRST = ("benchmark", "policy", "horizon", "noise", "scenario", "runtime")
"""A summary row's first columns (then the seeds and metrics, then the other settings)."""
_SHOWN = ("runtime", "horizon", "noise", "scenario")
_LABELS = {
    "benchmark": "benchmark",
    "policy": "policy",
    "noise_seed": "noise seed",
    "drift_at": "drift at",
    "retries": "retries",
    "env_retries": "env retries",
    "window_chars": "window",
    "strict_parse": "strict",
    "memory_summary": "summary",
    "endpoint": "endpoint",
    "temperature": "temp",
    "top_p": "top-p",
    "max_tokens": "max tokens",
}
_METRICS = (
    "score",
    "avg_prompt_chars",
    "total_prompt_chars",
    "avg_prompt_tokens_est",
    "total_prompt_tokens_est",
    "usage_prompt_tokens",
    "calls",
    "summary_calls",
    "summary_prompt_chars",
    "sent_calls",
    "sent_prompt_chars",
    "sent_prompt_tokens_est",
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
    ("total chars", "sent_prompt_chars"),
    ("total tok~", "sent_prompt_tokens_est"),
    ("calls", "calls"),
    ("rejections", "rejections"),
    ("recovery", "recovery"),
)


def with_costs(run: Mapping[str, Any]) -> dict[str, Any]:
    """``run`` with ``sent_calls``, ``sent_prompt_chars``, ``sent_prompt_tokens_est``: the
    turns' calls and prompts plus the Memory runtime's summary calls."""
    summary_chars = run.get("summary_prompt_chars") or 0
    summary_tokens = run.get("summary_prompt_tokens_est")
    if summary_tokens is None:  # a line written before the estimate was recorded
        summary_tokens = (summary_chars + 3) // 4
    out = dict(run)
    out["sent_calls"] = (run.get("calls") or 0) + (run.get("summary_calls") or 0)
    out["sent_prompt_chars"] = (run.get("total_prompt_chars") or 0) + summary_chars
    out["sent_prompt_tokens_est"] = (run.get("total_prompt_tokens_est") or 0) + summary_tokens
    return out


def varying(rows: Sequence[Mapping[str, Any]], skip: Sequence[str] = _SHOWN) -> list[str]:
    """The setting fields (not in ``skip``) whose value differs between two of ``rows``;
    a runtime-only field counts when it differs between rows of its runtime."""
    out = []
    for field in SETTING_FIELDS:
        if field in skip or field == "runtime":
            continue
        scope = [r for r in rows if r.get("runtime") == RUNTIME_ONLY.get(field, r.get("runtime"))]
        if len({json.dumps(r.get(field)) for r in scope}) > 1:
            out.append(field)
    return out


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if key == "score":
        return f"{value:.2f}"
    if key == "rejections":
        return ", ".join(f"{k}={v}" for k, v in value.items()) or "-"
    if key == "recovery":
        if value["recovered"]:
            return f"yes, lag {value['lag']}"
        return f"no ({value['stale_turns']} stale)"
    if isinstance(value, bool):
        return "yes" if value else "no"
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


def _settings_of_rows(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{**setting_of(r), "runtime": r.get("runtime")} for r in runs]


def format_runs(runs: Sequence[Mapping[str, Any]]) -> str:
    """One row per episode (with the settings that differ between them)."""
    extra = varying(_settings_of_rows(runs))
    columns = [*_RUN_COLUMNS[:4], *((_LABELS[f], f) for f in extra), *_RUN_COLUMNS[4:]]
    if any(r.get("summary_calls") for r in runs):
        columns.append(("summary calls", "summary_calls"))
    rows = []
    for run in runs:
        costed, setting = with_costs(run), setting_of(run)
        rows.append([_cell(k, setting[k] if k in extra else costed.get(k)) for _, k in columns])
    return _table([h for h, _ in columns], rows)


def _groups(runs: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for run in runs:
        groups.setdefault(json.dumps(setting_of(run)), []).append(run)
    return groups


def _row(setting: Mapping[str, Any]) -> dict[str, Any]:
    return {k: setting[k] for k in _FIRST}


def _rest(setting: Mapping[str, Any]) -> dict[str, Any]:
    return {k: setting[k] for k in SETTING_FIELDS if k not in _FIRST}


def summarize(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per setting: seeds, and mean, SD, 95% CI of the score and the prompt sizes.

    With one seed the SD and the interval are undefined (``None``)."""
    out = []
    for key, group in _groups(runs).items():
        setting = json.loads(key)
        row: dict[str, Any] = _row(setting)
        row["seeds"] = len(group)
        costed = [with_costs(r) for r in group]
        for name in _METRICS:
            values = [float(r[name]) for r in costed if r.get(name) is not None]
            if not values:
                continue
            found = estimate(values)
            digits = 4 if name == "score" else 1
            row[name] = round(found.mean, digits)
            row[name + "_sd"] = None if found.sd is None else round(found.sd, digits)
            row[name + "_ci95"] = (
                None
                if found.low is None or found.high is None
                else [round(found.low, digits), round(found.high, digits)]
            )
        row.update(_recovery(group))
        row.update(_rest(setting))
        out.append(row)
    return out


def _recovery(group: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A drift setting's recovery over its seeds (nothing for runs without drift):
    ``recovered`` of ``recovery_seeds``, the mean ``recovery_lag`` of the recovered ones
    (``None`` when none recovered) and the mean ``stale_turns``."""
    found = [r["recovery"] for r in group if r.get("recovery")]
    if not found:
        return {}
    lags = [int(r["lag"]) for r in found if r["recovered"]]
    return {
        "recovered": len(lags),
        "recovery_seeds": len(found),
        "recovery_lag": round(sum(lags) / len(lags), 2) if lags else None,
        "stale_turns": round(sum(int(r["stale_turns"]) for r in found) / len(found), 2),
    }


def _recovery_cell(row: Mapping[str, Any]) -> str:
    """``5/5, lag 0``, ``0/5, 4 stale``, ``3/5, lag 0.5, 1.2 stale``; ``-`` without drift."""
    if not row.get("recovery_seeds"):
        return "-"
    cell = f"{row['recovered']}/{row['recovery_seeds']}"
    if row["recovery_lag"] is not None:
        cell += f", lag {round(row['recovery_lag'], 1):g}"
    if row["stale_turns"]:
        cell += f", {round(row['stale_turns'], 1):g} stale"
    return cell


def paired_differences(
    runs: Sequence[Mapping[str, Any]], baseline: str = "skill-state"
) -> list[dict[str, Any]]:
    """Each runtime's score minus the baseline's, paired by seed, in the same setting.

    Runtimes are compared within everything of the setting but the runtime and the
    runtime-only settings (a window's budget does not change a SKILL.state episode).
    """
    compared = [f for f in SETTING_FIELDS if f != "runtime" and f not in RUNTIME_ONLY]
    by_setting: dict[str, dict[str, dict[int, float]]] = {}
    for key, group in _groups(runs).items():
        setting = json.loads(key)
        around = json.dumps({f: setting[f] for f in compared})
        by_setting.setdefault(around, {})[key] = {int(r["seed"]): float(r["score"]) for r in group}
    out = []
    for groups in by_setting.values():
        base = next(
            (scores for key, scores in groups.items() if json.loads(key)["runtime"] == baseline),
            None,
        )
        if base is None:
            continue
        for key, scores in groups.items():
            setting = json.loads(key)
            if setting["runtime"] == baseline:
                continue
            seeds = sorted(set(scores) & set(base))
            if not seeds:
                continue
            found = paired([scores[s] for s in seeds], [base[s] for s in seeds])
            out.append(
                {
                    **_row(setting),
                    "versus": baseline,
                    "seeds": len(seeds),
                    "score_difference": round(found.mean, 4),
                    "sd": None if found.sd is None else round(found.sd, 4),
                    "ci95": None
                    if found.low is None or found.high is None
                    else [round(found.low, 4), round(found.high, 4)],
                    "t": None if found.t is None else round(found.t, 3),
                    "p": found.significance or None,
                    **_rest(setting),
                }
            )
    return out


def _spread(row: Mapping[str, Any], name: str, fmt: str) -> str:
    """``mean ±SD`` (just the mean when the SD is undefined: one seed)."""
    mean, sd = row[name], row.get(name + "_sd")
    return format(mean, fmt) if sd is None else f"{format(mean, fmt)} ±{format(sd, fmt)}"


def _ci(row: Mapping[str, Any], name: str, fmt: str) -> str:
    found = row.get(name + "_ci95")
    if found is None:
        return "-"
    return f"[{format(found[0], fmt)}, {format(found[1], fmt)}]"


def _setting_cells(row: Mapping[str, Any], extra: Sequence[str]) -> list[str]:
    return [
        str(row["runtime"]),
        str(row["horizon"]),
        str(row["noise"]),
        str(row["scenario"] or "-"),
        *(_cell(f, row.get(f)) for f in extra),
    ]


def format_summary(summary: Sequence[Mapping[str, Any]]) -> str:
    """Mean ± SD and the 95% CI over seeds (Table 1's columns: characters and token estimates;
    the totals count every prompt sent, Memory's summary calls included); with drift runs,
    Table 3's ``recovery``: seeds recovered, mean lag, mean stale turns."""
    extra = varying(summary)
    summaries = any(row.get("summary_calls") for row in summary)
    drift = any(row.get("recovery_seeds") for row in summary)
    headers = [
        "runtime", "T", "noise", "scenario", *(_LABELS[f] for f in extra), "seeds", "score",
        "95% CI", "avg chars", "total chars", "total tok~",
        *(["summary calls"] if summaries else []), *(["recovery"] if drift else []),
    ]  # fmt: skip
    rows = []
    for row in summary:
        rows.append(
            [
                *_setting_cells(row, extra),
                str(row["seeds"]),
                _spread(row, "score", ".2f"),
                _ci(row, "score", ".2f"),
                _spread(row, "avg_prompt_chars", ",.0f"),
                _spread(row, "sent_prompt_chars", ",.0f"),
                f"{row['sent_prompt_tokens_est']:,.0f}",
                *([f"{row.get('summary_calls', 0):,.0f}"] if summaries else []),
                *([_recovery_cell(row)] if drift else []),
            ]
        )
    return _table(headers, rows)


def format_differences(differences: Sequence[Mapping[str, Any]]) -> str:
    """The paired score differences against SKILL.state."""
    extra = varying(differences)
    headers = [
        "runtime", "T", "noise", "scenario", *(_LABELS[f] for f in extra), "seeds",
        "score − SKILL.state", "95% CI", "p",
    ]  # fmt: skip
    rows = [
        [
            *_setting_cells(d, extra),
            str(d["seeds"]),
            f"{d['score_difference']:+.2f}" + ("" if d["sd"] is None else f" ±{d['sd']:.2f}"),
            "-" if d["ci95"] is None else f"[{d['ci95'][0]:+.2f}, {d['ci95'][1]:+.2f}]",
            str(d["p"] or "-"),
        ]
        for d in differences
    ]
    return _table(headers, rows)


def write_csv(rows: Sequence[Mapping[str, Any]], out: TextIO) -> None:
    """``rows`` as CSV: one column per key (in first-seen order); lists and objects as JSON."""
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
