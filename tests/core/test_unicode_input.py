"""Class 1 of issue 16: text that is not valid Unicode is refused at the door, naming the path.

A lone surrogate has no UTF-8 form: before the fix, a patch, a seed or an initial state
holding one raised ``UnicodeEncodeError`` from the budget check, on every surface. Now
it is a problem (code ``input``) naming the path, and nothing is written; a store that
reads one back reports that run as damaged and keeps serving the others.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from skillstate_testing import make_host, sample_skill

from skillstate import Change, Runtime, create_run, transition
from skillstate.errors import InvalidInput, StoreError
from skillstate.jsondoc import check_document, compact, parse_json
from skillstate.runtime.errors import SessionInputError

BAD = "\ud800"


def _snapshot(store: Any) -> str:
    runs = []
    for summary in store.list():
        runs.append(
            [store.get(summary.id).to_dict(), [e.to_dict() for e in store.journal(summary.id)]]
        )
    return compact(runs)


@pytest.mark.parametrize(
    ("document", "path"),
    [
        ({"notes": ["ok", BAD]}, "notes[1]"),
        ({"info": {"title": f"x{BAD}y"}}, "info.title"),
        ({f"k{BAD}": 1}, "k\\ud800"),
        ({"info": {"\udcff": "argv byte"}}, "info.\\udcff"),
    ],
)
def test_check_document_names_the_path_of_a_lone_surrogate(document: Any, path: str) -> None:
    problems = check_document(document, "patch")
    assert len(problems) == 1 and problems[0].code == "input"
    assert problems[0].message.startswith(f"{path}: text is not valid Unicode (a lone surrogate")
    problems[0].message.encode("utf-8")


def test_parse_json_refuses_an_escaped_lone_surrogate() -> None:
    with pytest.raises(InvalidInput, match=r"^nextAction: text is not valid Unicode"):
        parse_json('{"nextAction": "\\ud800"}')
    assert parse_json('{"emoji": "\\ud83d\\ude00"}') == {"emoji": "😀"}  # a pair is text


@pytest.mark.parametrize("kind", ["memory", "file", "sqlite"])
def test_the_python_api_rejects_surrogates_and_writes_nothing(kind: str, tmp_path: Any) -> None:
    url = {
        "memory": f"memory:{uuid.uuid4().hex}",
        "file": f"file:{tmp_path}/s",
        "sqlite": f"sqlite:///{tmp_path}/s.db",
    }[kind]
    host = make_host(url)
    store = host.open_store()
    skill = sample_skill()
    try:
        assert create_run(host, store, skill, "ok", {"counter": 1}).accepted
        before = _snapshot(store)
        seed = create_run(host, store, skill, "bad", {"notes": [BAD]})
        assert not seed.accepted and seed.problems[0].message.startswith(
            "notes[0]: text is not valid"
        )
        for change in (
            Change(patch={"info": {"title": BAD}}),
            Change(patch={"counter": 2}, label=f"step{BAD}"),
            Change(patch={}, meta={"note": BAD}),
            Change(patch={}, observation=f"seen {BAD}"),
        ):
            outcome = transition(host, store, "ok", change, skill=skill)
            assert not outcome.accepted, change
            assert "not valid Unicode" in outcome.problems[0].message
        assert not store.exists("bad")
        assert _snapshot(store) == before
    finally:
        host.close()


def test_the_runtime_refuses_surrogates_in_initial_state_and_updates() -> None:
    rt = Runtime(f"memory:{uuid.uuid4().hex}")
    try:
        with pytest.raises(SessionInputError, match=r"initial_state.*not valid Unicode"):
            rt.initialize_skill("s1", "spec", {"note": BAD})
        with pytest.raises(SessionInputError, match=r"skill_specification.*not valid Unicode"):
            rt.initialize_skill("s1", f"spec {BAD}", {})
        rt.initialize_skill("s1", "spec", {"note": "fine"})
        before = rt.get_session("s1")
        with pytest.raises(SessionInputError, match=r"state_update.*not valid Unicode"):
            rt.execute_step("s1", "r", {"note": BAD}, "noop")
        with pytest.raises(SessionInputError, match=r"observation.*not valid Unicode"):
            rt.inject_observation("s1", f"obs {BAD}")
        assert rt.get_session("s1") == before
    finally:
        rt.close()


def test_a_damaged_sqlite_row_is_reported_and_the_others_listed(tmp_path: Any) -> None:
    import sqlite3
    import warnings

    host = make_host(f"sqlite:///{tmp_path}/s.db")
    store = host.open_store()
    skill = sample_skill()
    for run_id in ("a", "b"):
        assert create_run(host, store, skill, run_id, {"notes": ["x"]}).accepted
    conn = sqlite3.connect(tmp_path / "s.db")
    conn.execute(
        "UPDATE runs SET record = replace(record, '[\"x\"]', '[\"\\ud83d\"]') WHERE id = 'a'"
    )
    conn.commit()
    conn.close()
    with pytest.raises(
        StoreError, match=r"run 'a' .* is damaged: state\.notes\[0\]: text is not valid Unicode"
    ):
        store.get("a")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ids = [s.id for s in store.list(keys=['"odd'])]  # a key that is not a JSON path: parse path
    assert ids == ["b"] and "skipping run a" in str(caught[0].message)
    host.close()
