"""The ``rig-state`` golden tests against another ``rig-state``, e.g. rig's own under Bun.

Run: ``.venv/bin/python benchmarks/rig_goldens.py --cmd "bun /path/to/rig-state.ts"``
(from the checkout; ``--cmd`` is any command line that behaves as ``rig-state``).

Two measurements, both through the tests in ``plugins/skillstate_plugins/rig/tests``
(``--tests`` picks others; default: the golden transcripts and the reference's own
test list):

1. **tests**: each test run as written, once against ours and once with
   ``RIG_STATE_CMD`` set to ``--cmd``, so every assertion of the goldens (stdout,
   stderr and exit code, timestamps as ``<ts>``) is applied to that command.
2. **invocations**: the tests run against ours with ``RIG_STATE_SHADOW`` set to
   ``--cmd``: every ``rig-state`` invocation is repeated, in a sibling scratch project,
   by the other command, and the two (exit code, stdout, stderr) are compared; each
   difference is printed.

This file holds no code of the other command and fetches nothing: bring your own.
Exit 0 when everything matched, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

__all__ = ["main"]

TESTS = Path(__file__).resolve().parent.parent / "plugins/skillstate_plugins/rig/tests"
GOLDEN = ["test_rig_cli.py", "test_rig_cli_conformance.py"]


def _pytest(files: list[str], env: dict[str, str], scratch: Path, tag: str) -> dict[str, bool]:
    """Each test's outcome (True: passed), run with ``env`` added."""
    report = scratch / f"{tag}.xml"
    flags = ["-q", "-n0", "-p", "no:randomly", "-p", "no:cacheprovider", f"--junitxml={report}"]
    subprocess.run(
        [sys.executable, "-m", "pytest", *flags, *(str(TESTS / f) for f in files)],
        env={**os.environ, **env},
        capture_output=True,
        check=False,
    )
    outcome = {}
    for case in ET.parse(report).iter("testcase"):
        name = f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}"
        outcome[name] = not any(c.tag in ("failure", "error") for c in case)
    return outcome


def _cut(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _invocations(files: list[str], cmd: str, scratch: Path) -> tuple[int, list[dict[str, object]]]:
    log = scratch / "shadow.jsonl"
    _pytest(files, {"RIG_STATE_SHADOW": cmd, "RIG_STATE_LOG": str(log)}, scratch, "shadow")
    entries = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    keys = ("code", "out", "err")
    differ = [e for e in entries if [e["ours"][k] for k in keys] != [e["shadow"][k] for k in keys]]
    return len(entries), differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cmd", required=True, help='e.g. "bun /path/to/rig-state.ts"')
    parser.add_argument("--tests", nargs="+", default=GOLDEN, help="test files under rig/tests")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        ours = _pytest(args.tests, {}, scratch, "ours")
        theirs = _pytest(args.tests, {"RIG_STATE_CMD": args.cmd}, scratch, "theirs")
        total, differ = _invocations(args.tests, args.cmd, scratch)
    print(f"tests: {sum(ours.values())}/{len(ours)} pass against ours, ", end="")
    print(f"{sum(theirs.values())}/{len(theirs)} against {args.cmd}")
    for name, ok in theirs.items():
        if not ok:
            print(f"  fails against {args.cmd}: {name}")
    for name, ok in ours.items():
        if not ok:
            print(f"  fails against ours: {name}")
    print(f"invocations: {total - len(differ)}/{total} give the same exit code, stdout and stderr")
    for e in differ:
        print(f"- {e['test']}: rig-state {' '.join(_cut(str(a), 60) for a in e['args'])}")  # type: ignore[union-attr]
        for key in ("code", "out", "err"):
            mine, other = e["ours"][key], e["shadow"][key]  # type: ignore[index]
            if mine != other:
                print(f"    {key}  ours: {_cut(repr(mine))}\n    {key} other: {_cut(repr(other))}")
    return 0 if all(ours.values()) and all(theirs.values()) and not differ else 1


if __name__ == "__main__":
    raise SystemExit(main())
