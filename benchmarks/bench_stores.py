"""Store benchmark: transition latency and multi-client throughput per store.

For each store (memory, file if its plugin is installed, sqlite, postgresql):

- the median (and p95) latency of one transition on a run with a ~2 KB state,
  through the whole pipeline (read, merge, validate, budgets, commit);
- throughput (committed transitions per second) with 1, 4 and 16 concurrent
  clients, each a separate process with its own store (memory: threads in one
  process, since a memory store lives in one process), on distinct runs (one per
  client) and on one shared run. Every client increments ``counter`` with the version
  it read and retries on a conflict, so the shared run's final counter must equal
  the number of commits: any difference is a lost update (reported, and fatal).

Run: ``.venv/bin/python benchmarks/bench_stores.py [--seconds 3] [--repeat 3] [--stores sqlite,postgresql]``
(``SKILLSTATE_BENCH_POSTGRES`` overrides the server URL; a fresh schema is used and
dropped). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from typing import Any

__all__ = ["PG_URL", "drop_schema", "main"]

PG_URL = os.environ.get("SKILLSTATE_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
CLIENTS = (1, 4, 16)


def drop_schema(schema: str) -> None:
    """Drop a benchmark's PostgreSQL ``schema`` (and all in it) from :data:`PG_URL`."""
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _seed() -> dict[str, Any]:
    """A sample-skill state of about 2 KB of canonical JSON."""
    return {"counter": 0, "notes": [f"note {i}: " + "x" * 230 for i in range(8)]}


def _setup(url: str, run_ids: list[str]) -> None:
    from skillstate_testing import make_host, sample_skill

    from skillstate.pipeline import create_run

    host = make_host(url)
    store = host.open_store()
    for run_id in run_ids:
        assert create_run(host, store, sample_skill(), run_id, _seed()).accepted
    host.close()


def _increments(url: str, run_id: str, ready: Any, go: Any, seconds: float) -> tuple[int, int]:
    """Commit +1 increments for ``seconds`` after ``go`` is set; returns (commits, conflicts)."""
    from skillstate_testing import make_host, sample_skill

    from skillstate.errors import VersionConflict
    from skillstate.pipeline import Change, transition

    host = make_host(url)
    store, skill = host.open_store(), sample_skill()
    store.get(run_id)  # connect before the clock starts
    ready.put(1)
    go.wait()
    stop_at = time.monotonic() + seconds
    commits = conflicts = 0
    current = store.get(run_id)
    while time.monotonic() < stop_at:
        change = Change(patch={"counter": current.state["counter"] + 1})
        try:
            outcome = transition(
                host, store, run_id, change, skill=skill, expected_version=current.version
            )
            current = outcome.record  # what a runtime keeps between steps
            commits += 1
        except VersionConflict:
            conflicts += 1
            current = store.get(run_id)
    host.close()
    return commits, conflicts


def _client(url: str, run_id: str, ready: Any, go: Any, seconds: float, out: Any) -> None:
    out.put(_increments(url, run_id, ready, go, seconds))


def _throughput(url: str, clients: int, shared: bool, seconds: float) -> tuple[float, int, int]:
    """(commits per second, conflicts, lost updates) for one configuration."""
    from skillstate_testing import make_host

    tag = uuid.uuid4().hex[:8]
    run_ids = [f"s-{tag}"] if shared else [f"d-{tag}-{n}" for n in range(clients)]
    _setup(url, run_ids)
    targets = [run_ids[0] if shared else run_ids[n] for n in range(clients)]
    results: list[tuple[int, int]] = []
    if url.startswith("memory:"):
        import queue as queue_module

        lock = threading.Lock()
        ready: Any = queue_module.Queue()
        go: Any = threading.Event()

        def run_thread(run_id: str) -> None:
            result = _increments(url, run_id, ready, go, seconds)
            with lock:
                results.append(result)

        threads = [threading.Thread(target=run_thread, args=(r,)) for r in targets]
        for t in threads:
            t.start()
        for _ in threads:
            ready.get(timeout=120)
        go.set()
        for t in threads:
            t.join()
    else:
        ctx = multiprocessing.get_context("spawn")
        ready, go, out = ctx.Queue(), ctx.Event(), ctx.Queue()
        procs = [
            ctx.Process(target=_client, args=(url, r, ready, go, seconds, out)) for r in targets
        ]
        for p in procs:
            p.start()
        for _ in procs:
            ready.get(timeout=300)
        go.set()
        results = [out.get(timeout=seconds + 120) for _ in procs]
        for p in procs:
            p.join()
    commits = sum(r[0] for r in results)
    conflicts = sum(r[1] for r in results)
    host = make_host(url)
    store = host.open_store()
    counted = sum(store.get(r).state["counter"] for r in run_ids)
    journaled = sum(len(store.journal(r)) - 1 for r in run_ids)
    host.close()
    lost = commits - counted + abs(counted - journaled)
    return commits / seconds, conflicts, lost


