"""What a file-store commit's record files cost around its one ``fdatasync``, on this disk.

Run: ``.venv/bin/python benchmarks/bench_record_swap.py [--n 1000] [--rounds 3] [--dir D]``

Three loops, interleaved, each making ``--n`` "commits" of a 2 KB record and a 400 B
journal line in a temporary directory (on the disk of ``--dir``, default the current
directory):

- ``append``: the journal line appended and ``fdatasync``ed — the floor of a durable commit;
- ``create``: what the file store does (docs/storage-format.md, "Writing"): create and
  write ``.json.new``, append and sync, exchange it with the record
  (``renameat2(RENAME_EXCHANGE)``), unlink the old record;
- ``spare``: the same but the record written over a kept spare file and exchanged, with
  no create and no unlink (a design the storage format does not use: it would change what
  a left-over ``.json.new`` means after a crash).

Printed: CPU (this process) and wall time per commit. On ext4 the sync commits the file
system's journal transaction, which also carries the create and unlink: the gap between
``create`` and ``spare`` is what the record dance adds to each durable commit.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import tempfile
import time
from collections.abc import Callable

from skillstate_plugins.file_store import fileio

RECORD = b"x" * 2000
LINE = b"y" * 400 + b"\n"


def _exchange() -> Callable[[str, str], None]:
    """The file store's own ``renameat2(RENAME_EXCHANGE)`` (``fileio``), as a function."""
    function = fileio._load_renameat2()
    if not function:
        raise SystemExit("bench_record_swap: this system has no renameat2")

    def exchange(a: str, b: str) -> None:
        if function(-100, a.encode(), -100, b.encode(), fileio._RENAME_EXCHANGE) != 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code), b)

    return exchange


def bench(n: int, rounds: int, where: str) -> dict[str, dict[str, float]]:
    """Median CPU and wall µs per commit of each loop over ``rounds`` interleaved rounds."""
    exchange = _exchange()
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        path = lambda name: os.path.join(tmp, name)  # noqa: E731
        for name in ("r.json", "s.json", "s.spare"):
            with open(path(name), "wb") as f:
                f.write(RECORD)
        journal = os.open(path("j.jsonl"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

        def append() -> None:
            os.write(journal, LINE)
            os.fdatasync(journal)

        def create() -> None:
            fd = os.open(path("r.json.new"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.write(fd, RECORD)
            os.close(fd)
            append()
            exchange(path("r.json.new"), path("r.json"))
            os.unlink(path("r.json.new"))

        def spare() -> None:
            fd = os.open(path("s.spare"), os.O_WRONLY)
            os.write(fd, RECORD)
            os.close(fd)
            append()
            exchange(path("s.spare"), path("s.json"))

        loops = {"append": append, "create": create, "spare": spare}
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in loops}
        try:
            for _ in range(rounds):
                for name, loop in loops.items():
                    cpu, wall = time.process_time(), time.perf_counter()
                    for _ in range(n):
                        loop()
                    samples[name].append(
                        ((time.process_time() - cpu) / n, (time.perf_counter() - wall) / n)
                    )
        finally:
            os.close(journal)
    return {
        name: {
            "cpu_us": round(statistics.median(s[0] for s in got) * 1e6, 1),
            "wall_us": round(statistics.median(s[1] for s in got) * 1e6, 1),
        }
        for name, got in samples.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="commits per loop and round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--dir", default=".", help="a directory on the disk to measure")
    args = parser.parse_args()
    if args.n < 1 or args.rounds < 1:
        parser.error("--n and --rounds must be at least 1")
    for name, figures in bench(args.n, args.rounds, args.dir).items():
        print(f"{name:8s} {figures['cpu_us']:8.1f} µs CPU {figures['wall_us']:8.1f} µs wall")


if __name__ == "__main__":
    main()
