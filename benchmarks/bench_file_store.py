"""File store speed, against the cost of the disk itself, all measured in one run.

Run: ``.venv/bin/python -m benchmarks.bench_file_store [--rounds 300] [--dir DIR] [--json out.json]``

- one durable transition (full pipeline, ~2 KB state) vs the floor: the same record
  bytes to a temp file + fsync + rename + directory fsync, then a 200-byte journal
  append + fsync (target: ratio of medians ≤ 1.5); for the breakdown, also the store's
  ``commit`` alone and the same transition on the memory store (the pipeline's CPU);
- the same transition on a run with 10 journal entries vs one with 100,000 (target:
  within 10%; the long journal is written directly, not through 100,000 commits);
- ``list()`` over 10,000 runs (target: < 1 s; the runs are written directly too).

Floor and store operations are interleaved (in a random order each round) so that
disk noise hits all of them alike.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from skillstate_plugins.file_store import FileStore
from skillstate_plugins.file_store.format import encode_entry, encode_record

from skillstate import Change, FieldSpec, SkillDefinition, create_run, transition
from skillstate.journal import verify_record
from skillstate.records import JournalEntry, RunRecord
from skillstate.testing import make_host

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
                "owner": FieldSpec("string"),
            },
        ),
    },
    phases=("plan", "work", "done"),
    updated_key="updatedAt",
)

SEED: dict[str, Any] = {
    "counter": 0,
    "notes": [f"note {i}: " + "x" * 60 for i in range(17)],
    "tasks": [{"id": f"T-{i}", "status": "todo", "owner": "someone"} for i in range(14)],
}


def _floor(directory: str, record_bytes: bytes, line: bytes) -> Callable[[], None]:
    tmp = os.path.join(directory, "floor.json.tmp")
    target = os.path.join(directory, "floor.json")
    journal = os.path.join(directory, "floor.jsonl")

    def once() -> None:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, record_bytes)
        os.fsync(fd)
        os.close(fd)
        os.replace(tmp, target)
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        os.fsync(dfd)
        os.close(dfd)
        _append(journal, line, os.fsync)

    return once


def _append(journal: str, line: bytes, sync: Callable[[int], None]) -> None:
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, line)
    sync(fd)
    os.close(fd)


def _append_floor(directory: str, line: bytes) -> Callable[[], None]:
    """The one sync a commit cannot do without: append a line, ``fdatasync`` it."""
    journal = os.path.join(directory, "append-floor.jsonl")
    return lambda: _append(journal, line, os.fdatasync)


def _transition(host: Any, store: FileStore, run_id: str) -> Callable[[], None]:
    counter = [0]

    def once() -> None:
        counter[0] += 1
        outcome = transition(
            host, store, run_id, Change(patch={"counter": counter[0]}, label="bench"), skill=SKILL
        )
        assert outcome.accepted, outcome.problems

    return once


def _commit(store: FileStore, run_id: str) -> Callable[[], None]:
    """``store.commit`` alone: the record and entry a transition would write, prepared."""
    current = store.get(run_id)

    def once() -> None:
        nonlocal current
        new = attrs.evolve(
            current,
            state={**current.state, "counter": current.version},
            version=current.version + 1,
        )
        entry = JournalEntry(
            ts="2026-01-01T00:00:00.000Z",
            step="bench",
            patch={"counter": current.version},
            version=new.version,
            set={"updatedAt": "2026-01-01T00:00:00.000Z"},
        )
        store.commit(new, entry, current.version)
        current = new

    return once


def _interleaved(rounds: int, *ops: Callable[[], None]) -> tuple[list[list[float]], list[float]]:
    """Time each op once per round, in a fresh random order each round (no position bias).

    Returns the wall times per op, and the median CPU time (user + system) per op.
    """
    times: list[list[float]] = [[] for _ in ops]
    cpu: list[list[float]] = [[] for _ in ops]
    order = list(range(len(ops)))
    rng = random.Random(1)
    for _ in range(rounds):
        rng.shuffle(order)
        for i in order:
            start, start_cpu = time.perf_counter(), time.process_time()
            ops[i]()
            times[i].append(time.perf_counter() - start)
            cpu[i].append(time.process_time() - start_cpu)
    return times, [statistics.median(c) for c in cpu]


def _long_journal(store: FileStore, host: Any, run_id: str, entries: int) -> None:
    """A run whose journal has ``entries`` lines, written directly (consistent, replayable)."""
    outcome = create_run(host, store, SKILL, run_id, SEED)
    assert outcome.accepted and outcome.record is not None
    record = outcome.record
    stamp = "2026-01-01T00:00:00.000Z"
    with open(os.path.join(store.root, f"{run_id}.jsonl"), "ab") as journal:
        chunk = []
        for version in range(2, entries + 1):
            chunk.append(
                encode_entry(
                    JournalEntry(
                        ts=stamp,
                        step="fill",
                        patch={"counter": -version},
                        version=version,
                        set={"updatedAt": stamp},
                    )
                )
            )
            if len(chunk) == 10_000:
                journal.write(b"".join(chunk))
                chunk.clear()
        journal.write(b"".join(chunk))
    state = {**record.state, "counter": -entries, "updatedAt": stamp}
    final = attrs.evolve(record, state=state, version=entries, updated=stamp)
    Path(store.root, f"{run_id}.json").write_bytes(encode_record(final))


def _many_runs(store: FileStore, count: int) -> None:
    os.makedirs(store.root, exist_ok=True)
    stamp = "2026-01-01T00:00:00.000Z"
    for n in range(count):
        run_id = f"run-{n:05d}"
        state = {**SEED, "phase": "work", "nextAction": f"step {n}", "updatedAt": stamp}
        record = RunRecord(
            id=run_id, skill="bench", state=state, version=1, created=stamp, updated=stamp
        )
        entry = JournalEntry(ts=stamp, step="init", patch={}, version=1, base=state)
        Path(store.root, f"{run_id}.json").write_bytes(encode_record(record))
        Path(store.root, f"{run_id}.jsonl").write_bytes(encode_entry(entry))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--long", type=int, default=100_000, help="entries in the long journal")
    parser.add_argument("--runs", type=int, default=10_000, help="runs to list")
    parser.add_argument("--dir", help="where to put the stores (default: the system temp dir)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)

    base = tempfile.mkdtemp(prefix="bench-file-store-", dir=args.dir)
    results: dict[str, Any] = {}
    try:
        host = make_host(f"file:{base}/state")
        host.skills  # noqa: B018 - build the registries before timing
        store = host.open_store()
        assert isinstance(store, FileStore)
        assert create_run(host, store, SKILL, "short", SEED).accepted
        _long_journal(store, host, "long", args.long)
        record_bytes = Path(store.root, "short.json").read_bytes()
        floor_dir = os.path.join(base, "floor")
        os.makedirs(floor_dir)
        floor = _floor(floor_dir, record_bytes, b"x" * 199 + b"\n")
        for op in (floor, _transition(host, store, "short")):  # warm up
            for _ in range(10):
                op()

        state_size = len(json.dumps(store.get("short").state, separators=(",", ":")))
        memory = host.open_store("memory:")
        assert create_run(host, memory, SKILL, "short", SEED).accepted
        assert create_run(host, store, SKILL, "commits", SEED).accepted
        (t_floor, t_short, t_long, t_commit, t_memory, t_append), cpu = _interleaved(
            args.rounds,
            floor,
            _transition(host, store, "short"),
            _transition(host, store, "long"),
            _commit(store, "commits"),
            _transition(host, memory, "short"),
            _append_floor(floor_dir, b"x" * 399 + b"\n"),
        )
        med = {
            k: statistics.median(v)
            for k, v in (
                ("floor", t_floor),
                ("short", t_short),
                ("long", t_long),
                ("commit", t_commit),
                ("memory", t_memory),
                ("append", t_append),
            )
        }
        results["append_floor_ms"] = med["append"] * 1e3
        results["transition_vs_append_floor"] = med["short"] / med["append"]
        results["commit_ms"] = med["commit"] * 1e3
        results["commit_vs_floor"] = med["commit"] / med["floor"]
        results["memory_transition_ms"] = med["memory"] * 1e3
        results["state_bytes"] = state_size
        results["record_file_bytes"] = len(record_bytes)
        results["floor_ms"] = med["floor"] * 1e3
        results["transition_ms"] = med["short"] * 1e3
        results["transition_vs_floor"] = med["short"] / med["floor"]
        results["floor_cpu_ms"], results["transition_cpu_ms"] = cpu[0] * 1e3, cpu[1] * 1e3
        long_entries = store.journal("long")
        assert verify_record(store.get("long"), long_entries) == []  # a realistic journal
        results["long_journal_entries"] = len(long_entries)
        results["transition_long_ms"] = med["long"] * 1e3
        results["long_vs_short"] = med["long"] / med["short"]

        list_store = FileStore(f"file:{base}/many")
        _many_runs(list_store, args.runs)
        list_times, list_cpu = [], []
        for _ in range(5):
            start, cpu = time.perf_counter(), time.process_time()
            listed = list_store.list()
            list_times.append(time.perf_counter() - start)
            list_cpu.append(time.process_time() - cpu)
        assert len(listed) == args.runs
        results["list_runs"] = args.runs
        results["list_s"] = statistics.median(list_times)
        results["list_cpu_s"] = statistics.median(list_cpu)
        results["load_average"] = os.getloadavg()[0]
        host.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)

    ms = 1e3
    print(f"durable transition, {results['state_bytes']} B state ({args.rounds} rounds, medians)")
    print(f"  floor: tmp+fsync+rename+dir fsync+200 B append+fsync  {results['floor_ms']:8.3f} ms")
    print(
        f"  400 B append + fdatasync (a commit's one sync)     {results['append_floor_ms']:8.3f} ms"
    )
    print(
        f"  transition, file store, full pipeline             {results['transition_ms']:8.3f} ms"
        f"  ratio {results['transition_vs_floor']:.2f} (target <= 1.5);"
        f" {results['transition_vs_append_floor']:.2f}x the append"
    )
    print(
        f"  store.commit alone (record and entry prepared)      {results['commit_ms']:8.3f} ms"
        f"  ratio {results['commit_vs_floor']:.2f}"
    )
    print(
        f"  the same transition on the memory store (no I/O)    {results['memory_transition_ms']:8.3f} ms"
    )
    print(
        f"  CPU time (user+system), floor / transition          {results['floor_cpu_ms']:8.3f} / "
        f"{results['transition_cpu_ms']:.3f} ms"
    )
    print(
        f"  same, journal of {args.long:,}+ entries             {results['transition_long_ms']:8.3f} ms"
        f"  vs 10 entries {results['long_vs_short']:.3f} (target within 10%)"
    )
    print(
        f"list() over {results['list_runs']:,} runs, median of 5          "
        f"{results['list_s'] * ms:8.1f} ms  (target < 1000 ms; CPU {results['list_cpu_s'] * ms:.0f} ms)"
    )
    print(f"1-minute load average at the end: {results['load_average']:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    ok = (
        results["transition_vs_floor"] <= 1.5
        and abs(results["long_vs_short"] - 1) <= 0.10
        and results["list_s"] < 1.0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
