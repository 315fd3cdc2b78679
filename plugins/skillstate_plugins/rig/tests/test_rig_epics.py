"""``skillstate migrate-rig-epics``: rig-epic's old ``.rig/epics/<branch>.json`` files become runs."""

from __future__ import annotations

import json

from ..epics import convert_epic, epic_run_id
from . import rigcli
from .rigcli import Cli

cli = rigcli.cli

OLD_EPIC = {
    "parent": "ABC-42",
    "parentTitle": "Agents as definitions",
    "integrationBranch": "abc-42-agent-as-definition",
    "whyEpic": "three children share one schema",
    "children": [
        {
            "id": "ABC-43",
            "title": "schema",
            "blockedBy": [],
            "branch": "abc-43-schema",
            "status": "merged",
        },
        {
            "id": "ABC-44",
            "title": "loader",
            "blockedBy": ["ABC-43"],
            "branch": None,
            "status": "todo",
        },
    ],
}


def test_convert_epic_maps_keys() -> None:
    seed = convert_epic(OLD_EPIC, source="linear")
    assert seed["parent"] == {"id": "ABC-42", "title": "Agents as definitions", "source": "linear"}
    assert list(seed)[:2] == ["phase", "parent"] and seed["phase"] == "run"
    assert "parentTitle" not in seed
    assert seed["children"][1] == {
        "id": "ABC-44",
        "title": "loader",
        "blockedBy": ["ABC-43"],
        "status": "todo",
    }
    assert OLD_EPIC["children"][1]["branch"] is None  # input untouched
    assert epic_run_id("alice/abc-42") == "alice-abc-42"
    assert epic_run_id("abc-42-agent-as-definition") == "abc-42-agent-as-definition"


def test_dry_run_then_apply(cli: Cli) -> None:
    epics = cli.root / ".rig" / "epics"
    epics.mkdir(parents=True)
    (epics / "abc-42-agent-as-definition.json").write_text(json.dumps(OLD_EPIC), encoding="utf-8")
    broken = {**OLD_EPIC, "children": [{"id": "X", "status": "merged"}]}  # merged without branch
    (epics / "broken.json").write_text(json.dumps(broken), encoding="utf-8")

    r = cli.ss("migrate-rig-epics")
    assert r.code == 1
    assert r.out.startswith(
        "would create rig-epic run 'abc-42-agent-as-definition' from .rig/epics/"
    )
    assert "dry run: nothing written" in r.out
    assert "skillstate: cannot migrate .rig/epics/broken.json to run 'broken':" in r.err
    assert "  - a child at status 'merged' must record its branch" in r.err
    assert not cli.state_dir.exists() or not any(cli.state_dir.iterdir())

    (epics / "broken.json").unlink()
    r = cli.ss("migrate-rig-epics", "--apply", "--source", "linear")
    assert r.code == 0, r
    assert "created rig-epic run 'abc-42-agent-as-definition'" in r.out
    state = json.loads(cli.rig("get", "abc-42-agent-as-definition").raw_out)
    assert state["parent"] == {"id": "ABC-42", "title": "Agents as definitions", "source": "linear"}
    assert state["phase"] == "run" and "branch" not in state["children"][1]
    assert (epics / "abc-42-agent-as-definition.json").exists()  # old files are kept
    assert cli.rig("journal", "abc-42-agent-as-definition").out.count('"step":"migrate"') == 1

    r = cli.ss("migrate-rig-epics", "--apply")
    assert r.code == 0 and "run 'abc-42-agent-as-definition' already exists" in r.out
