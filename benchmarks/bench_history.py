"""History costs on a long run: ``state_at`` and ``log --limit 20`` on 100,000 versions.

Run: ``.venv/bin/python -m benchmarks.bench_history [--versions 100000] [--rounds 20]
[--stores memory,file,sqlite,postgresql] [--json out.json]``

A run of ``--versions`` versions (a rig-like state; each patch changes a counter, a
phase or a list) is built once on the memory store through the pipeline, then
imported into each store (``import_run``: the file store writes its journal at once,
SQLite and PostgreSQL in one transaction; each computes its snapshots). Per store, in
one process, each measured ``--rounds`` times (median):

- ``state_at`` of a random version, and of version 1 and the last-but-one;
- ``history(after=n - 21)`` — what ``skillstate log RUN --limit 20`` reads (20 rows
  and the version before them);
- the same ``state_at`` replayed from version 1 without snapshots (the journal read
  whole and folded: what a store that keeps none pays), for the ratio;
- ``skillstate log RUN --limit 20`` and ``skillstate get RUN --at V`` as processes
  (file and SQLite: what a shell pays, start-up included), beside ``skillstate
  --version``.

Target: each well under a second.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skillstate_testing import make_host, sample_skill

from skillstate import Change, create_run, transition
from skillstate.journal import replay_history

__all__ = ["build", "main", "measure"]

RUN = "long-run"
SKILLSTATE = str(Path(sys.executable).with_name("skillstate"))


def build(versions: int) -> tuple[Any, list[Any]]:
    """The record and journal of a run of ``versions`` versions (made on the memory store)."""
    host = make_host("memory:")
    store = host.open_store()
    skill = sample_skill()
    create_run(host, store, skill, RUN, {"counter": 0, "notes": ["start"]})
    phases = ("start", "middle")
    for n in range(1, versions):
        patch: dict[str, Any] = {"counter": n}
        if n % 7 == 0:
            patch["phase"] = phases[(n // 7) % 2]
        if n % 5 == 0:
            patch["notes"] = [f"note {n}", f"note {n - 1}"]
        if n % 11 == 0:
            patch["info"] = {"title": f"t{n}", "detail": {"level": n % 3}}
        outcome = transition(host, store, RUN, Change(patch=patch, label=f"step {n}"), skill=skill)
        assert outcome.accepted, outcome.problems
    record, entries = store.get(RUN), store.journal(RUN)
    host.close()
    return record, entries


def _median_ms(call: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _urls(names: list[str], tmp: str, schema: str) -> dict[str, str]:
    from benchmarks.bench_stores import PG_URL

    urls = {
        "memory": "memory:",
        "file": f"file:{tmp}/state",
        "sqlite": f"sqlite:///{tmp}/runs.db",
        "postgresql": f"{PG_URL}{'&' if '?' in PG_URL else '?'}schema={schema}",
    }
    return {name: urls[name] for name in names}


def _process_ms(args: list[str], url: str, rounds: int) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLSTATE_")}
    env["SKILLSTATE_STORE"] = url

    def call() -> None:
        done = subprocess.run([SKILLSTATE, *args], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    return _median_ms(call, rounds)


def measure(
    url: str, record: Any, entries: list[Any], rounds: int, processes: bool
) -> dict[str, Any]:
    host = make_host(url)
    store = host.open_store()
    start = time.perf_counter()
    store.import_run(record, entries)
    imported = time.perf_counter() - start
    head = record.version
    rng = random.Random(7)
    picks = [rng.randint(1, head) for _ in range(rounds)]
    marks = iter(picks * 2)
    out: dict[str, Any] = {"versions": head, "import_s": imported}
    out["state_at_random_ms"] = _median_ms(lambda: store.state_at(RUN, next(marks)), rounds)
    out["state_at_1_ms"] = _median_ms(lambda: store.state_at(RUN, 1), rounds)
    out["state_at_head_minus_1_ms"] = _median_ms(lambda: store.state_at(RUN, head - 1), rounds)
    out["log_20_ms"] = _median_ms(lambda: list(store.history(RUN, after=head - 21)), rounds)
    out["snapshots"] = len(store.snapshots(RUN))
    full_rounds = max(3, rounds // 5)
    mid = head // 2 + 1
    out["replay_from_1_ms"] = _median_ms(
        lambda: [i for i in replay_history(RUN, store.journal(RUN)) if i.version == mid],
        full_rounds,
    )
    assert store.state_at(RUN, mid) == next(
        i for i in replay_history(RUN, store.journal(RUN)) if i.version == mid
    )
    if processes:
        out["cli_log_20_ms"] = _process_ms(["log", RUN, "--limit", "20"], url, max(3, rounds // 4))
        out["cli_get_at_ms"] = _process_ms(["get", RUN, "--at", str(mid)], url, max(3, rounds // 4))
        out["cli_version_ms"] = _process_ms(["--version"], url, max(3, rounds // 4))
    host.close()
    return out


def main(argv: list[str] | None = None) -> int:
    from skillstate_testing.helpers import postgres_unavailable

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--stores", default="memory,file,sqlite,postgresql")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    from benchmarks.bench_stores import PG_URL, drop_schema

    names = [n for n in args.stores.split(",") if n]
    skipped = {}
    if "postgresql" in names:
        reason = postgres_unavailable(PG_URL)
        if reason:
            names.remove("postgresql")
            skipped["postgresql"] = reason
    start = time.perf_counter()
    record, entries = build(args.versions)
    print(f"built a run of {record.version:,} versions in {time.perf_counter() - start:.1f} s")
    results: dict[str, Any] = {"skipped": skipped}
    schema = f"ss_bench_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="bench-history-") as tmp:
        try:
            for name, url in _urls(names, tmp, schema).items():
                result = measure(url, record, entries, args.rounds, name in ("file", "sqlite"))
                results[name] = result
                cli = (
                    f"; CLI log --limit 20 {result['cli_log_20_ms']:.0f} ms, get --at "
                    f"{result['cli_get_at_ms']:.0f} ms, --version {result['cli_version_ms']:.0f} ms"
                    if "cli_log_20_ms" in result
                    else ""
                )
                print(
                    f"{name:10} state_at random {result['state_at_random_ms']:.1f} ms, "
                    f"v1 {result['state_at_1_ms']:.1f} ms, "
                    f"last-but-one {result['state_at_head_minus_1_ms']:.1f} ms; "
                    f"history of the last 20 {result['log_20_ms']:.1f} ms; replay from 1 "
                    f"{result['replay_from_1_ms']:.0f} ms; {result['snapshots']} snapshots{cli}"
                )
        finally:
            if "postgresql" in names:
                drop_schema(schema)
    for name, reason in skipped.items():
        print(f"{name:10} skipped: {reason}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
