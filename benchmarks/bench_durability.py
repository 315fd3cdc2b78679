"""Durable commits per second at each durability level, per store, against the fsync floor.

Run: ``.venv/bin/python -m benchmarks.bench_durability [--rounds 400] [--stores file,sqlite,postgresql]
[--dir DIR] [--json out.json]``

For each store (``file``, ``sqlite``, and ``postgresql`` when the server at
``SKILLSTATE_BENCH_POSTGRES`` or the test default answers) and each level (``full``,
``process``): one transition through the whole pipeline (read, merge, validate,
budgets, commit) on a run with a ~2 KB state, by one client, the store remembering
the run. The floor is the one sync a durable commit cannot do without: a 400-byte
append + ``fdatasync``, on the same file system. Every operation is timed once per
round, in a fresh random order each round, so disk noise hits all alike; medians.
``commits/s`` is 1 / the median. At ``process`` the background sync thread runs as it
would in a server (its syncs, counted, are in the figures); ``syncs/s`` is how many
group syncs it made per second of the run.
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
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["LEVELS", "main", "measure"]

LEVELS = ("full", "process")
PG_URL = os.environ.get("SKILLSTATE_BENCH_POSTGRES", "postgresql://root@127.0.0.1:5432/test")


def _seed() -> dict[str, Any]:
    """A sample-skill state of about 2 KB of canonical JSON."""
    return {"counter": 0, "notes": [f"note {i}: " + "x" * 230 for i in range(8)]}


def _url(store: str, base: str, level: str, schema: str) -> str:
    if store == "file":
        return f"file:{base}/file-{level}?durability={level}"
    if store == "sqlite":
        return f"sqlite:///{base}/sqlite-{level}.db?durability={level}"
    joiner = "&" if "?" in PG_URL else "?"
    return f"{PG_URL}{joiner}schema={schema}_{level}&durability={level}"


def _append_floor(directory: str) -> Callable[[], None]:
    path = os.path.join(directory, "floor.jsonl")
    line = b"x" * 399 + b"\n"

    def once() -> None:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
            os.fdatasync(fd)
        finally:
            os.close(fd)

    return once


def _transition(host: Any, store: Any, skill: Any) -> Callable[[], None]:
    from skillstate.pipeline import Change, transition

    counter = [0]

    def once() -> None:
        counter[0] += 1
        outcome = transition(
            host, store, "bench", Change(patch={"counter": counter[0]}), skill=skill
        )
        assert outcome.accepted, outcome.problems

    return once


def _drop_schemas(schema: str) -> None:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        for level in LEVELS:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}_{level}" CASCADE')


def measure(stores: list[str], rounds: int, directory: str | None = None) -> dict[str, Any]:
    """The medians per store and level, the floor, and the ratios (see the module docstring)."""
    from skillstate_plugins.file_store.group_sync import pending_syncs
    from skillstate_testing import make_host, sample_skill

    from skillstate.pipeline import create_run

    base = tempfile.mkdtemp(prefix="bench-durability-", dir=directory)
    schema = f"ss_bench_{uuid.uuid4().hex[:10]}"
    skill = sample_skill()
    host = make_host("memory:")
    host.skills  # noqa: B018 - build the registries before timing
    ops: dict[str, Callable[[], None]] = {"floor": _append_floor(base)}
    opened = []
    results: dict[str, Any] = {"rounds": rounds, "stores": stores}
    try:
        for name in stores:
            for level in LEVELS:
                store = host.open_store(_url(name, base, level, schema))
                assert store.durability == level, (name, level, store.durability)
                assert create_run(host, store, skill, "bench", _seed()).accepted
                opened.append(store)
                ops[f"{name}:{level}"] = _transition(host, store, skill)
        for op in ops.values():  # warm up
            for _ in range(10):
                op()
        syncs = pending_syncs()
        syncs_before, started = syncs.syncs, time.perf_counter()
        times: dict[str, list[float]] = {key: [] for key in ops}
        order = list(ops)
        rng = random.Random(18)
        for _ in range(rounds):
            rng.shuffle(order)
            for key in order:
                start = time.perf_counter()
                ops[key]()
                times[key].append(time.perf_counter() - start)
        elapsed = time.perf_counter() - started
        results["group_syncs_per_s"] = (syncs.syncs - syncs_before) / elapsed
        floor = statistics.median(times["floor"])
        results["floor_ms"] = floor * 1e3
        for key, values in times.items():
            if key == "floor":
                continue
            med = statistics.median(values)
            results[key] = {
                "median_ms": med * 1e3,
                "p95_ms": statistics.quantiles(values, n=20)[-1] * 1e3,
                "commits_per_s": 1 / med,
                "vs_floor": med / floor,
            }
        for name in stores:
            results[f"{name}:speedup"] = (
                results[f"{name}:full"]["median_ms"] / results[f"{name}:process"]["median_ms"]
            )
        results["load_average"] = os.getloadavg()[0]
    finally:
        host.close()
        shutil.rmtree(base, ignore_errors=True)
        if "postgresql" in stores:
            _drop_schemas(schema)
    return results


def print_table(results: dict[str, Any]) -> None:
    print(
        f"durable transitions, one client, ~2 KB state ({results['rounds']} rounds, medians); "
        f"fsync floor (400 B append + fdatasync) {results['floor_ms']:.3f} ms"
    )
    print("| store | durability | median | p95 | commits/s | vs the fsync floor |")
    print("|---|---|---|---|---|---|")
    for name in results["stores"]:
        for level in LEVELS:
            r = results[f"{name}:{level}"]
            print(
                f"| {name} | {level} | {r['median_ms']:.3f} ms | {r['p95_ms']:.3f} ms"
                f" | {r['commits_per_s']:,.0f} | {r['vs_floor']:.2f}× |"
            )
    speedups = ", ".join(f"{n} {results[f'{n}:speedup']:.1f}×" for n in results["stores"])
    print(f"process vs full: {speedups}; group syncs {results['group_syncs_per_s']:.1f}/s")
    print(f"1-minute load average at the end: {results['load_average']:.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--stores", default=None, help="comma-separated (default: all reachable)")
    parser.add_argument("--dir", help="where to put the stores (default: the system temp dir)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.stores:
        stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    else:
        from skillstate_testing.helpers import postgres_unavailable

        stores = ["file", "sqlite"] + ([] if postgres_unavailable(PG_URL) else ["postgresql"])
    results = measure(stores, args.rounds, args.dir)
    print_table(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
