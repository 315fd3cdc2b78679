"""A separate process hammering one skill (used by test_skills_concurrency.py).

usage: python -m <this package>.skills_worker ROOT MODE WORKER COUNT
  patch  - COUNT patches, each inserting a unique line after the MARK line of SKILL.md
  write  - COUNT write_file calls replacing references/big.md with this worker's content
  edit   - COUNT edits rewriting the body to this worker's padded body
  read   - read SKILL.md and references/big.md raw until the file STOP exists; print
           "torn <reason>" for any read that is not a complete version
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .. import SkillError, SkillStore, check_content


def big(worker: int) -> str:
    return chr(ord("a") + worker) * 300_000 + "\n"


def body(worker: int) -> str:
    return "MARK\n" + (f"edited by {worker}\n" * 4000)


def main() -> int:
    root, mode, worker, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    store = SkillStore(root / "project", use_yaml=False)
    if mode == "read":
        skill_md = root / "project" / "shared" / "SKILL.md"
        support = root / "project" / "shared" / "references" / "big.md"
        valid = {big(w) for w in range(count)}
        reads = 0
        while not (root / "STOP").exists() or reads < 50:
            text = skill_md.read_text(encoding="utf-8")
            try:
                check_content(text)
            except ValueError as exc:
                print(f"torn SKILL.md: {exc}", flush=True)
            if not text.endswith("\n") or "MARK\n" not in text:
                print(f"torn SKILL.md: ends {text[-20:]!r}", flush=True)
            if support.exists():
                content = support.read_text(encoding="utf-8")
                if content not in valid:
                    print(f"torn big.md: {len(content)} chars", flush=True)
            reads += 1
        print(f"reads {reads}", flush=True)
        return 0
    for step in range(count):
        if mode == "patch":
            result = store.patch("shared", "MARK\n", f"MARK\nline {worker}-{step}\n")
        elif mode == "write":
            result = store.write_file("shared", "references/big.md", big(worker))
        else:
            result = store.edit(
                "shared", body(worker) + "".join(f"line {worker}-{s}\n" for s in range(step + 1))
            )
        if isinstance(result, SkillError):
            print(f"error {result.message}", flush=True)
            return 1
        time.sleep(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
