"""Skill store: what each disclosure level costs, in bytes read and time.

Run: ``.venv/bin/python -m benchmarks.bench_skills [--skills 1000] [--body 200000]``

Builds N skills whose SKILL.md bodies are ``--body`` bytes (sparse, so the disk
stays empty), then measures, in one process and interleaved:

- level 1, ``list()`` of all N (frontmatter only);
- the same listing done naively (every SKILL.md read whole), for scale;
- level 2, ``view()`` of one skill.

Bytes come from Linux ``/proc/self/io`` (``rchar``: every byte read(2) returned).
Target: the listing's bytes do not grow with the body size (about 1 KiB per skill).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skillstate_plugins.skill_store import SkillStore, store as store_module
from skillstate_plugins.skill_store.fsio import Header, read_all, scan_header


def rchar() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise RuntimeError("no rchar in /proc/self/io")


def build(root: Path, count: int, body: int) -> SkillStore:
    for index in range(count):
        name = f"skill-{index:05d}"
        directory = root / name
        directory.mkdir(parents=True)
        head = f"---\nname: {name}\ndescription: Skill number {index}\n---\n# Body\n"
        with open(directory / "SKILL.md", "wb") as handle:
            handle.write(head.encode())
            handle.truncate(handle.tell() + body)
    return SkillStore(root, use_yaml=False)


def naive_header(path: Path) -> Header:
    verdict = scan_header(read_all(path), complete=True)
    assert verdict is not None
    return verdict


def measure(call: Callable[[], Any], rounds: int) -> tuple[float, int]:
    times, costs = [], []
    for _ in range(rounds):
        before, start = rchar(), time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
        costs.append(rchar() - before)
    return statistics.median(times), int(statistics.median(costs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--body", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = build(Path(tmp) / "skills", args.skills, args.body)
        listed = measure(store.list, args.rounds)
        original = store_module.read_header
        store_module.read_header = naive_header
        try:
            naive = measure(store.list, args.rounds)
        finally:
            store_module.read_header = original
        viewed = measure(lambda: store.view("skill-00001"), args.rounds)
    n = args.skills
    print(f"{n} skills, bodies of {args.body:,} bytes, median of {args.rounds} rounds")
    print(
        f"list()            {listed[0] * 1000:9.1f} ms  {listed[1]:>14,} bytes  ({listed[1] / n:,.0f} per skill)"
    )
    print(
        f"naive whole-file  {naive[0] * 1000:9.1f} ms  {naive[1]:>14,} bytes  ({naive[1] / n:,.0f} per skill)"
    )
    print(f"view(one)         {viewed[0] * 1000:9.1f} ms  {viewed[1]:>14,} bytes")
    print(
        f"ratio naive/list: {naive[1] / max(listed[1], 1):,.0f}x bytes, {naive[0] / listed[0]:.1f}x time"
    )


if __name__ == "__main__":
    main()
