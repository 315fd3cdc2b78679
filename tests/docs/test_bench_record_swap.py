"""``benchmarks/bench_record_swap.py`` measures its three loops on a real disk, and refuses
a count below one with a one-line usage error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import ROOT, clean_env

from benchmarks.bench_record_swap import bench


def test_each_loop_is_measured_and_leaves_nothing_behind(tmp_path: Path) -> None:
    figures = bench(3, 1, str(tmp_path))
    assert list(figures) == ["append", "create", "spare"]
    for values in figures.values():
        assert values["wall_us"] > 0 and values["cpu_us"] >= 0
    assert list(tmp_path.iterdir()) == []  # its temporary directory is removed


def test_a_count_below_one_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_record_swap.py"), "--n", "0"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env(),
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].endswith("--n and --rounds must be at least 1")
    assert "Traceback" not in done.stderr
