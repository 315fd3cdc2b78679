"""Warehouse: a 200-step oracle episode, end to end, on the file and memory stores.

Run: ``.venv/bin/python -m benchmarks.bench_warehouse [--steps 200] [--repeats 5] [--json out.json]``
``[--growth 1000]``

Each repeat runs one full episode (initialize, 200 oracle turns through
``Runtime.execute_step`` with the warehouse restored and snapshotted every step, the
final read and scoring) on a fresh store; file and memory repeats are interleaved in
one process so that their ratio compares like with like. Targets: file < 2 s,
memory < 0.5 s (medians).

``--growth N`` also runs one N-step episode per store and times every turn (the
``on_turn`` callback's clock): the median cost of the 21 steps around step N/10 and
around step N, and their ratio (issue 18's target: step 1,000 ≤ 1.5× step 100), which
shows whether a step's cost grows with the run's history.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from skillstate_plugins.bench import EpisodeConfig, run_episode
from skillstate_plugins.warehouse.bench.policies import OraclePolicy
from skillstate_plugins.warehouse.benchmark import WAREHOUSE_BENCHMARK

from skillstate.runtime.sessions import Runtime


def _episode(store: str, steps: int) -> float:
    started = time.perf_counter()
    with Runtime(store) as runtime:
        result = run_episode(
            WAREHOUSE_BENCHMARK, EpisodeConfig(horizon=steps), OraclePolicy(), runtime
        )
    elapsed = time.perf_counter() - started
    assert result.score == 1.0 and result.calls == steps
    return elapsed


def _step_costs(store: str, steps: int) -> dict[str, float]:
    """Median seconds per turn around step ``steps // 10`` and around step ``steps``."""
    stamps: list[float] = []
    with Runtime(store) as runtime:
        result = run_episode(
            WAREHOUSE_BENCHMARK,
            EpisodeConfig(horizon=steps + 10),
            OraclePolicy(),
            runtime,
            on_turn=lambda turn: stamps.append(time.perf_counter()),
        )
    assert result.score == 1.0, result
    costs = [b - a for a, b in itertools.pairwise(stamps)]

    def around(step: int) -> float:
        return statistics.median(costs[max(0, step - 11) : step + 10])

    early, late = around(steps // 10), around(steps)
    return {
        f"step_{steps // 10}_ms": round(early * 1000, 3),
        f"step_{steps}_ms": round(late * 1000, 3),
        "ratio": round(late / early, 3),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--growth", type=int, default=0, help="also time each step of N")
    args = parser.parse_args(argv)
    _episode("memory:warm-up", 20)  # imports, plugin loading, generator cache
    file_times, memory_times = [], []
    with tempfile.TemporaryDirectory(prefix="bench-warehouse-") as root:
        for i in range(args.repeats):
            file_times.append(_episode(f"file:{root}/run{i}", args.steps))
            memory_times.append(_episode(f"memory:bench-{uuid.uuid4().hex}", args.steps))
    report = {
        "steps": args.steps,
        "repeats": args.repeats,
        "file_median_s": round(statistics.median(file_times), 3),
        "file_max_s": round(max(file_times), 3),
        "memory_median_s": round(statistics.median(memory_times), 3),
        "memory_max_s": round(max(memory_times), 3),
        "file_per_step_ms": round(1000 * statistics.median(file_times) / args.steps, 2),
        "memory_per_step_ms": round(1000 * statistics.median(memory_times) / args.steps, 2),
        "targets": {"file_s": 2.0, "memory_s": 0.5},
    }
    if args.growth:
        with tempfile.TemporaryDirectory(prefix="bench-warehouse-") as root:
            report["growth"] = {
                "file": _step_costs(f"file:{root}/growth", args.growth),
                "memory": _step_costs(f"memory:growth-{uuid.uuid4().hex}", args.growth),
                "target_ratio": 1.5,
            }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
