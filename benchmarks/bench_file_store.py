"""File store speed, against the cost of the disk itself, all measured in one run.

Run: ``.venv/bin/python -m benchmarks.bench_file_store [--rounds 300] [--dir DIR] [--json out.json]
[--baseline PACKAGE_DIR]``

- one durable transition (full pipeline, ~2 KB state) vs the floor: the same record
  bytes to a temp file + fsync + rename + directory fsync, then a 200-byte journal
  append + fsync (target: ratio of medians ≤ 1.5); for the breakdown, also the store's
  ``commit`` alone and the same transition on the memory store (the pipeline's CPU);
- the same transition on a run with 10 journal entries vs one with 100,000 (target:
  within 10%; the long journal is written directly, not through 100,000 commits, its
  record with the ``journalSize`` the store would give it);
- ``list()`` over 10,000 runs (target: < 1 s; the runs are written directly too);
- the short transition by a store that does not remember the run (what another
  process, or the next CLI call, pays: the record is read from disk first).

Floor and store operations are interleaved (in a random order each round) so that
disk noise hits all of them alike.

``--baseline`` compares with another copy of the file store package, e.g. the last
commit's (``git archive HEAD plugins/skillstate_plugins/file_store | tar -x -C /tmp/base``,
then ``--baseline /tmp/base/plugins/skillstate_plugins/file_store``): its transitions,
commits and listings are interleaved with this checkout's in the same rounds, on files of
their own, and each measure is also printed as this checkout's time over the baseline's.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from skillstate_plugins.file_store import FileStore
from skillstate_plugins.file_store.format import encode_entry, encode_record
from skillstate_testing import make_host

from skillstate import Change, FieldSpec, SkillDefinition, create_run, transition
from skillstate.journal import verify_record
from skillstate.records import JournalEntry, RunRecord

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


def _transition(host: Any, store: Any, run_id: str) -> Callable[[], None]:
    counter = [0]

    def once() -> None:
        counter[0] += 1
        outcome = transition(
            host, store, run_id, Change(patch={"counter": counter[0]}, label="bench"), skill=SKILL
        )
        assert outcome.accepted, outcome.problems

    return once


def _cold_transition(host: Any, store_class: Any, url: str, run_id: str) -> Callable[[], None]:
    """The transition by a fresh store each time: nothing remembered, the record read first."""
    counter = [0]

    def once() -> None:
        counter[0] += 1
        change = Change(patch={"counter": counter[0]}, label="bench")
        store = store_class(url)
        outcome = transition(host, store, run_id, change, skill=SKILL)
        store.close()
        assert outcome.accepted, outcome.problems

    return once


def _load_baseline(path: str) -> Any:
    """Import another copy of the file store package as ``file_store_baseline``."""
    path = os.path.abspath(path)
    spec = importlib.util.spec_from_file_location(
        "file_store_baseline",
        os.path.join(path, "__init__.py"),
        submodule_search_locations=[path],
    )
    assert spec is not None and spec.loader is not None, f"no package at {path}"
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _commit(store: Any, run_id: str) -> Callable[[], None]:
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


def _long_journal(store: Any, host: Any, run_id: str, entries: int) -> None:
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
    size = os.path.getsize(os.path.join(store.root, f"{run_id}.jsonl"))
    Path(store.root, f"{run_id}.json").write_bytes(encode_record(final, size))


def _many_runs(store: Any, count: int) -> None:
    os.makedirs(store.root, exist_ok=True)
    stamp = "2026-01-01T00:00:00.000Z"
    for n in range(count):
        run_id = f"run-{n:05d}"
        state = {**SEED, "phase": "work", "nextAction": f"step {n}", "updatedAt": stamp}
        record = RunRecord(
            id=run_id, skill="bench", state=state, version=1, created=stamp, updated=stamp
        )
        line = encode_entry(JournalEntry(ts=stamp, step="init", patch={}, version=1, base=state))
        Path(store.root, f"{run_id}.json").write_bytes(encode_record(record, len(line)))
        Path(store.root, f"{run_id}.jsonl").write_bytes(line)


def _prepare(host: Any, store_class: Any, root: str, entries: int) -> tuple[Any, dict[str, Any]]:
    """A store of ``store_class`` at ``root`` with its runs, and its timed operations."""
    url = f"file:{root}"
    store = store_class(url)
    for run_id in ("short", "commits", "cold"):
        assert create_run(host, store, SKILL, run_id, SEED).accepted
    _long_journal(store, host, "long", entries)
    ops = {
        "short": _transition(host, store, "short"),
        "long": _transition(host, store, "long"),
        "commit": _commit(store, "commits"),
        "cold": _cold_transition(host, store_class, url, "cold"),
    }
    return store, ops


def _timed_lists(stores: list[Any], rounds: int = 5) -> list[tuple[float, float]]:
    """The median wall and CPU time of ``list()`` on each store, the stores alternating."""
    times: list[list[float]] = [[] for _ in stores]
    cpu: list[list[float]] = [[] for _ in stores]
    for n in range(rounds):
        order = list(range(len(stores)))
        if n % 2:
            order.reverse()
        for i in order:
            start, start_cpu = time.perf_counter(), time.process_time()
            stores[i].list()
            times[i].append(time.perf_counter() - start)
            cpu[i].append(time.process_time() - start_cpu)
    return [(statistics.median(t), statistics.median(c)) for t, c in zip(times, cpu, strict=True)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--long", type=int, default=100_000, help="entries in the long journal")
    parser.add_argument("--runs", type=int, default=10_000, help="runs to list")
    parser.add_argument("--dir", help="where to put the stores (default: the system temp dir)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument(
        "--baseline",
        metavar="PACKAGE_DIR",
        help="another copy of the file store package to compare with, interleaved",
    )
    args = parser.parse_args(argv)

    classes: dict[str, Any] = {"": FileStore}
    if args.baseline:
        classes["baseline_"] = _load_baseline(args.baseline).FileStore
    base = tempfile.mkdtemp(prefix="bench-file-store-", dir=args.dir)
    results: dict[str, Any] = {}
    try:
        host = make_host(f"file:{base}/state")
        host.skills  # noqa: B018 - build the registries before timing
        stores, ops = {}, {}
        for prefix, store_class in classes.items():
            root = os.path.join(base, f"{prefix}state")
            stores[prefix], store_ops = _prepare(host, store_class, root, args.long)
            ops.update({prefix + name: op for name, op in store_ops.items()})
        store = stores[""]
        record_bytes = Path(store.root, "short.json").read_bytes()
        floor_dir = os.path.join(base, "floor")
        os.makedirs(floor_dir)
        ops["floor"] = _floor(floor_dir, record_bytes, b"x" * 199 + b"\n")
        ops["append"] = _append_floor(floor_dir, b"x" * 399 + b"\n")
        memory = host.open_store("memory:")
        assert create_run(host, memory, SKILL, "short", SEED).accepted
        ops["memory"] = _transition(host, memory, "short")
        for op in ops.values():  # warm up
            for _ in range(10):
                op()

        state_size = len(json.dumps(store.get("short").state, separators=(",", ":")))
        names = list(ops)
        times, cpus = _interleaved(args.rounds, *ops.values())
        med = {name: statistics.median(t) for name, t in zip(names, times, strict=True)}
        cpu = dict(zip(names, cpus, strict=True))
        results["append_floor_ms"] = med["append"] * 1e3
        results["transition_vs_append_floor"] = med["short"] / med["append"]
        results["memory_transition_ms"] = med["memory"] * 1e3
        results["state_bytes"] = state_size
        results["record_file_bytes"] = len(record_bytes)
        results["floor_ms"] = med["floor"] * 1e3
        results["floor_cpu_ms"] = cpu["floor"] * 1e3
        long_entries = store.journal("long")
        assert verify_record(store.get("long"), long_entries) == []  # a realistic journal
        results["long_journal_entries"] = len(long_entries)
        results["list_runs"] = args.runs

        list_stores = []
        for prefix, store_class in classes.items():
            list_stores.append(store_class(f"file:{base}/{prefix}many"))
            _many_runs(list_stores[-1], args.runs)
            assert len(list_stores[-1].list()) == args.runs
        listed = _timed_lists(list_stores)
        for (prefix, _), (list_s, list_cpu_s) in zip(classes.items(), listed, strict=True):
            results[f"{prefix}transition_ms"] = med[f"{prefix}short"] * 1e3
            results[f"{prefix}transition_vs_floor"] = med[f"{prefix}short"] / med["floor"]
            results[f"{prefix}transition_cpu_ms"] = cpu[f"{prefix}short"] * 1e3
            results[f"{prefix}commit_ms"] = med[f"{prefix}commit"] * 1e3
            results[f"{prefix}commit_vs_floor"] = med[f"{prefix}commit"] / med["floor"]
            results[f"{prefix}transition_long_ms"] = med[f"{prefix}long"] * 1e3
            results[f"{prefix}long_vs_short"] = med[f"{prefix}long"] / med[f"{prefix}short"]
            results[f"{prefix}cold_transition_ms"] = med[f"{prefix}cold"] * 1e3
            results[f"{prefix}cold_vs_floor"] = med[f"{prefix}cold"] / med["floor"]
            results[f"{prefix}list_s"] = list_s
            results[f"{prefix}list_cpu_s"] = list_cpu_s
        if args.baseline:
            results["baseline"] = os.path.abspath(args.baseline)
            for key in ("transition", "commit", "transition_long", "cold_transition"):
                results[f"{key}_vs_baseline"] = med[_OP_OF[key]] / med["baseline_" + _OP_OF[key]]
            results["list_vs_baseline"] = results["list_s"] / results["baseline_list_s"]
        results["load_average"] = os.getloadavg()[0]
        host.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)

    print(f"durable transition, {results['state_bytes']} B state ({args.rounds} rounds, medians)")
    print(f"  floor: tmp+fsync+rename+dir fsync+200 B append+fsync  {results['floor_ms']:8.3f} ms")
    print(
        f"  400 B append + fdatasync (a commit's one sync)     {results['append_floor_ms']:8.3f} ms"
    )
    print(
        f"  the same transition on the memory store (no I/O)    {results['memory_transition_ms']:8.3f} ms"
    )
    _print_store(results, "", args.long)
    if args.baseline:
        print(f"baseline: {results['baseline']}")
        _print_store(results, "baseline_", args.long)
        print("this checkout / the baseline (medians of the same rounds; < 1 is faster)")
        print(
            f"  transition {results['transition_vs_baseline']:.3f}"
            f"   commit {results['commit_vs_baseline']:.3f}"
            f"   long journal {results['transition_long_vs_baseline']:.3f}"
            f"   not remembered {results['cold_transition_vs_baseline']:.3f}"
            f"   list() {results['list_vs_baseline']:.3f}"
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


_OP_OF = {
    "transition": "short",
    "commit": "commit",
    "transition_long": "long",
    "cold_transition": "cold",
}


def _print_store(results: dict[str, Any], prefix: str, entries: int) -> None:
    r = {key[len(prefix) :]: value for key, value in results.items() if key.startswith(prefix)}
    print(
        f"  transition, file store, full pipeline             {r['transition_ms']:8.3f} ms"
        f"  ratio {r['transition_vs_floor']:.2f} (target <= 1.5);"
        f" {r['transition_ms'] / results['append_floor_ms']:.2f}x the append"
    )
    print(
        f"  store.commit alone (record and entry prepared)      {r['commit_ms']:8.3f} ms"
        f"  ratio {r['commit_vs_floor']:.2f}"
    )
    print(
        f"  CPU time (user+system), floor / transition          {results['floor_cpu_ms']:8.3f} / "
        f"{r['transition_cpu_ms']:.3f} ms"
    )
    print(
        f"  same, journal of {entries:,}+ entries             {r['transition_long_ms']:8.3f} ms"
        f"  vs 10 entries {r['long_vs_short']:.3f} (target within 10%)"
    )
    print(
        f"  same, by a store that does not remember the run    {r['cold_transition_ms']:8.3f} ms"
        f"  ratio {r['cold_vs_floor']:.2f}"
    )
    print(
        f"  list() over {results['list_runs']:,} runs, median of 5        "
        f"{r['list_s'] * 1e3:8.1f} ms  (target < 1000 ms; CPU {r['list_cpu_s'] * 1e3:.0f} ms)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
