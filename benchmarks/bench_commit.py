"""The file store's ``get`` + ``commit`` alone, as a long-running writer makes them.

Run: ``.venv/bin/python benchmarks/bench_commit.py [--n 2000] [--rounds 3]``

An MCP session's steps (``Runtime.execute_step``, mock environment, patch
``{"counter": i}``) are made once on a file store and each commit's record and entry
kept; they are then replayed onto a second store (``get`` then ``commit``, as the
runtime calls them) at ``durability=full`` and ``process``, and the CPU time of this
thread per step printed (``time.thread_time``: the store's Python work and its system
calls, not the waits). Run it with two checkouts' interpreters to compare them, e.g.
``../other-checkout/.venv/bin/python benchmarks/bench_commit.py`` and this one's (a copy of
this script runs on an older checkout). ``--steps-on URL`` only makes the steps, to
count system calls (``strace -f -c``) or instructions (``valgrind --tool=callgrind``)
per step: run it with ``--n 0`` and ``--n 300`` and divide the difference
(docs/benchmarks.md, "File-store commit").
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import warnings
from typing import Any

from skillstate_plugins.file_store import FileStore, store as store_module

from skillstate.runtime import Runtime


def steps(url: str, n: int) -> None:
    """``n`` MCP-like steps (``Runtime.execute_step``) on a new session of ``url``."""
    runtime = Runtime(url)
    first = runtime.initialize_skill("bench-rt", "Benchmark skill.", {})
    obs = first["prompt_payload"]["latest_observation"]
    for i in range(n):
        done = runtime.execute_step("bench-rt", f"r{i}", {"counter": i}, "noop", obs)
        obs = done["prompt_payload"]["latest_observation"]
    runtime.close()


def capture(directory: str, n: int) -> list[tuple[Any, Any, int]]:
    """The (record, entry, expected version) of ``n`` MCP-like steps' commits."""
    commits: list[tuple[Any, Any, int]] = []
    real = store_module.FileStore.commit

    def keep(self: Any, record: Any, entry: Any, expected_version: int) -> None:
        commits.append((record, entry, expected_version))
        real(self, record, entry, expected_version)

    store_module.FileStore.commit = keep  # type: ignore[method-assign]
    try:
        steps(f"file:{directory}", n)
    finally:
        store_module.FileStore.commit = real  # type: ignore[method-assign]
    return commits


def replay(source: str, commits: list[tuple[Any, Any, int]], url: str, warm: int = 50) -> float:
    """µs of this thread's CPU per ``get`` + ``commit``, replaying onto a copy of version 1."""
    root = url[5:].split("?")[0]
    os.makedirs(root)
    with open(os.path.join(source, "bench-rt.jsonl"), "rb") as journal:
        first_line = journal.readline()
    with open(os.path.join(root, "bench-rt.jsonl"), "wb") as out:
        out.write(first_line)
    with open(os.path.join(root, "bench-rt.json"), "wb"):
        pass  # an empty record: rebuilt from the creation line on the first get
    store = FileStore(url)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert store.get("bench-rt").version == 1
    for record, entry, expected in commits[:warm]:
        store.get(record.id)
        store.commit(record, entry, expected)
    timed = commits[warm:]
    start = time.thread_time()
    for record, entry, expected in timed:
        store.get(record.id)
        store.commit(record, entry, expected)
    cpu = time.thread_time() - start
    store.close()
    return cpu / len(timed) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="steps (the first 50 untimed)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--steps-on",
        metavar="URL",
        help="only make --n steps on this store and exit (to run under strace or callgrind)",
    )
    args = parser.parse_args(argv)
    if args.steps_on:
        steps(args.steps_on, args.n)
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-commit-") as tmp:
        source = os.path.join(tmp, "source")
        commits = capture(source, args.n)
        results: dict[str, list[float]] = {"full": [], "process": []}
        for round_no in range(args.rounds):
            for level in results:
                url = f"file:{tmp}/r{round_no}-{level}?durability={level}"
                results[level].append(replay(source, commits, url))
    for level, values in results.items():
        low, high = min(values), max(values)
        print(
            f"durability={level:8s} get+commit CPU per step: median {statistics.median(values):6.1f} µs "
            f"({low:.1f}–{high:.1f}, {args.rounds} rounds of {args.n - 50})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
