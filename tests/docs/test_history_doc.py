"""docs/history.md's worked example, run for real: every ``sh`` block in order, in one
empty directory, its output (stdout and stderr, in order) compared with the ``text``
block after it, times compared as <time>."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
from pathlib import Path

from support import ROOT, VENV_BIN, clean_env

PAGE = ROOT / "docs" / "history.md"
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
BLOCK = re.compile(r"```(sh|text)\n(.*?)```", re.S)


def _pairs() -> list[tuple[str, str]]:
    text = PAGE.read_text(encoding="utf-8")
    example = text[text.index("## A rig run, worked through") : text.index("## Exit codes")]
    blocks = BLOCK.findall(example)
    return [
        (body, expected)
        for (kind, body), (next_kind, expected) in itertools.pairwise(blocks)
        if kind == "sh" and next_kind == "text"
    ]


def test_the_worked_example_prints_what_the_page_shows(tmp_path: Path) -> None:
    pairs = _pairs()
    assert len(pairs) >= 8, "the worked example lost its command/output blocks"
    env = clean_env(PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    for commands, expected in pairs:
        done = subprocess.run(
            ["bash", "-c", f"{{\n{commands}}} 2>&1"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert TIME.sub("<time>", done.stdout) == TIME.sub("<time>", expected), commands
