"""The run inspector's pages on big stores: a list of 10,000 runs, a run of 10,000 versions.

Run: ``.venv/bin/python -m benchmarks.bench_ui [--runs 10000] [--versions 10000]
[--rounds 10] [--stores file,sqlite,postgresql] [--json out.json]``

Per store: ``--runs`` one-version rig runs (statuses mixed) are written, and one run of
``--versions`` versions (built once on the memory store through the pipeline, then
imported: ``import_run``). A real ``skillstate ui --port 0`` process serves the store;
each page is fetched over HTTP on 127.0.0.1, ``--rounds`` times (median, ms, the whole
request: parse, store reads, render, transfer):

- the list: page 1; filtered by skill; by status; an id search; the last page;
- the long run's page (Σ, metadata and the newest 50 versions of the timeline); its
  oldest timeline page; a page in the middle;
- a diff of two versions in the middle, the state at a version in the middle;
- the live poll when nothing is new (what an open page asks every 1.5 s);
- the export download of the long run (its whole journal);

and, in this process, the list page's query without the listing the server keeps
(``list_view`` reading the whole store listing, as the first request after start-up
does, and every refresh in the background).

Target: each page well under a second.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

__all__ = ["PAGES", "fill", "main", "measure"]

SKILLSTATE = str(Path(sys.executable).with_name("skillstate"))
LONG = "long-run"


def _pages(runs: int, versions: int) -> dict[str, str]:
    """Each measured page's path; every version named is one the long run has (1..versions),
    so a short run (``--versions 21`` or fewer) asks for no version 0 (a 400)."""
    mid = max(1, versions // 2)
    old = max(1, mid - 10)
    return {
        "list page 1": "/",
        "list, skill filter": "/?skill=rig-task",
        "list, status filter": "/?status=completed",
        "list, id search": "/?q=r-0042",
        "list, last page": f"/?page={max(1, -(-(runs + 1) // 50))}",
        "run page (newest 50 versions)": f"/runs/{LONG}",
        "timeline, oldest page": f"/runs/{LONG}?page={-(-versions // 50)}",
        "timeline, middle page": f"/runs/{LONG}?page={max(1, versions // 100)}",
        "diff of two versions": f"/runs/{LONG}/diff?from={old}&to={mid}",
        "state at a version": f"/runs/{LONG}/at/{mid}",
        "live poll, nothing new": f"/api/runs/{LONG}/versions?after={versions}",
        "export download": f"/runs/{LONG}/export",
    }


PAGES = tuple(_pages(10_000, 10_000))


def fill(url: str, runs: int, record: Any, entries: list[Any]) -> float:
    """Write ``runs`` small rig runs and the long run into the store; seconds taken."""
    from skillstate_testing import make_host

    from skillstate.records import JournalEntry, RunRecord

    host = make_host(url)
    store = host.open_store()
    start = time.perf_counter()
    statuses = ("active", "active", "completed", "closed")
    for n in range(runs):
        stamp = f"2026-12-01T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        state = {
            "runId": f"r-{n:05d}",
            "skill": "rig-task",
            "phase": ("spec", "red", "green", "done")[n % 4],
            "nextAction": f"step {n}",
            "createdAt": stamp,
            "updatedAt": stamp,
        }
        status = statuses[n % 4]
        run = RunRecord(
            id=f"r-{n:05d}", skill="rig-task", state=state, status=status,
            created=stamp, updated=stamp,
        )  # fmt: skip
        entry = JournalEntry(
            ts=stamp, step="init", patch={}, version=1, base=state, status=status, turn=0
        )
        store.import_run(run, [entry])
    store.import_run(record, entries)
    took = time.perf_counter() - start
    host.close()
    return took


def _get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        assert response.status == 200, (path, response.status, body[:200])
        return len(body)
    finally:
        conn.close()


def cold_listing(url: str, rounds: int) -> float:
    """Median milliseconds of the list page's query reading the whole store listing."""
    from skillstate_plugins.inspector.queries import list_view
    from skillstate_testing import make_host

    host = make_host(url)
    store = host.open_store()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        list_view(host, store)
        times.append((time.perf_counter() - start) * 1000)
    host.close()
    return statistics.median(times)


def measure(url: str, runs: int, versions: int, rounds: int, tmp: str) -> dict[str, Any]:
    """Median milliseconds per page of a ``skillstate ui`` serving ``url``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLSTATE_")}
    env["SKILLSTATE_STORE"] = url
    log = Path(tmp, f"ui-{uuid.uuid4().hex[:6]}.log")
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [SKILLSTATE, "ui", "--port", "0"], env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 60
        port = 0
        while not port and time.monotonic() < deadline:
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", log.read_text())
            if found:
                port = int(found.group(1))
            elif proc.poll() is not None:
                raise RuntimeError(log.read_text())
            time.sleep(0.05)
        results: dict[str, Any] = {}
        for name, path in _pages(runs, versions).items():
            size = _get(port, path)  # warm: templates compiled, files cached
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                _get(port, path)
                times.append((time.perf_counter() - start) * 1000)
            results[name] = {"ms": statistics.median(times), "max_ms": max(times), "bytes": size}
        return results
    finally:
        proc.terminate()
        proc.wait(10)


def _at_least(low: int) -> Any:
    """An argparse type: a whole number >= ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {low}, got {value}")
        return value

    return parse


def main(argv: list[str] | None = None) -> int:
    from skillstate_testing.helpers import postgres_unavailable

    from benchmarks.bench_history import _urls, build
    from benchmarks.bench_stores import PG_URL, drop_schema

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=_at_least(0), default=10_000)
    parser.add_argument("--versions", type=_at_least(1), default=10_000)
    parser.add_argument("--rounds", type=_at_least(1), default=10)
    parser.add_argument("--stores", default="file,sqlite,postgresql")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    names = [n for n in args.stores.split(",") if n]
    skipped = {}
    if "postgresql" in names and (reason := postgres_unavailable(PG_URL)):
        names.remove("postgresql")
        skipped["postgresql"] = reason
    record, entries = build(args.versions)
    from benchmarks.bench_history import RUN

    assert RUN == LONG
    results: dict[str, Any] = {"runs": args.runs, "versions": args.versions, "skipped": skipped}
    schema = f"ss_bench_ui_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="bench-ui-") as tmp:
        urls = _urls(names, tmp, schema)
        try:
            for name in names:
                took = fill(urls[name], args.runs, record, entries)
                print(
                    f"{name}: {args.runs:,} runs + a run of {args.versions:,} versions in {took:.1f} s"
                )
                results[name] = measure(urls[name], args.runs, args.versions, args.rounds, tmp)
                results[name]["fill_s"] = took
                cold = cold_listing(urls[name], max(3, args.rounds // 2))
                results[name]["list, whole store listing (in-process)"] = {"ms": cold}
        finally:
            if "postgresql" in names:
                drop_schema(schema)
    header = f"| page | {' | '.join(names)} |"
    print(header)
    print("|---" * (len(names) + 1) + "|")
    for page in [*_pages(args.runs, args.versions), "list, whole store listing (in-process)"]:
        cells = [f"{results[n][page]['ms']:.1f} ms" for n in names]
        print(f"| {page} | {' | '.join(cells)} |")
    for name, reason in skipped.items():
        print(f"{name}: skipped: {reason}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
