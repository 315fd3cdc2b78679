"""docs/history.md's worked example, run for real: every ``sh`` block in order, in one
empty directory, its output (stdout and stderr, in order) compared with the ``text``
block after it, times compared as <time>."""

from __future__ import annotations

import re
from pathlib import Path

from support import ROOT, command_output_pairs, run_doc_commands

PAGE = ROOT / "docs" / "history.md"
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
BLOCK = re.compile(r"```(sh|text)\n(.*?)```", re.S)


def _pairs() -> list[tuple[str, str]]:
    text = PAGE.read_text(encoding="utf-8")
    example = text[text.index("## A rig run, worked through") : text.index("## Exit codes")]
    return command_output_pairs(BLOCK.findall(example))


def test_the_worked_example_prints_what_the_page_shows(tmp_path: Path) -> None:
    pairs = _pairs()
    assert len(pairs) >= 8, "the worked example lost its command/output blocks"
    for commands, expected in pairs:
        got = run_doc_commands(commands, tmp_path)
        assert TIME.sub("<time>", got) == TIME.sub("<time>", expected), commands
