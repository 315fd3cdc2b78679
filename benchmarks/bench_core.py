"""Core speed: one in-process transition, and CLI start-up against the interpreter's floor.

Run: ``.venv/bin/python -m benchmarks.bench_core [--json out.json]``

- transition: memory store, a ~2 KB state, a 3-level field schema, 3 guard plugins
  (target: median ≤ 50 µs);
- ``skillstate --version`` wall time vs ``python -c pass`` in the same venv (target ≤ 1.3×),
  ``skillstate plugins`` (target ≤ 3×).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from skillstate_testing import make_host

from skillstate import Change, FieldSpec, Problem, SkillDefinition, create_run, hookimpl, transition
from skillstate.budgets import document_size

BIN = Path(sys.executable).parent

SKILL = SkillDefinition(
    name="bench",
    fields={
        "phase": FieldSpec("string"),
        "updatedAt": FieldSpec("string"),
        "counter": FieldSpec("number"),
        "notes": FieldSpec("string[]"),
        "tasks": FieldSpec(
            "object[]",
            of={
                "id": FieldSpec("string"),
                "status": FieldSpec("string", enum=("todo", "doing", "done")),
                "detail": FieldSpec(
                    "object", of={"owner": FieldSpec("string"), "hours": FieldSpec("number")}
                ),
            },
        ),
    },
    phases=("plan", "work", "done"),
    terminal_phases=("done",),
    updated_key="updatedAt",
)


def make_guard(n: int) -> object:
    class Guard:
        @hookimpl
        def skillstate_guards(self, skill: Any, before: Any, after: Any) -> list[Problem]:
            if after.get("counter", 0) < -n:
                return [Problem("guard", f"counter below -{n}", "counter", f"g{n}")]
            return []

    return Guard()


def bench_transition(rounds: int = 3000) -> dict[str, float]:
    host = make_host("memory:")
    for n in range(3):
        host.pm.register_local(make_guard(n), f"guard-{n}")
    store = host.open_store()
    tasks = [
        {"id": f"t{i}", "status": "todo", "detail": {"owner": "someone", "hours": i * 1.5}}
        for i in range(25)
    ]
    seed = {"counter": 0, "notes": ["a note of modest length"] * 5, "tasks": tasks}
    assert create_run(host, store, SKILL, "b", seed).accepted
    size = document_size(store.get("b").state)
    samples = []
    for i in range(rounds):
        start = time.perf_counter()
        outcome = transition(host, store, "b", Change(patch={"counter": i + 1}), skill=SKILL)
        samples.append(time.perf_counter() - start)
        assert outcome.accepted
    return {
        "state_bytes": size,
        "median_us": statistics.median(samples) * 1e6,
        "p90_us": sorted(samples)[int(rounds * 0.9)] * 1e6,
    }


def wall(cmd: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def bench_startup(runs: int = 30) -> dict[str, float]:
    # Interleave the measurements so machine noise hits all three alike.
    floor, version, plugins = [], [], []
    for _ in range(runs):
        floor.append(wall([sys.executable, "-c", "pass"], 1))
        version.append(wall([str(BIN / "skillstate"), "--version"], 1))
        plugins.append(wall([str(BIN / "skillstate"), "plugins"], 1))
    f, v, p = statistics.median(floor), statistics.median(version), statistics.median(plugins)
    return {
        "python_pass_ms": f,
        "version_ms": v,
        "plugins_ms": p,
        "version_ratio": v / f,
        "plugins_ratio": p / f,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    results = {"transition": bench_transition(), "startup": bench_startup()}
    t, s = results["transition"], results["startup"]
    print(
        f"transition (memory, {t['state_bytes']} B state, 3-level schema, 3 guards): "
        f"median {t['median_us']:.1f} µs, p90 {t['p90_us']:.1f} µs  (target ≤ 50 µs)"
    )
    print(
        f"python -c pass {s['python_pass_ms']:.1f} ms | skillstate --version {s['version_ms']:.1f} ms "
        f"({s['version_ratio']:.2f}×, target ≤ 1.3×) | skillstate plugins {s['plugins_ms']:.1f} ms "
        f"({s['plugins_ratio']:.2f}×, target ≤ 3×)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
