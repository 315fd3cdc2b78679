"""``session_prompt``: a session's prompt at any version, byte for byte what the runtime
rendered then (``paper_prompt``, ``paper_prompt(compact=False)``, ``turn_prompt``), on
every bundled store, through exports, and for entries that kept only a digest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from skillstate_testing import make_host, temporary_store_url
from skillstate_testing.helpers import STORE_KINDS

from skillstate.errors import InvalidInput, VersionNotFound
from skillstate.plugin.history import dump_export
from skillstate.plugin.runtime import Runtime, session_prompt

SPEC = "Keep count.\n\tNever skip é 😀 \u202e."


def _rendered(rt: Runtime, sid: str) -> dict[str, str]:
    return {
        "paper": rt.paper_prompt(sid),
        "paper-pretty": rt.paper_prompt(sid, compact=False),
        "turn": rt.turn_prompt(sid),
    }


def drive(rt: Runtime, sid: str = "s") -> dict[int, dict[str, str]]:
    """A session of accepted, rolled-back (schema and environment), injected and closing
    writes; the prompts the runtime rendered after each version."""
    seen: dict[int, dict[str, str]] = {}

    def note() -> None:
        seen[rt.store.get(sid).version] = _rendered(rt, sid)

    rt.initialize_skill(
        sid,
        SPEC,
        {"n": 0, "log": []},
        state_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
        environment="mock",
    )
    note()
    rt.execute_step(sid, "r", {"n": 1, "log": ["a"]}, "first")
    note()
    assert rt.execute_step(sid, "r", {"n": "x"}, "bad")["meta"]["rolled_back"]  # schema
    note()
    refused = {"type": "fail", "reason": "no", "reject_transition": True}
    assert rt.execute_step(sid, "r", {"n": 5}, refused)["meta"]["rejection"] == "environment"
    note()
    rt.execute_step(sid, "r", {"n": 2, "log": ["a", "b"]}, {"type": "noop"})
    note()
    rt.inject_observation(sid, "an alert\nwith two lines\r\nand a CR")
    note()
    rt.execute_step(sid, "r", {"n": 3}, "third")
    note()
    rt.close_session(sid)  # no new observation: the prompt keeps the last one
    note()
    return seen


@pytest.fixture(params=STORE_KINDS)
def runtime(request: pytest.FixtureRequest, tmp_path: Path):
    with temporary_store_url(request.param, tmp_path) as url:
        host = make_host(url)
        yield Runtime(host=host, max_active_sessions=0, session_idle_ttl=0)
        host.close()


def test_every_version_renders_the_prompt_the_runtime_rendered_then(runtime: Runtime) -> None:
    seen = drive(runtime)
    head = runtime.store.get("s").version
    assert sorted(seen) == list(range(1, head + 1)) and head == 8
    for version, prompts in seen.items():
        for style, text in prompts.items():
            got = session_prompt(runtime.store, "s", version, style=style)
            assert got["text"] == text, (version, style)
            assert "".join(p["text"] for p in got["parts"]) == text
            assert [p["part"] for p in got["parts"] if p["part"]] == ["P", "Σ", "O"]
            assert got["observation_kept"] is True
    # P, Σ and O are the pieces they say they are
    got = session_prompt(runtime.store, "s", 2)
    parts = {p["part"]: p["text"] for p in got["parts"] if p["part"]}
    assert parts["P"] == SPEC and json.loads(parts["Σ"]) == {"n": 1, "log": ["a"]}
    assert (got["step"], got["status"], got["head"]) == (1, "active", head)
    rolled = session_prompt(runtime.store, "s", 3)
    assert rolled["step"] == 1 and "[STATE SCHEMA VIOLATION]" in rolled["parts"][5]["text"]
    assert session_prompt(runtime.store, "s")["version"] == head
    assert session_prompt(runtime.store, "s", head, style="turn")["status"] == "closed"


def test_each_entry_keeps_its_observation_text_in_every_store(runtime: Runtime) -> None:
    drive(runtime)
    journal = runtime.store.journal("s")
    with_text = [e for e in journal if e.observation_sha256 is not None]
    assert len(with_text) == 7 and all(e.observation is not None for e in with_text)
    assert journal[-1].observation is None and journal[-1].observation_sha256 is None
    assert "with two lines\r\nand a CR" in journal[5].observation
    # an observation past the kept size keeps its digest only, and says so
    runtime.initialize_skill("big", "P", {}, environment="mock")
    runtime.inject_observation("big", "x" * 16384)  # the input limit: kept whole
    assert runtime.store.journal("big")[1].observation == "x" * 16384
    # a runtime whose limit is raised takes a longer one: the entry keeps its digest only
    from skillstate.runtime.inputs import SessionLimits

    roomy = Runtime(host=runtime.host, limits=SessionLimits(observation_bytes=40000))
    long = "y" * 16385
    roomy.inject_observation("big", long)
    assert runtime.store.journal("big")[-1].observation is None
    assert runtime.store.get("big").observation == long  # the record keeps the latest whole
    version = runtime.store.get("big").version
    shown = session_prompt(runtime.store, "big", version)  # the head: from the record
    assert shown["observation_kept"] and long in shown["text"]
    runtime.inject_observation("big", "later")
    past = session_prompt(runtime.store, "big", version)
    assert not past["observation_kept"]
    assert (
        f"Latest Observation: (observation text not kept: sha256 {past['observation_sha256']})"
        in past["text"]
    )


def test_bad_requests_are_refused(runtime: Runtime) -> None:
    drive(runtime)
    from skillstate.plugin import create_run

    create_run(runtime.host, runtime.store, runtime.host.skill("rig-task"), "plain", {})
    with pytest.raises(InvalidInput, match="run 'plain' is not a session"):
        session_prompt(runtime.store, "plain")
    with pytest.raises(VersionNotFound):
        session_prompt(runtime.store, "s", 99)
    with pytest.raises(InvalidInput, match="style must be one of paper, paper-pretty, turn"):
        session_prompt(runtime.store, "s", 1, style="A.4")


def test_an_export_carries_every_observation_and_an_edited_one_is_refused(
    tmp_path: Path,
) -> None:
    import hashlib

    from skillstate_plugins.maintenance.export_file import ExportError, read_export

    from skillstate.plugin import compact

    with temporary_store_url("memory", tmp_path) as url:
        host = make_host(url)
        rt = Runtime(host=host, max_active_sessions=0, session_idle_ttl=0)
        seen = drive(rt)
        text = dump_export(rt.store.get("s"), rt.store.journal("s"), "2026-12-03T00:00:00.000Z")
        data = json.loads(text)
        assert data["format_version"] == 1
        assert data["journal"][5]["observation"] == "an alert\nwith two lines\r\nand a CR"
        with temporary_store_url("sqlite", tmp_path) as other:
            back = make_host(other)
            store = back.open_store()
            store.import_run(*read_export(text, "s.json"))
            for version, prompts in seen.items():
                assert session_prompt(store, "s", version)["text"] == prompts["paper"]
            back.close()
        data["journal"][1]["observation"] = "something else"
        body = compact({"run": data["run"], "journal": data["journal"]})
        data["sha256"] = hashlib.sha256(body.encode()).hexdigest()
        with pytest.raises(ExportError, match=r"journal\[1\].observation does not match"):
            read_export(json.dumps(data), "edited.json")
        host.close()


def test_entries_written_before_the_text_was_kept_show_the_digest(tmp_path: Path) -> None:
    """A journal entry without ``observation`` (as every entry was before): the prompt says
    the text is not kept and gives the digest."""
    import attrs

    with temporary_store_url("memory", tmp_path) as url:
        host = make_host(url)
        rt = Runtime(host=host, max_active_sessions=0, session_idle_ttl=0)
        drive(rt)
        old = [attrs.evolve(e, observation=None) for e in rt.store.journal("s")]
        record = rt.store.get("s")
        with temporary_store_url("file", tmp_path) as other:
            back = make_host(other)
            store = back.open_store()
            store.import_run(record, old)
            got = session_prompt(store, "s", 2)
            assert got["observation_kept"] is False
            assert got["observation_sha256"] == old[1].observation_sha256
            assert f"(observation text not kept: sha256 {old[1].observation_sha256})" in got["text"]
            assert session_prompt(store, "s")["observation_kept"]  # the head: the record's
            back.close()
        host.close()
