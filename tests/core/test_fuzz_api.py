"""Fuzz: the Python API (create_run / transition) with hostile patches, seeds, ids and labels.

No exception but skillstate's own, and a rejection leaves every store byte as it was
(a real file store and a real SQLite store, hashed before and after).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fuzzing import FUZZ, hostile_documents, hostile_text, hostile_values, run_ids, tree_hash
from hypothesis import given, strategies as st
from skillstate_testing import make_host, sample_skill

from skillstate import Change, create_run, transition
from skillstate.errors import SkillstateError
from skillstate.jsondoc import compact

pytestmark = pytest.mark.fuzz


@pytest.fixture(scope="module", params=["file", "sqlite"])
def world(request: pytest.FixtureRequest) -> Iterator[tuple[Any, Any, Callable[[], str]]]:
    """A host, its store, and a digest of what the store keeps.

    The file store's digest is every byte of its directory; SQLite's is every record and
    journal entry read back (a read may rewrite its ``-shm`` index and checkpoint the
    ``-wal`` file, which are not data).
    """
    directory = Path(tempfile.mkdtemp(prefix="skillstate-fuzz-"))
    url = f"file:{directory}/state" if request.param == "file" else f"sqlite:///{directory}/s.db"
    host = make_host(url)
    store = host.open_store()
    skill = sample_skill()
    assert create_run(host, store, skill, "t1", {"counter": 0}).accepted

    def digest() -> str:
        if request.param == "file":
            return tree_hash(directory)
        runs = [
            [store.get(s.id).to_dict(), [e.to_dict() for e in store.journal(s.id)]]
            for s in store.list()
        ]
        return compact(runs)

    yield host, store, digest
    host.close()


CHANGES = st.builds(
    Change,
    patch=hostile_documents,
    label=st.one_of(st.just(""), hostile_text),
    force=st.booleans(),
    meta=st.one_of(st.none(), st.dictionaries(hostile_text, hostile_values, max_size=3)),
    observation=st.one_of(st.none(), hostile_text),
)


@FUZZ
@given(change=CHANGES, run_id=st.one_of(st.just("t1"), run_ids))
def test_transition_rejects_cleanly_and_changes_nothing(
    world: tuple[Any, Any, Callable[[], str]], change: Change, run_id: str
) -> None:
    host, store, digest = world
    before = digest()
    try:
        outcome = transition(host, store, run_id, change, skill=sample_skill())
    except SkillstateError:
        assert digest() == before
        return
    if not outcome.accepted:
        assert outcome.problems and all(p.message for p in outcome.problems)
        for problem in outcome.problems:
            problem.message.encode("utf-8")  # every message is printable text
        assert digest() == before


@FUZZ
@given(seed=hostile_documents, run_id=run_ids, label=hostile_text)
def test_create_run_rejects_cleanly_and_writes_nothing(
    world: tuple[Any, Any, Callable[[], str]], seed: Any, run_id: str, label: str
) -> None:
    host, store, digest = world
    before = digest()
    try:
        outcome = create_run(host, store, sample_skill(), run_id, seed, label=label)
    except SkillstateError:
        assert digest() == before
        return
    if outcome.accepted:
        store.delete(run_id)  # keep the world small
    else:
        assert digest() == before
