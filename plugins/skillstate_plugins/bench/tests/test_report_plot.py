"""The harness's statistics, report and plot, from real results files (oracle runs, no model)."""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from skillstate_testing import run_command

from ..plot import draw, legibility_problems
from ..report import paired_differences, summarize
from ..results import read_results
from ..stats import estimate, paired, t_critical


def skillstate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_command("skillstate", *args, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Oracle warehouse runs over two horizons and two noise levels, plus a sliding window."""
    root = tmp_path_factory.mktemp("results")
    out = root / "runs.jsonl"
    for runtimes, extra in (("all", ["--noise", "0,5"]), ("window", [])):
        done = skillstate(
            "bench", "warehouse", "--runtime", runtimes, "--horizon", "10,40", "--seeds", "3",
            "--out", str(out), "--resume", *extra, cwd=root,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    return out


def test_mean_sd_and_the_95_percent_t_interval() -> None:
    found = estimate([1, 2, 3, 4, 5])
    assert found.mean == 3 and math.isclose(found.sd, 1.5811, abs_tol=1e-4)
    half = 2.776445105198 * found.sd / math.sqrt(5)  # t(0.975, 4)
    assert math.isclose(found.low, 3 - half) and math.isclose(found.high, 3 + half)
    one = estimate([0.5])  # one value: no spread, no interval (not a zero-width one)
    assert one.mean == 0.5 and one.sd is None and one.low is None and one.high is None
    assert t_critical(1) == pytest.approx(12.706, abs=5e-4)
    assert t_critical(9, 0.99) == pytest.approx(3.250, abs=5e-4)


@pytest.mark.parametrize(
    ("df", "level", "value"),
    [  # two-sided critical values of Student's t (standard tables, 4 decimals)
        (1, 0.95, 12.7062), (2, 0.95, 4.3027), (4, 0.95, 2.7764), (10, 0.90, 1.8125),
        (30, 0.95, 2.0423), (31, 0.95, 2.0395), (40, 0.95, 2.0211), (60, 0.95, 2.0003),
        (100, 0.95, 1.9840), (120, 0.95, 1.9799), (1000, 0.95, 1.9623), (1, 0.99, 63.6567),
        (60, 0.99, 2.6603), (120, 0.99, 2.6174), (5, 0.80, 1.4759),
    ],
)  # fmt: skip
def test_t_critical_values_are_exact_for_any_degrees_of_freedom(
    df: int, level: float, value: float
) -> None:
    assert t_critical(df, level) == pytest.approx(value, abs=1e-4)


def test_unknown_confidence_levels_are_refused() -> None:
    for level in (0.0, 1.0, 95, -0.5):
        with pytest.raises(ValueError, match="a confidence level is a number between 0 and 1"):
            t_critical(10, level)
    # between 31 and 120 degrees of freedom a difference the normal value called
    # significant is not: t = 2.0 with 40 seeds
    diffs = [0.1 if i % 2 else -0.0515 for i in range(40)]
    found = paired(diffs, [0.0] * 40)
    assert found.t is not None and 1.96 < found.t < t_critical(39) and found.significance == "n.s."
    diff = paired([0.9, 0.8, 0.85, 0.95, 0.9], [1.0, 1.0, 1.0, 1.0, 1.0])
    assert math.isclose(diff.mean, -0.12) and diff.significance == "p<0.01"
    assert paired([1.0, 1.0], [1.0, 1.0]).significance == "n.s."


def test_summary_and_paired_differences_from_the_file(results: Path) -> None:
    runs = read_results(results)
    assert len(runs) == 4 * 2 * 2 * 3 + 2 * 3
    rows = {(r["runtime"], r["horizon"], r["noise"]): r for r in summarize(runs)}
    assert (
        rows[("skill-state", 40, 0)]["score"] == 1.0 and rows[("skill-state", 40, 0)]["seeds"] == 3
    )
    assert rows[("window", 40, 0)]["score"] < 1.0
    assert rows[("window", 40, 0)]["score_ci95"][0] <= rows[("window", 40, 0)]["score"]
    diffs = {(d["runtime"], d["horizon"], d["noise"]): d for d in paired_differences(runs)}
    assert diffs[("react", 40, 0)]["score_difference"] == 0.0
    window = diffs[("window", 40, 0)]
    assert (
        window["score_difference"] < 0
        and window["seeds"] == 3
        and window["versus"] == "skill-state"
    )


def test_bench_report_prints_tables_json_and_csv(results: Path, tmp_path: Path) -> None:
    done = skillstate(
        "bench", "report", str(results), "--csv-runs", str(tmp_path / "runs.csv"), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.startswith(f"54 episodes of warehouse from {results}")
    assert "mean ± SD over seeds, 95% CI (Student's t)" in text
    assert "paired by seed, against SKILL.state" in text and "score − SKILL.state" in text
    assert len((tmp_path / "runs.csv").read_text().splitlines()) == 55
    data = json.loads(skillstate("bench", "report", str(results), "--json", cwd=tmp_path).stdout)
    assert set(data) == {"summary", "differences"}
    csv_out = skillstate("bench", "report", str(results), "--csv", "-", cwd=tmp_path).stdout
    assert csv_out.splitlines()[0].startswith(
        "benchmark,policy,horizon,noise,scenario,runtime,seeds,score"
    )


def test_bad_results_files_are_named(tmp_path: Path) -> None:
    missing = skillstate("bench", "report", str(tmp_path / "nope.jsonl"), cwd=tmp_path)
    assert missing.returncode == 2 and "no results file" in missing.stderr
    broken = tmp_path / "broken.jsonl"
    episode = {"benchmark": "warehouse", "runtime": "react", "policy": "oracle", "horizon": 5,
               "seed": 42, "noise": 0, "score": 1}  # fmt: skip
    broken.write_text(json.dumps(episode) + "\nnot json\n")
    out = skillstate("bench", "report", str(broken), cwd=tmp_path)
    assert out.returncode == 2 and f"{broken}, line 2: not a JSON line" in out.stderr
    torn = tmp_path / "torn.jsonl"
    torn.write_text('{"runtime": "ski')
    out = skillstate("bench", "report", str(torn), cwd=tmp_path)
    assert out.returncode == 2 and "holds no finished episode" in out.stderr


def test_the_figures_are_legible(results: Path, tmp_path: Path) -> None:
    runs = read_results(results)
    figure = draw([r for r in runs if r["runtime"] != "window"])
    assert [ax.get_title().split("\n")[0] for ax in figure.axes] == [
        "Prompt size per call, T = 40",
        "Total prompt size against T",
        "Score against T",
        "Score against noise, T = 40",
    ]
    assert figure.axes[0].get_yscale() == "log"
    assert legibility_problems(figure) == []
    labels = [t.get_text() for t in figure.legends[0].get_texts()]
    assert labels == ["SKILL.state (A.4)", "ReAct (A.1)", "Memory (A.2)", "Stateful (A.3)"]
    for suffix in ("svg", "png"):
        done = skillstate(
            "bench", "plot", str(results), "-o", str(tmp_path / f"f.{suffix}"), cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "f.svg").read_text().lstrip().startswith("<?xml")
    only = skillstate(
        "bench",
        "plot",
        str(results),
        "-o",
        str(tmp_path / "p.svg"),
        "--figure",
        "prompt",
        cwd=tmp_path,
    )
    assert only.returncode == 0


def test_a_crowded_legend_is_caught(results: Path) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 2))
    for i in range(12):
        ax.plot([0, 1], [i, i], label=f"a rather long series label {i}")
    ax.legend(loc="center", fontsize=6)
    problems = legibility_problems(fig)
    assert any("pt" in p for p in problems)
    plt.close(fig)


def test_overlapping_labels_a_covering_legend_and_colliding_titles_are_caught() -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    for i in range(4):
        ax.plot([0, 1], [i, i], label=f"series {i}")
    ax.legend(fontsize=10, loc="upper left")
    assert legibility_problems(fig) == []  # 10 pt, apart: fine
    ax.legend(
        fontsize=10, loc="upper left", labelspacing=-1.0
    )  # the same labels, on top of each other
    assert legibility_problems(fig) == ["two legend labels overlap"]
    plt.close(fig)
    fig, axes = plt.subplots(1, 2, figsize=(6, 3))
    for one in axes:
        one.plot([0, 1], [0, 1], label="x")
        one.set_title("a long panel title that runs into the next one", fontsize=10)
    fig.legend(loc="center", fontsize=10)
    assert legibility_problems(fig) == ["the legend covers a plot", "two panel titles overlap"]
    plt.close(fig)


def test_one_seed_has_no_interval_and_no_error_bar(tmp_path: Path) -> None:
    out = tmp_path / "one.jsonl"
    done = skillstate("bench", "warehouse", "--runtime", "window,skill-state", "--horizon", "5,10",
                      "--out", str(out), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    runs = read_results(out)
    rows = summarize(runs)
    assert rows and all(r["seeds"] == 1 and r["score_sd"] is None for r in rows)
    assert all(r["score_ci95"] is None for r in rows)
    text = skillstate("bench", "report", str(out), cwd=tmp_path).stdout
    row = next(
        line.split() for line in text.splitlines() if line.split()[:2] == ["skill-state", "5"]
    )
    assert row[4:7] == ["1", "1.00", "-"], row  # one seed, its score, no interval
    figure = draw(runs, ["horizon"])
    bars = [c for c in figure.axes[0].containers if c.has_yerr]
    segments = [seg for c in bars for seg in c.lines[2][0].get_segments()]
    caps = [cap.get_ydata() for c in bars for cap in c.lines[1]]
    assert segments and all(seg.size == 0 for seg in segments)  # no error bar drawn
    assert caps and all(np.isnan(np.asarray(y, dtype=float)).all() for y in caps)  # no caps


def test_plot_without_matplotlib_says_what_to_install(results: Path, tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(  # matplotlib is not installed, as it were
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'matplotlib' or name.startswith('matplotlib.'):\n"
        "            raise ImportError('blocked for the test')\n"
        "sys.meta_path.insert(0, Block())\n",
        encoding="utf-8",
    )
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    done = run_command(
        "skillstate", "bench", "plot", str(results), "-o", str(tmp_path / "x.png"),
        cwd=tmp_path, PYTHONPATH=path,
    )  # fmt: skip
    assert done.returncode == 3  # a missing extra, as for mcp and ui (it was 2)
    assert done.stderr == (
        "skillstate: skillstate bench plot needs matplotlib: pip install -e '.[plot]' from a "
        "checkout (pip install 'skillstate[plot]' after the first release)\n"
    )
