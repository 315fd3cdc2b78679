"""The export reader and ``Host.refusals``, through the plugin API: what ``import`` asks
the core and what it refuses, without a command line in between."""

from __future__ import annotations

import hashlib
import json

import attrs
import pytest
from skillstate_testing import make_host

from skillstate.plugin import Change, compact, create_run, transition
from skillstate.plugin.history import dump_export

from ..export_file import FORMAT, FORMAT_VERSION, ExportError, read_export, renamed


def _run(host):  # type: ignore[no-untyped-def]
    store = host.open_store()
    rig = host.skill("rig-task")
    create_run(host, store, rig, "r1", {})
    assert transition(host, store, "r1", Change(patch={"nextAction": "go"}), skill=rig).accepted
    return store.get("r1"), store.journal("r1")


def test_what_the_core_writes_the_reader_reads_back() -> None:
    host = make_host()
    record, entries = _run(host)
    text = dump_export(record, entries, "2026-12-04T00:00:00.000Z")
    head = json.loads(text)
    assert (head["format"], head["format_version"]) == (FORMAT, FORMAT_VERSION)
    assert read_export(text, "r1.json", host.merge) == (record, entries)
    moved, moved_entries = renamed(record, entries, "r2", "runId")
    assert moved.id == "r2" and moved.state["runId"] == "r2"
    assert moved_entries[0].base is not None and moved_entries[0].base["runId"] == "r2"
    edited = text.replace('"nextAction":"go"', '"nextAction":"gone"')
    with pytest.raises(ExportError, match="does not match its sha256"):
        read_export(edited, "r1.json", host.merge)
    with pytest.raises(ExportError, match="cut short or damaged"):
        read_export(text[: len(text) // 2], "r1.json", host.merge)
    doc = json.loads(text)
    doc["run"]["version"] = "2" * 200  # the wrong type, re-digested: named, quoted, bounded
    doc["sha256"] = hashlib.sha256(
        compact({"run": doc["run"], "journal": doc["journal"]}).encode()
    ).hexdigest()
    with pytest.raises(ExportError, match=r'run.version must be a whole number, got "2{79}… '):
        read_export(json.dumps(doc), "r1.json", host.merge)
    host.close()


def test_refusals_name_the_skill_the_schema_and_the_state() -> None:
    host = make_host()
    record, _ = _run(host)
    assert host.refusals(record) == []
    unknown = host.refusals(attrs.evolve(record, skill="no-such-skill"))
    assert [p.code for p in unknown] == ["skill"] and "no-such-skill" in unknown[0].message
    bad_schema = host.refusals(attrs.evolve(record, schema={"type": 12}))
    assert [p.code for p in bad_schema] == ["schema"]
    assert "not a valid JSON Schema" in bad_schema[0].message
    refused = host.refusals(attrs.evolve(record, state={**record.state, "phase": "nope"}))
    assert refused and all(p.code != "skill" for p in refused)
    # a session naming no skill is checked against its own (ad hoc) skill, not a lookup
    adhoc = attrs.evolve(record, skill="skill-state", meta={"adhoc_skill": True}, state={"a": 1})
    assert host.refusals(adhoc) == []
    host.close()
