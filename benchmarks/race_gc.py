"""Lost writes under ``gc``: a writer process patches aged runs while ``gc`` deletes them.

Every run starts aged (older than ``gc --older-than 2s`` by the time gc starts). A
writer process patches the runs round-robin and keeps every acknowledged patch with
the ``updated`` time of the record it wrote; ``gc --older-than 2s --json`` runs again
and again meanwhile and says, for each run it deleted, the ``updated`` time it saw. A
patch is **lost** when it was acknowledged and its run deleted although the patch is
later than what gc saw (a patch can only be acknowledged while the run exists, so it
landed between gc's read and its delete).

    python -m benchmarks.race_gc --store sqlite:/tmp/race.db --runs 300 --seconds 20

Prints one line: acknowledged patches, lost patches, runs deleted, gc passes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _writer(url: str, ids: list[str], stop_at: float, queue: Any) -> None:
    from skillstate_testing import make_host

    from skillstate.errors import RunNotFound, VersionConflict
    from skillstate.pipeline import Change, transition

    host = make_host(url)
    store = host.open_store()
    skill = host.skills.get("rig-task")
    acked: list[tuple[str, str]] = []
    gone: set[str] = set()
    n = 0
    while time.monotonic() < stop_at and len(gone) < len(ids):
        run_id = ids[n % len(ids)]
        n += 1
        if run_id in gone:
            continue
        try:
            outcome = transition(
                host, store, run_id, Change(patch={"nextAction": f"step {n}"}), skill=skill
            )
        except RunNotFound:
            gone.add(run_id)
            continue
        except VersionConflict:
            continue
        if outcome.accepted and outcome.record is not None:
            acked.append((run_id, outcome.record.updated))
    host.close()
    queue.put(acked)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    skillstate = str(Path(sys.executable).parent / "skillstate")
    from skillstate_testing import make_host

    from skillstate.pipeline import create_run

    host = make_host(args.store)
    store = host.open_store()
    skill = host.skills.get("rig-task")
    ids = [f"aged-{i:04d}" for i in range(args.runs)]
    for run_id in ids:
        assert create_run(host, store, skill, run_id, {}).accepted
    host.close()
    time.sleep(2.2)  # every run is now older than 2s
    stop_at = time.monotonic() + args.seconds
    queue: Any = multiprocessing.Queue()
    writer = multiprocessing.Process(target=_writer, args=(args.store, ids, stop_at, queue))
    writer.start()
    seen: dict[str, str] = {}  # run -> the updated time gc saw when it deleted it
    passes = 0
    while time.monotonic() < stop_at:
        out = subprocess.run(
            [skillstate, "--store", args.store, "gc", "--older-than", "2s", "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        passes += 1
        if out.returncode == 0:
            for row in json.loads(out.stdout)["runs"]:
                seen[row["id"]] = row["updated"]
    acked = queue.get()
    writer.join()
    lost = sum(1 for run_id, updated in acked if run_id in seen and updated > seen[run_id])
    print(
        f"{len(acked)} patches acknowledged, {lost} lost (acknowledged after gc read the "
        f"run, then deleted with it), {len(seen)} runs deleted, {passes} gc passes"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
