"""What replacing a small file costs on this filesystem: the file store's record write.

Every commit of the file store puts a new record in place: ``.json.new`` is written
and renamed over ``.json`` (atomic, so a reader never sees half a record). This
measures that pattern alone, beside writing the same bytes into an existing file
without truncating it (not atomic; the floor any file-per-run store could reach), so
a commit's figure can be told apart from the filesystem's. On ext4 with its default
``auto_da_alloc``, renaming over an existing file and truncating one to zero both
start the writeback of the new data at once, which is where most of the difference
goes.

Run: ``python benchmarks/bench_replace.py [--n 2000] [--dir DIR]`` (default: a
temporary directory under the current one, so the filesystem measured is the one a
``file:`` store here would use). Prints a Markdown table of µs per operation.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable

__all__ = ["main"]


def _timed(n: int, body: Callable[[], None]) -> float:
    body()  # warm: the files exist
    start = time.perf_counter()
    for _ in range(n):
        body()
    return (time.perf_counter() - start) / n * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="operations per row (default 2000)")
    parser.add_argument("--dir", default=".", help="where to make the scratch directory")
    parser.add_argument("--size", type=int, default=2000, help="bytes written (default 2000)")
    o = parser.parse_args(argv)
    data = b"x" * o.size
    with tempfile.TemporaryDirectory(dir=o.dir, prefix="bench-replace-") as root:
        record, pending = os.path.join(root, "r.json"), os.path.join(root, "r.json.new")

        def write(path: str, flags: int) -> None:
            fd = os.open(path, os.O_WRONLY | flags, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)

        def replace() -> None:  # what a commit does with its record
            write(pending, os.O_CREAT | os.O_TRUNC)
            os.replace(pending, record)

        def create_only() -> None:  # the same new file, never renamed over anything
            write(pending, os.O_CREAT | os.O_TRUNC)
            os.unlink(pending)

        def in_place() -> None:  # the same bytes over the old ones: no truncation
            fd = os.open(record, os.O_WRONLY)
            try:
                os.pwrite(fd, data, 0)
            finally:
                os.close(fd)

        rows = [
            ("write `.json.new`, rename it over `.json` (the record write)", replace),
            ("write a new file, unlink it (no rename over a file)", create_only),
            ("write the bytes into the existing file (not atomic)", in_place),
        ]
        print(f"| operation ({o.size} B, n={o.n}) | µs |\n|---|---|")
        for label, body in rows:
            print(f"| {label} | {_timed(o.n, body):.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
