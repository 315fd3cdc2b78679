"""``python -m benchmarks``: sections run side by side, one table, a JSON report, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, clean_env


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=300,
    )


@pytest.mark.slow
def test_quick_sections_print_one_table_and_write_json(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = _run("--quick", "--only", "core,warehouse,memory", "--json", str(out))
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert list(report["sections"]) == ["core", "warehouse", "memory"]
    assert all(s["status"] == "ok" for s in report["sections"].values()), report["sections"]
    assert report["quick"] is True and report["machine"]["cpus"] >= 1
    core = report["sections"]["core"]
    assert core["transition"]["median_us"] > 0 and core["startup"]["python_pass_ms"] > 0
    assert report["sections"]["warehouse"]["steps"] == 50
    # the table on stdout has one row per measurement, in section order
    rows = [
        line for line in done.stdout.splitlines() if line.startswith("| ") and "---" not in line
    ]
    assert rows[0] == "| section | measurement | value | notes |"
    sections = [row.split(" | ")[0].lstrip("| ") for row in rows[1:]]
    assert sections == [r[0] for r in report["rows"]]
    assert sections[0] == "core" and sections[-1] == "memory" and "warehouse" in sections


def test_an_unknown_section_is_refused_by_name() -> None:
    done = _run("--only", "core,nope")
    assert done.returncode == 2
    known = "core, file-store, durability, stores, rig-cli, runtime, skills, mcp, warehouse"
    assert f"unknown section(s) nope; known: {known}, history, memory\n" in done.stderr
