"""docs/ui.md stays true: its error examples print what the page shows, the URL line is
the one the command prints, and every option in its table exists."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from support import (
    ROOT,
    SKILLSTATE,
    clean_env,
    command_output_pairs,
    run_doc_commands,
    run_skillstate,
)

PAGE = ROOT / "docs" / "ui.md"
BLOCK = re.compile(r"```(sh|bash|text)\n(.*?)```", re.S)


def _blocks() -> list[tuple[str, str]]:
    return BLOCK.findall(PAGE.read_text(encoding="utf-8"))


def test_the_error_examples_print_what_the_page_shows(tmp_path: Path) -> None:
    pairs = command_output_pairs(_blocks())
    assert pairs, "docs/ui.md lost its command/output blocks"
    for commands, expected in pairs:
        assert run_doc_commands(commands, tmp_path) == expected, commands


def test_the_url_line_is_the_one_the_command_prints(tmp_path: Path) -> None:
    kinds = _blocks()
    start = next(i for i, (kind, body) in enumerate(kinds) if "skillstate ui" in body)
    expected = next(body for kind, body in kinds[start:] if kind == "text").strip()
    log = tmp_path / "ui.log"
    (tmp_path / ".skillstate" / "state").mkdir(parents=True)  # ui shows a store, never makes one
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [SKILLSTATE, "ui", "--port", "0"],
            cwd=tmp_path,
            env=clean_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "\n" not in log.read_text():
            assert proc.poll() is None, log.read_text()
            time.sleep(0.05)
        line = log.read_text().splitlines()[0]
    finally:
        proc.terminate()
        proc.wait(10)
    assert re.sub(r":\d+/", ":3212/", line) == expected


def test_every_documented_option_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    table = text[text.index("| option |") : text.index("`skillstate mcp --http --ui` serves")]
    options = re.findall(r"^\| `(--[a-z-]+)", table, re.M)
    assert len(options) >= 6, options
    ui_help = run_skillstate("ui", "--help").stdout
    top_help = run_skillstate("--help").stdout
    mcp_help = run_skillstate("mcp", "--help").stdout
    for option in options:
        assert option in ui_help or option in top_help, option
    assert "--ui" in mcp_help
    for command in re.findall(r"^(skillstate [^#\n]*?)\s*(?:#.*)?$", text, re.M):
        words = command.split()
        flags = [w.split("=", 1)[0].rstrip(";") for w in words if w.startswith("--")]
        where = mcp_help if "mcp" in words else ui_help
        for flag in flags:
            assert flag in where or flag in top_help, (command, flag)
