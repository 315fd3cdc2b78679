"""The paper's figures from a results file, drawn with matplotlib (the ``plot`` extra).

- ``prompt`` — prompt size (characters) at every call of one episode, per runtime:
  the mean over seeds at the largest T, with the seeds' range as a band, on a log
  axis (SKILL.state flat, the history baselines growing);
- ``total`` — total prompt characters against T, per runtime (log axis: linear
  against quadratic growth; every prompt sent, the Memory runtime's summary calls
  included);
- ``horizon`` — score against T, per runtime, with the 95% interval over seeds;
- ``noise`` — score against telemetry noise, per runtime, with the 95% interval
  (a point of one seed has no interval, and no error bar).

A figure compares runtimes over T and noise in **one setting**: :func:`draw` refuses
runs that differ in anything else (policy, strict parsing, retries, the endpoint, a
drift scenario beside runs without one...;
see :func:`~skillstate_plugins.bench.results.setting_of`) with one line naming what differs —
``bench plot --where FIELD=VALUE`` picks one (:func:`select`).

:func:`draw` puts the figures the data supports (``horizon`` and ``total`` need two
horizons, ``noise`` two noise levels) side by side, with one legend below them, and
returns the :class:`matplotlib.figure.Figure`; :func:`legibility_problems` checks
what a reader needs: no two labels overlap, the legend covers no plot, text is at
least 8 points. matplotlib is imported only here, only when a figure is drawn.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from .report import varying, with_costs
from .results import RUNTIME_ONLY, setting_of
from .stats import estimate

__all__ = [
    "FIGURES",
    "LABELS",
    "MissingPlotting",
    "draw",
    "legibility_problems",
    "mixed_settings",
    "save",
    "select",
]

FIGURES = ("prompt", "total", "horizon", "noise")
LABELS = {
    "skill-state": "SKILL.state (A.4)",
    "react": "ReAct (A.1)",
    "memory": "Memory (A.2)",
    "stateful": "Stateful (A.3)",
    "window": "Sliding window",
}
_COLORS = {
    "skill-state": "#1b7837",
    "react": "#d73027",
    "memory": "#4575b4",
    "stateful": "#984ea3",
    "window": "#e08214",
}
_MARKERS = {"skill-state": "o", "react": "s", "memory": "^", "stateful": "D", "window": "v"}


class MissingPlotting(Exception):
    """matplotlib is not installed (the message says what to install)."""


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingPlotting(
            "skillstate bench plot needs matplotlib: pip install -e '.[plot]' from a checkout "
            "(pip install 'skillstate[plot]' after the first release)"
        ) from None
    return plt


def _runtimes(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    seen = {r["runtime"] for r in runs}
    return [r for r in LABELS if r in seen] + sorted(seen - set(LABELS))


def _base(runs: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Runs without drift at the lowest noise (the scaling experiment's setting)."""
    plain = _plain(runs)
    low = min(r["noise"] for r in plain)
    return [r for r in plain if r["noise"] == low]


_AXES = ("runtime", "horizon", "noise")
_Run = TypeVar("_Run", bound=Mapping[str, Any])


def mixed_settings(runs: Sequence[Mapping[str, Any]]) -> str | None:
    """What ``runs`` differ in besides runtime, T, noise and seed (``None``: nothing).

    Every run counts, drift runs too: a file with runs with and without a scenario is
    mixed (``scenario (null, "audit")``), never drawn with the drift runs left out. A
    value is shown as ``--where`` reads it (``null``: no scenario)."""
    drawn = [{**setting_of(r), "runtime": r.get("runtime")} for r in runs]
    fields = varying(drawn, skip=_AXES)
    if not fields:
        return None
    values = []
    for field in fields:
        scope = [r for r in drawn if r["runtime"] == RUNTIME_ONLY.get(field, r["runtime"])]
        seen = sorted({json.dumps(r[field]) for r in scope})
        values.append(f"{field} ({', '.join(seen)})")
    return ", ".join(values)


