"""Every store keeps the same runs: one random history, replayed on all of them.

Hypothesis draws a run's seed and a sequence of patches, with unicode, nested nulls,
arrays, empty objects, key orders, and numbers such as ``1.0``, ``-0.0``, ``1e21`` and
integers past 2^53 and 2^63. The pipeline applies them to the memory, file, SQLite and
PostgreSQL stores. After each step, and again from new store objects (what a
restarted process reads), every store must give the same record and the same journal,
key order included, and the journal must replay to the record.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from pgservice import fresh_schema_url
from skillstate_testing import make_host

from skillstate import Change, SkillDefinition, create_run, transition
from skillstate.journal import verify_record
from skillstate.jsondoc import compact

FREE = SkillDefinition(name="free")  # no fields: any JSON document within the budget

KEYS = st.sampled_from(["a", "b", "c", "é", "ключ", "1", "10", "2", "x y", "__proto__"])
NUMBERS = st.sampled_from([0, 1, -1, 1.0, -0.0, 2.5, 1e21, 1e-7, 2**53 + 1, 2**63, -(2**63)])
SCALARS = st.one_of(
    st.none(), st.booleans(), NUMBERS, st.text(max_size=8).filter(lambda s: "\x00" not in s)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=8,
)
PATCHES = st.dictionaries(KEYS, VALUES, max_size=4)
RUN_NUMBERS = itertools.count()


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from fresh_schema_url()


def _stores(root: Path, pg_url: str) -> dict[str, str]:
    return {
        "memory": f"memory:diff-{root.name}",
        "file": f"file:{root / 'file'}",
        "sqlite": f"sqlite:///{root / 'runs.db'}",
        "postgresql": pg_url,
    }


def _seen(store: Any, run_id: str) -> str:
    record = store.get(run_id)
    journal = store.journal(run_id)
    assert verify_record(record, journal) == []
    return compact([record.to_dict(), [entry.to_dict() for entry in journal]])


@settings(max_examples=25)
@given(seed=PATCHES, patches=st.lists(PATCHES, min_size=1, max_size=6))
def test_every_store_keeps_the_same_history(
    tmp_path_factory: pytest.TempPathFactory,
    pg_url: str,
    seed: dict[str, Any],
    patches: list[dict[str, Any]],
) -> None:
    root = tmp_path_factory.mktemp("diff")
    run_id = f"r-{next(RUN_NUMBERS)}"  # the PostgreSQL schema is shared by the examples
    urls = _stores(root, pg_url)
    host = make_host("memory:")
    try:
        stores = {name: host.open_store(url) for name, url in urls.items()}
        stamp = "2026-11-30T00:00:00.000Z"
        outcomes = {
            name: create_run(host, store, FREE, run_id, seed, now=stamp)
            for name, store in stores.items()
        }
        assert len({o.accepted for o in outcomes.values()}) == 1, outcomes
        if not outcomes["memory"].accepted:
            return
        for patch in patches:
            results = {
                name: transition(host, store, run_id, Change(patch=patch), skill=FREE, now=stamp)
                for name, store in stores.items()
            }
            assert len({r.accepted for r in results.values()}) == 1, results
            seen = {name: _seen(store, run_id) for name, store in stores.items()}
            assert len(set(seen.values())) == 1, json.dumps(seen, ensure_ascii=False)[:2000]
        expected = seen["memory"]
        for name, url in urls.items():  # what a new process reads back
            if name == "memory":
                continue
            again = make_host("memory:")
            try:
                assert _seen(again.open_store(url), run_id) == expected, name
            finally:
                again.close()
    finally:
        host.close()
