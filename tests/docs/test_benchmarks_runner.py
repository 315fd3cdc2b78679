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
    assert "unknown section(s) nope; known: core, file-store, stores" in done.stderr


def test_the_plot_script_writes_an_svg_with_the_four_runtimes(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    target = tmp_path / "sizes.svg"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.plot_prompt_sizes",
            "--horizon",
            "12",
            "--out",
            str(target),
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    root = ET.parse(target).getroot()
    lines = root.findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 4 and all(len(p.get("points", "").split()) == 12 for p in lines)
    labels = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for name in ("SKILL.state (A.4)", "ReAct (A.1)", "Memory (A.2)", "Stateful (A.3)"):
        assert name in labels
    # the flat line stays flat, the history line grows
    first, last = out.stdout.splitlines()[0], out.stdout.splitlines()[1]
    assert first.startswith("skill-state") and last.startswith("react")
