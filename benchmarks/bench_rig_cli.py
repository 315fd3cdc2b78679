"""``rig-state`` and ``skillstate`` start-up: wall time per invocation, beside ``python -c pass``.

A scratch project gets one small rig-task run; then ``rig-state patch`` (a real
process each time: start-up, plugin loading, read, merge, validate, guards, durable
commit with fsync), ``rig-state get|show``, ``skillstate plugins`` and ``python -c
pass`` and ``python -c 'import pluggy, attrs'`` (the floor the base packages set) are
run alternately, so all see the same machine load. Byte-code caching is
left on (``PYTHONDONTWRITEBYTECODE`` is removed from the children's environment, and
one warm-up call of each fills the caches), as on any installed copy. Also reports the
CPU time (user + system) of each child, which a loaded machine inflates less than
wall time.

Measure an installed copy, not the editable checkout: build a wheel
(``python -m build --wheel``), install it in a fresh venv and run this file with that
venv's Python (its ``bin/`` gives ``rig-state`` and ``skillstate``). Options:

- ``--peer-rig-state CMD``: another ``rig-state`` to run side by side, e.g. rig's own
  ``"bun /path/to/rig-state.ts"`` (or env ``SKILLSTATE_BENCH_PEER_RIG_STATE``); it
  gets its own scratch project and the same commands, and the table gains the ratio of
  each of our commands to the peer's.
- ``--baseline BIN``: the ``bin/`` directory of a second install (an older wheel) to
  run side by side too (rows marked ``baseline``).

Run: ``VENV/bin/python benchmarks/bench_rig_cli.py [--runs 41] [--peer-rig-state CMD]``.
Prints a Markdown table; exits 1 if the median ``patch`` time is over ``--target-ms``
(or, with a peer, over ``--target-ratio`` times the peer's).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["main"]

BIN = Path(sys.executable).parent
FLOOR = "python -c 'import pluggy, attrs'"
SEED = {
    "spec": {"id": "ABC-18", "title": "Add rate limiting", "source": "linear"},
    "branch": "alice/abc-18-rate-limit",
    "tests": {"command": "bun test", "status": "red"},
}


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


def _rig_commands(
    label: str, rig: list[str], root: str, env: dict[str, str]
) -> dict[str, tuple[Callable[[int], list[str]], str]]:
    """``label patch|get|show`` for one ``rig-state`` (after creating its run in ``root``)."""
    _time([*rig, "init", "rig-task", "abc-18", "--json", json.dumps(SEED)], root, env)

    def patch(i: int) -> list[str]:
        patch = json.dumps({"nextAction": f"step {i}"})
        return [*rig, "patch", "abc-18", "--json", patch, "--step", "bench"]

    return {
        f"{label} patch": (patch, root),
        f"{label} get": (lambda i: [*rig, "get", "abc-18", "--field", "branch"], root),
        f"{label} show": (lambda i: [*rig, "show", "abc-18"], root),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=41, help="invocations of each command")
    parser.add_argument("--target-ms", type=float, default=60.0, help="median patch target")
    parser.add_argument(
        "--peer-rig-state",
        default=os.environ.get("SKILLSTATE_BENCH_PEER_RIG_STATE"),
        help="command running the peer rig-state, e.g. 'bun /path/rig-state.ts'",
    )
    parser.add_argument("--target-ratio", type=float, default=2.0, help="patch ÷ peer patch")
    parser.add_argument("--baseline", help="bin/ directory of another install to compare")
    args = parser.parse_args(argv)
    env = _env()
    with tempfile.TemporaryDirectory(prefix="bench-rig-") as scratch:
        roots = {name: os.path.join(scratch, name) for name in ("ours", "peer", "base", "plain")}
        for root in roots.values():
            os.mkdir(root)
        commands: dict[str, tuple[Callable[[int], list[str]], str]] = {
            "python -c pass": (lambda i: [sys.executable, "-c", "pass"], roots["plain"]),
            # the floor the base packages set: what any pluggy + attrs program pays
            FLOOR: (lambda i: [sys.executable, "-c", "import pluggy, attrs"], roots["plain"]),
            "skillstate plugins": (lambda i: [str(BIN / "skillstate"), "plugins"], roots["plain"]),
        }
        commands.update(_rig_commands("rig-state", [str(BIN / "rig-state")], roots["ours"], env))
        if args.baseline:
            base = Path(args.baseline)
            commands["baseline skillstate plugins"] = (
                lambda i: [str(base / "skillstate"), "plugins"],
                roots["plain"],
            )
            commands.update(
                _rig_commands("baseline rig-state", [str(base / "rig-state")], roots["base"], env)
            )
        if args.peer_rig_state:
            peer = shlex.split(args.peer_rig_state)
            commands.update(_rig_commands("peer", peer, roots["peer"], env))
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for make, cwd in commands.values():  # warm-up: byte-code caches, page cache
            _time(make(-1), cwd, env)
        for i in range(args.runs):
            for name, (make, cwd) in commands.items():
                wall, cpu = _time(make(i), cwd, env)
                times[name].append(wall)
                cpus[name].append(cpu)
    medians = {name: statistics.median(values) for name, values in times.items()}
    base_ms = medians["python -c pass"]
    cpu_base = statistics.median(cpus["python -c pass"])
    peer_cols = args.peer_rig_state is not None
    print(f"{args.runs} runs each, interleaved; Python {sys.version.split()[0]}\n")
    head = "| command | wall median | wall min | wall p90 | × pass | CPU median | CPU − pass |"
    print(head + (" × peer |" if peer_cols else ""))
    print("|---|---|---|---|---|---|---|" + ("---|" if peer_cols else ""))
    for name, values in times.items():
        values.sort()
        p90 = values[int(0.9 * (len(values) - 1))]
        cpu = statistics.median(cpus[name])
        row = (
            f"| `{name}` | {medians[name]:.1f} ms | {values[0]:.1f} ms | {p90:.1f} ms "
            f"| {medians[name] / base_ms:.2f} | {cpu:.1f} ms | {cpu - cpu_base:.1f} ms |"
        )
        if peer_cols:
            verb = name.rsplit(" ", 1)[-1]
            peer_ms = medians.get(f"peer {verb}")
            row += f" {medians[name] / peer_ms:.2f} |" if peer_ms and "rig-state" in name else " |"
        print(row)
    patch = medians["rig-state patch"]
    if peer_cols:
        ratio = patch / medians["peer patch"]
        met = ratio <= args.target_ratio
        print(f"\ntarget: `rig-state patch` ≤ {args.target_ratio:g}× the peer's: {ratio:.2f}× ")
    else:
        met = patch <= args.target_ms
        print(f"\ntarget: median `rig-state patch` ≤ {args.target_ms:g} ms: {patch:.1f} ms")
    floor = patch / medians[FLOOR]
    print(f"`rig-state patch` ÷ `{FLOOR}`: {floor:.2f}× (target ≤ 1.3×)")
    plugins = medians["skillstate plugins"] / base_ms
    print(f"`skillstate plugins` ÷ `python -c pass`: {plugins:.2f}× (target ≤ 2.5×)")
    print("met" if met else "MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
