"""Issue 27 section 4: ``--json`` on ``list``, ``show``, ``journal``, ``doctor``, ``config list``.

Before, these printed only text (tab-separated for ``list``), so a script had to parse
columns; each now has one JSON shape, documented in docs/cli.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import run_skillstate


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for args in (
        ("init", "rig-task", "t1", "--json", '{"nextAction":"write the tests"}'),
        ("patch", "t1", "--json", '{"phase":"spec-review"}'),
        ("init", "rig-task", "t2"),
    ):
        done = run_skillstate(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    return tmp_path


def _json(project: Path, *args: str, code: int = 0) -> object:
    done = run_skillstate(*args, cwd=project)
    assert done.returncode == code, done.stderr
    return json.loads(done.stdout)


def test_list_json(project: Path) -> None:
    rows = _json(project, "list", "--json")
    assert isinstance(rows, list) and [row["id"] for row in rows] == ["t1", "t2"]
    first = rows[0]
    assert set(first) == {"id", "skill", "status", "version", "phase", "updated", "next_action"}
    assert (first["skill"], first["status"], first["version"]) == ("rig-task", "active", 2)
    assert (first["phase"], first["next_action"]) == ("spec-review", "write the tests")
    assert rows[1]["next_action"] is None  # the text's empty column
    text = run_skillstate("list", cwd=project).stdout.splitlines()[0].split("\t")
    assert text == ["t1", "rig-task", "spec-review", first["updated"], "write the tests"]
    assert _json(project, "list", "--json", "--skill", "nope") == []


def test_show_json(project: Path) -> None:
    shown = _json(project, "show", "t1", "--json")
    assert isinstance(shown, dict)
    assert set(shown) == {"id", "skill", "version", "step", "status", "text"}
    assert (shown["id"], shown["version"], shown["status"]) == ("t1", 2, "active")
    assert shown["text"] + "\n" == run_skillstate("show", "t1", cwd=project).stdout
    assert _json(project, "show", "t1", "--json", "--at", "1")["version"] == 1  # type: ignore[index]


def test_journal_json(project: Path) -> None:
    entries = _json(project, "journal", "t1", "--json")
    lines = run_skillstate("journal", "t1", cwd=project).stdout.splitlines()
    raw = [json.loads(line) for line in lines]  # the file store's lines add its "record"
    assert entries == [{k: v for k, v in line.items() if k != "record"} for line in raw]
    assert [e["version"] for e in entries] == [1, 2]  # type: ignore[union-attr,index]
    missing = run_skillstate("journal", "nope", "--json", cwd=project)
    assert (missing.returncode, missing.stdout) == (2, "")


def test_doctor_json(project: Path, tmp_path: Path) -> None:
    clean = _json(
        project, "doctor", "--json", code=run_skillstate("doctor", cwd=project).returncode
    )
    assert isinstance(clean, dict) and set(clean) == {"findings", "fixed"}
    missing = _json(project, "--store", "file:typo", "doctor", "--json", code=0)
    assert isinstance(missing, dict)
    store = [f for f in missing["findings"] if f["check"] == "store"]
    assert len(store) == 1 and store[0]["severity"] == "nit"
    assert set(store[0]) == {"check", "severity", "message", "fix", "source"}
    assert "no store at file:typo" in store[0]["message"]


def test_config_list_json(project: Path) -> None:
    (project / "skillstate.toml").write_text('store = "file:runs"\n')
    listed = _json(project, "config", "list", "--json")
    assert isinstance(listed, dict) and "store" in listed and "durability" in listed
    assert set(listed["store"]) == {"value", "source"}
    assert listed["store"]["value"] == "file:runs"
    assert "skillstate.toml" in listed["store"]["source"]
    assert listed["durability"]["source"] == "default"
    text = run_skillstate("config", "list", cwd=project).stdout.splitlines()
    assert [line.split()[0] for line in text] == list(listed)
