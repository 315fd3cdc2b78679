"""``benchmarks/bench_ui.py`` runs on a short run too: every page it measures is a 200.

With ``--versions 21`` or fewer it used to ask for the diff ``from=0`` (no version 0:
400), and the benchmark stopped on its own assertion."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, clean_env

from benchmarks.bench_ui import _pages


@pytest.mark.parametrize("versions", [1, 2, 11, 20, 21, 10_000])
def test_every_version_a_page_names_is_one_the_run_has(versions: int) -> None:
    for name, path in _pages(5, versions).items():
        numbers = [int(n) for n in re.findall(r"(?:from=|to=|/at/)(\d+)", path)]
        assert all(1 <= n <= versions for n in numbers), (name, path)


@pytest.mark.parametrize("versions", ["1", "12"])
def test_a_short_run_is_measured_on_a_real_server(tmp_path: Path, versions: str) -> None:
    out = tmp_path / "ui.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.bench_ui",
            "--runs",
            "3",
            "--versions",
            versions,
            "--rounds",
            "1",
            "--stores",
            "sqlite",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(_pages(3, int(versions))) <= set(report["sqlite"])


@pytest.mark.parametrize("option", ["--versions", "--rounds"])
def test_a_run_of_no_versions_or_no_rounds_is_refused(option: str) -> None:
    """``--rounds 0`` measured nothing and died on ``statistics.median([])``."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_ui", option, "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
    )
    assert done.returncode == 2 and "expected a whole number >= 1, got 0" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")
def test_the_export_memory_benchmark_runs_at_a_small_size(tmp_path: Path) -> None:
    """``benchmarks/bench_ui_export.py`` (docs/benchmarks.md, "Inspector: exports nobody
    reads") at a size that takes seconds: every figure it reports is there."""
    out = tmp_path / "export.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_ui_export", "--versions", "30",
         "--clients", "3", "--hold", "1", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, env=clean_env(), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["before_mb"] > 0 and report["peak_mb"] >= report["before_mb"]
    assert report["answered"] == 3  # a 30-version export begins at once
