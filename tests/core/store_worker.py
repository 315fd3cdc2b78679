"""A writer process for the store load and crash tests (run as a script, not collected).

``python store_worker.py increment URL RUN N`` — add 1 to ``counter`` N times through
the transition pipeline, each time with the version it read (a conflict re-reads);
prints how many attempts it took.

``python store_worker.py hold URL RUN`` — open a transaction on the store's own
connection, run the store's compare-and-swap for the next version (``counter`` =
-1), print ``holding`` and wait, never committing, until it is killed.
"""

from __future__ import annotations

import sys
import time

import attrs
from skillstate_testing import make_host, sample_skill

from skillstate.errors import VersionConflict
from skillstate.pipeline import Change, transition
from skillstate.records import JournalEntry


def increment(url: str, run_id: str, times: int) -> int:
    host = make_host(url)
    store, skill = host.open_store(), sample_skill()
    attempts = 0
    for _ in range(times):
        while True:
            attempts += 1
            current = store.get(run_id)
            change = Change(patch={"counter": current.state["counter"] + 1})
            try:
                outcome = transition(
                    host, store, run_id, change, skill=skill, expected_version=current.version
                )
            except VersionConflict:
                continue
            if not outcome.accepted:
                raise SystemExit(f"rejected: {outcome.problems}")
            break
    host.close()
    return attempts


def hold(url: str, run_id: str) -> None:
    store = make_host(url).open_store()
    current = store.get(run_id)
    record = attrs.evolve(
        current, state={**current.state, "counter": -1}, version=current.version + 1
    )
    entry = JournalEntry(ts="t", step="held", patch={"counter": -1}, version=record.version)
    if url.startswith("sqlite:"):
        conn = store._conn()
        conn.execute("BEGIN IMMEDIATE")
        store._cas(conn, record, entry, current.version)
    else:
        conn = store._open().getconn()
        conn.execute("BEGIN")
        store._cas(conn, record, entry, current.version)
    print("holding", flush=True)
    while True:
        time.sleep(60)


if __name__ == "__main__":
    mode, url, run_id, *rest = sys.argv[1:]
    if mode == "increment":
        print(increment(url, run_id, int(rest[0])), flush=True)
    elif mode == "hold":
        hold(url, run_id)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