def _latency(url: str, n: int) -> tuple[float, float]:
    """(median, p95) milliseconds of one transition, single client."""
    from skillstate_testing import make_host, sample_skill

    from skillstate.pipeline import Change, transition

    run_id = f"lat-{uuid.uuid4().hex[:8]}"
    _setup(url, [run_id])
    host = make_host(url)
    store, skill = host.open_store(), sample_skill()
    times = []
    for i in range(n + 20):
        began = time.perf_counter()
        transition(host, store, run_id, Change(patch={"counter": i}), skill=skill)
        if i >= 20:  # warm-up: connections, prepared statements
            times.append((time.perf_counter() - began) * 1000)
    host.close()
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def _urls(names: list[str], tmp: str, schema: str) -> dict[str, str]:
    from skillstate_testing import make_host

    known = set(make_host().stores.names())
    urls = {
        "memory": f"memory:bench-{uuid.uuid4().hex[:6]}",
        "file": f"file:{tmp}/file-store",
        "sqlite": f"sqlite:///{tmp}/bench.db",
        "postgresql": f"{PG_URL}?schema={schema}&pool_min=1&pool_max=2",
    }
    return {n: urls[n] for n in names if n in known}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per throughput measurement")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="throughput trials per cell, interleaved (median kept)",
    )
    parser.add_argument("--latency-n", type=int, default=300, help="transitions timed")
    parser.add_argument("--stores", default="memory,file,sqlite,postgresql")
    args = parser.parse_args(argv)
    schema = f"ss_bench_{uuid.uuid4().hex[:8]}"
    rows = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="ss-bench-") as tmp:
        try:
            for name, url in _urls(args.stores.split(","), tmp, schema).items():
                median, p95 = _latency(url, args.latency_n)
                row = [name, f"{median:.2f}", f"{p95:.2f}"]
                cells = [(shared, clients) for shared in (False, True) for clients in CLIENTS]
                trials: dict[tuple[bool, int], list[tuple[float, int, int]]] = {
                    cell: [] for cell in cells
                }
                for _ in range(args.repeat):  # interleaved, so a noisy minute hits every cell
                    for shared, clients in cells:
                        trials[shared, clients].append(
                            _throughput(url, clients, shared, args.seconds)
                        )
                single = statistics.median(t[0] for t in trials[False, 1])
                for shared, clients in cells:
                    rate = statistics.median(t[0] for t in trials[shared, clients])
                    conflicts = sum(t[1] for t in trials[shared, clients])
                    lost = sum(t[2] for t in trials[shared, clients])
                    cell = f"{rate:,.0f}"
                    if not shared and clients == 16 and single:
                        cell += f" ({rate / single:.1f}x)"
                    if shared and clients > 1:
                        cell += f" ({conflicts:,} conflicts)"
                    if lost:
                        cell += f" **{lost} LOST**"
                        failed = True
                    row.append(cell)
                print(" | ".join(row), file=sys.stderr, flush=True)
                rows.append(row)
        finally:
            if "postgresql" in args.stores:
                import psycopg

                with psycopg.connect(PG_URL, autocommit=True) as conn:
                    conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    header = ["store", "median ms", "p95 ms"]
    header += [f"distinct x{c}" for c in CLIENTS] + [f"shared x{c}" for c in CLIENTS]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(
        f"\n{os.cpu_count()} CPUs; throughput = committed transitions/s over {args.seconds:g} s"
        f" (median of {args.repeat}); conflicts summed over the trials"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