def select(runs: Sequence[_Run], where: Mapping[str, Any]) -> list[_Run]:
    """The runs whose fields equal ``where`` (``{"policy": "oracle", "strict_parse": True}``);
    a runtime-only setting (``window_chars``) constrains only its runtime's runs."""

    def matches(run: Mapping[str, Any], key: str, value: Any) -> bool:
        if key in RUNTIME_ONLY and run.get("runtime") != RUNTIME_ONLY[key]:
            return True
        return bool(run.get(key) == value)

    return [r for r in runs if all(matches(r, k, v) for k, v in where.items())]


def _plain(runs: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Runs without drift (all of them when every one has a scenario)."""
    return [r for r in runs if not r.get("scenario")] or list(runs)


def available(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """The figures ``runs`` can show."""
    base = _base(runs)
    horizon = max(r["horizon"] for r in base)
    out = []
    if any(r.get("prompt_chars_per_call") for r in base if r["horizon"] == horizon):
        out.append("prompt")
    if len({r["horizon"] for r in _base(runs)}) > 1:
        out += ["total", "horizon"]
    if len({r["noise"] for r in runs if not r.get("scenario")}) > 1:
        out.append("noise")
    return out


def _style(runtime: str) -> dict[str, Any]:
    return {
        "color": _COLORS.get(runtime, "#555555"),
        "marker": _MARKERS.get(runtime, "x"),
        "label": LABELS.get(runtime, runtime),
    }


def _prompt(ax: Any, runs: Sequence[Mapping[str, Any]]) -> None:
    base = _base(runs)
    horizon = max(r["horizon"] for r in base)
    for runtime in _runtimes(base):
        series = [
            r["prompt_chars_per_call"]
            for r in base
            if r["runtime"] == runtime
            and r["horizon"] == horizon
            and r.get("prompt_chars_per_call")
        ]
        if not series:
            continue
        length = min(len(s) for s in series)
        columns = [[s[i] for s in series] for i in range(length)]
        mean = [sum(c) / len(c) for c in columns]
        steps = range(1, length + 1)
        style = _style(runtime)
        ax.plot(steps, mean, color=style["color"], label=style["label"], linewidth=1.8)
        if len(series) > 1:
            ax.fill_between(
                steps, [min(c) for c in columns], [max(c) for c in columns],
                color=style["color"], alpha=0.18, linewidth=0,
            )  # fmt: skip
    seeds = len({r["seed"] for r in base if r["horizon"] == horizon})
    ax.set_yscale("log")
    ax.set_xlabel("call (one episode)")
    ax.set_ylabel("prompt size (characters, log)")
    ax.set_title(
        f"Prompt size per call, T = {horizon}\n(mean of {seeds} seed{'s' * (seeds > 1)}, band: range)"
    )


def _by(
    runs: Sequence[Mapping[str, Any]], axis: str, metric: str, ax: Any, log: bool, dodge: str = ""
) -> None:
    """One line per runtime; ``dodge`` (``log``/``linear``) shifts them apart so equal scores
    do not hide one another."""
    names = _runtimes(runs)
    for index, runtime in enumerate(names):
        shift = index - (len(names) - 1) / 2
        points = sorted({r[axis] for r in runs if r["runtime"] == runtime})
        means, lows, highs = [], [], []
        for x in points:
            found = estimate(
                [float(r[metric]) for r in runs if r["runtime"] == runtime and r[axis] == x]
            )
            means.append(found.mean)
            # one seed: no interval, so no error bar (NaN draws none)
            lows.append(math.nan if found.low is None else found.mean - found.low)
            highs.append(math.nan if found.high is None else found.high - found.mean)
        style = _style(runtime)
        xs = [
            x * (1 + 0.03 * shift) if dodge == "log" else x + 0.5 * shift if dodge else x
            for x in points
        ]
        ax.errorbar(xs, means, yerr=[lows, highs], capsize=3, linewidth=1.6, markersize=5, **style)
    if log:
        ax.set_yscale("log")


def _total(ax: Any, runs: Sequence[Mapping[str, Any]]) -> None:
    _by([with_costs(r) for r in _base(runs)], "horizon", "sent_prompt_chars", ax, log=True)
    ax.set_xscale("log")
    ax.set_xlabel("horizon T (events, log)")
    ax.set_ylabel("total prompt characters (log)")
    ax.set_title("Total prompt size against T\n(mean, 95% CI over seeds)")


def _horizon(ax: Any, runs: Sequence[Mapping[str, Any]]) -> None:
    _by(_base(runs), "horizon", "score", ax, log=False, dodge="log")
    ax.set_xscale("log")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("horizon T (events, log)")
    ax.set_ylabel("score")
    ax.set_title("Score against T\n(mean, 95% CI over seeds)")


def _noise(ax: Any, runs: Sequence[Mapping[str, Any]]) -> None:
    plain = [r for r in runs if not r.get("scenario")]
    horizons = [r["horizon"] for r in plain]
    horizon = max(
        set(horizons), key=lambda h: (len({r["noise"] for r in plain if r["horizon"] == h}), h)
    )
    _by(
        [r for r in plain if r["horizon"] == horizon],
        "noise",
        "score",
        ax,
        log=False,
        dodge="linear",
    )
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("telemetry lines per observation")
    ax.set_ylabel("score")
    ax.set_title(f"Score against noise, T = {horizon}\n(mean, 95% CI over seeds)")


_NEEDS = {
    "prompt": "prompt needs the prompt size of every call, prompt_chars_per_call",
    "total": "total needs two or more horizons",
    "horizon": "horizon needs two or more horizons",
    "noise": "noise needs two or more noise levels",
}
_DRAW = {"prompt": _prompt, "total": _total, "horizon": _horizon, "noise": _noise}


def draw(
    runs: Sequence[Mapping[str, Any]], figures: Sequence[str] | None = None, title: str = ""
) -> Any:
    """A figure with one panel per name in ``figures`` (default: every one the data supports)."""
    mixed = mixed_settings(runs)
    if mixed:
        raise ValueError(
            f"the runs differ in more than runtime, T, noise and seed: {mixed}; "
            "plot one setting (--where FIELD=VALUE)"
        )
    plt = _pyplot()
    can = available(runs)
    names = list(figures) if figures else can
    missing = [n for n in names if n not in can]
    if missing or not names:
        needs = "; ".join(_NEEDS[n] for n in missing or FIGURES)
        raise ValueError(
            f"the results cannot show {', '.join(missing) or 'any figure'} ({needs}); "
            + (f"they can show {', '.join(can)}" if can else "there is nothing to draw")
        )
    fig, axes = plt.subplots(
        1, len(names), figsize=(5.2 * len(names), 4.6), squeeze=False, layout="constrained"
    )
    for ax, name in zip(axes[0], names, strict=True):
        _DRAW[name](ax, runs)
        ax.grid(True, which="major", alpha=0.3)
        ax.title.set_fontsize(10)
    handles, labels = max(
        (ax.get_legend_handles_labels() for ax in axes[0]), key=lambda found: len(found[1])
    )
    if labels:
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncol=min(len(labels), 5),
            fontsize=9,
            frameon=False,
        )
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def legibility_problems(fig: Any) -> list[str]:
    """What would make ``fig`` hard to read: overlapping labels, a legend over a plot, tiny text."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems: list[str] = []
    from matplotlib.text import Text

    texts = [t for t in fig.findobj(Text) if t.get_text().strip() and t.get_visible()]
    for text in texts:
        if text.get_fontsize() < 8:
            problems.append(f"text {text.get_text()!r} is {text.get_fontsize():.0f} pt")
    for legend in fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]:
        boxes = [t.get_window_extent(renderer) for t in legend.get_texts()]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                if a.overlaps(b):
                    problems.append("two legend labels overlap")
        frame = legend.get_window_extent(renderer)
        for ax in fig.axes:
            if frame.overlaps(ax.get_window_extent(renderer)) and legend not in (ax.get_legend(),):
                problems.append("the legend covers a plot")
    titles = [ax.title.get_window_extent(renderer) for ax in fig.axes]
    for i, a in enumerate(titles):
        for b in titles[i + 1 :]:
            if a.overlaps(b):
                problems.append("two panel titles overlap")
    return list(dict.fromkeys(problems))


def save(fig: Any, path: str) -> None:
    """Write ``fig`` as PNG or SVG (by the file's extension); the same data gives the same file."""
    plt = _pyplot()
    if path.lower().endswith(".svg"):
        with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "skillstate"}):
            fig.savefig(path, metadata={"Date": None})
    else:
        fig.savefig(path, dpi=150, metadata={"Software": None})
    plt.close(fig)
