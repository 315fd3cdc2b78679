"""Text an agent wrote never drives the terminal: every command that prints it escapes
C0 and C1 controls (ESC, OSC, BEL, CSI) and the bidirectional overrides (U+202E), in
both command lines (``skillstate`` and ``rig-state``), through the real executables."""

from __future__ import annotations

import json
import re
from pathlib import Path

from skillstate_testing import run_command

HOSTILE = "a\x1b]0;pwned\x07b\u202ec\x9bd\u2066e"
"""An OSC that retitles the terminal (ESC ] … BEL), a right-to-left override, a C1 CSI and
a left-to-right isolate."""
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _run(tmp_path: Path, *args: str, prog: str = "skillstate") -> str:
    done = run_command(prog, *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _seeded(tmp_path: Path, prog: str = "skillstate") -> Path:
    _run(tmp_path, "init", "rig-task", "r1", prog=prog)
    patch = {"decisions": [HOSTILE], "nextAction": HOSTILE, "spec": {"title": HOSTILE}}
    _run(tmp_path, "patch", "r1", "--json", json.dumps(patch), prog=prog)
    return tmp_path


def test_show_get_list_log_and_diff_print_no_raw_control(tmp_path: Path) -> None:
    """Before, ``show``, ``get --field`` and ``list`` printed the ESC, BEL and U+202E raw
    (the state could set the terminal's title), and ``get``, ``diff`` and ``log`` the C1
    and bidi characters; now each is escaped, and a JSON output stays the same JSON."""
    _seeded(tmp_path)
    _seeded(tmp_path, "rig-state")
    outputs = {
        "show": _run(tmp_path, "show", "r1"),
        "get --field (text)": _run(tmp_path, "get", "r1", "--field", "nextAction"),
        "get --field (JSON)": _run(tmp_path, "get", "r1", "--field", "decisions"),
        "get": _run(tmp_path, "get", "r1"),
        "list": _run(tmp_path, "list"),
        "log": _run(tmp_path, "log", "r1"),
        "log --json": _run(tmp_path, "log", "r1", "--json"),
        "diff": _run(tmp_path, "diff", "r1", "1", "2"),
        "diff --json": _run(tmp_path, "diff", "r1", "1", "2", "--json"),
        "rig-state show": _run(tmp_path, "show", "r1", prog="rig-state"),
        "rig-state list": _run(tmp_path, "list", prog="rig-state"),
    }
    for name, text in outputs.items():
        assert not RAW.search(text.replace("\t", " ").replace("\n", " ")), (name, text)
    escaped = "a\\x1b]0;pwned\\x07b\\u202ec\\x9bd\\u2066e"
    assert escaped in outputs["show"] and escaped in outputs["list"]
    assert outputs["get --field (text)"] == escaped + "\n"
    assert json.loads(outputs["get --field (JSON)"]) == [HOSTILE]  # the same value
    assert json.loads(outputs["get"])["decisions"] == [HOSTILE]
    assert "\\u202e" in outputs["diff"] and "\\u009b" in outputs["diff"]
    assert {"title": HOSTILE} in [op["value"] for op in json.loads(outputs["diff --json"])]
