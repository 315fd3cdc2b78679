"""``rig-state patch`` wall time per invocation, beside ``python -c pass`` in the same venv.

A scratch project gets one small rig-task run; then ``rig-state patch`` (a real
process each time: start-up, plugin loading, read, merge, validate, guards, durable
commit with fsync) and ``python -c pass`` are run alternately, so both see the same
machine load. Byte-code caching is left on (``PYTHONDONTWRITEBYTECODE`` is removed
from the children's environment, and one warm-up call of each fills the caches), as
on any installed copy. Also reports ``rig-state show`` (no write), and the CPU time
(user + system) of each child, which a loaded machine inflates less than wall time.

Run: ``.venv/bin/python benchmarks/bench_rig_cli.py [--runs 41] [--target-ms 60]``.
Prints a Markdown table; exits 1 if the median ``patch`` time is over the target.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["main"]

BIN = Path(sys.executable).parent


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLSTATE_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _time(cmd: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one child process, in ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed * 1000, cpu * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=41, help="invocations of each command")
    parser.add_argument("--target-ms", type=float, default=60.0, help="median patch target")
    args = parser.parse_args(argv)
    env = _env()
    rig = str(BIN / "rig-state")
    with tempfile.TemporaryDirectory(prefix="bench-rig-") as root:
        seed = {
            "spec": {"id": "ABC-18", "title": "Add rate limiting", "source": "linear"},
            "branch": "alice/abc-18-rate-limit",
            "tests": {"command": "bun test", "status": "red"},
        }
        _time([rig, "init", "rig-task", "abc-18", "--json", json.dumps(seed)], root, env)
        commands = {
            "python -c pass": lambda i: [sys.executable, "-c", "pass"],
            "rig-state patch": lambda i: [
                rig,
                "patch",
                "abc-18",
                "--json",
                json.dumps({"nextAction": f"step {i}"}),
                "--step",
                "bench",
            ],
            "rig-state show": lambda i: [rig, "show", "abc-18"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for make in commands.values():  # warm-up: byte-code caches, page cache
            _time(make(-1), root, env)
        for i in range(args.runs):
            for name, make in commands.items():
                wall, cpu = _time(make(i), root, env)
                times[name].append(wall)
                cpus[name].append(cpu)
    base = statistics.median(times["python -c pass"])
    print(f"{args.runs} runs each, interleaved; Python {sys.version.split()[0]}\n")
    cpu_base = statistics.median(cpus["python -c pass"])
    print("| command | wall median | wall min | wall p90 | × pass | CPU median | CPU − pass |")
    print("|---|---|---|---|---|---|---|")
    for name, values in times.items():
        values.sort()
        median = statistics.median(values)
        p90 = values[int(0.9 * (len(values) - 1))]
        cpu = statistics.median(cpus[name])
        print(
            f"| `{name}` | {median:.1f} ms | {values[0]:.1f} ms | {p90:.1f} ms "
            f"| {median / base:.2f} | {cpu:.1f} ms | {cpu - cpu_base:.1f} ms |"
        )
    patch = statistics.median(times["rig-state patch"])
    verdict = "met" if patch <= args.target_ms else "MISSED"
    print(f"\ntarget: median `rig-state patch` ≤ {args.target_ms:g} ms: {verdict}")
    return 0 if patch <= args.target_ms else 1


if __name__ == "__main__":
    sys.exit(main())
