"""Every store runs the same sessions: one random series of runtime calls, on all of them.

Hypothesis draws a session (mock or warehouse, with or without a JSON Schema) and a
series of calls: steps with random patches and actions (every mock action kind, valid
and malformed warehouse commands, rejections), echoed or drifting observations,
injects, and sometimes a close followed by a refused step. The runtime makes them on
the memory, file, SQLite and PostgreSQL stores. Every call must answer the same on
every store (the payload, or the error), and every store must then show the same
session (Σ, P, the environment's snapshot, the metadata) and journal; so must new store
objects reading it back. Timestamps are left out of the comparison.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from pgservice import fresh_schema_url

from skillstate import Runtime
from skillstate.errors import SkillstateError
from skillstate.journal import verify_record
from skillstate.jsondoc import compact

KEYS = st.sampled_from(["a", "b", "note", "é", "2", "10"])
SCALARS = st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1.0, -0.0, 2.5, 2**63]))
VALUES = st.recursive(
    st.one_of(SCALARS, st.text(max_size=6).filter(lambda s: "\x00" not in s)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=6,
)
PATCHES = st.dictionaries(KEYS, VALUES, max_size=3)
MOCK_ACTIONS = st.one_of(
    st.sampled_from(["go", "  spaced  ", "Store item_1 shelf_1"]),
    st.builds(lambda m: {"type": "echo", "message": m}, VALUES),
    st.just({"type": "noop"}),
    st.builds(
        lambda r, j: {"type": "fail", "reason": r, "reject_transition": j},
        st.text(max_size=5),
        st.booleans(),
    ),
    st.just({"type": "complete", "summary": "done"}),
    st.dictionaries(KEYS, VALUES, max_size=2),
)
SHELVES = st.sampled_from(["shelf_0", "shelf_1", "shelf_2", "shelf_499", "shelf_500"])
ITEMS = st.sampled_from(["item_1", "item_2", "item_3"])
WAREHOUSE_ACTIONS = st.one_of(
    st.builds(lambda i, s: f"Store {i} {s}", ITEMS, SHELVES),
    st.builds(lambda i, s: f"Ship {i} {s}", ITEMS, SHELVES),
    st.builds(lambda i, a, b: f"Move {i} {a} {b}", ITEMS, SHELVES, SHELVES),
    st.sampled_from(["Wait", "Wait now", "Fly", "Complete"]),
)
STEP = st.tuples(st.just("step"), PATCHES, st.booleans())
INJECT = st.tuples(st.just("inject"), PATCHES, st.text(min_size=1, max_size=6))
SESSION_NUMBERS = itertools.count()
SCHEMA = {  # JSON Schema 2020-12: some random patches break it, and are rolled back
    "type": "object",
    "properties": {"a": {"type": ["number", "boolean"]}, "note": {"type": "string"}},
}


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from fresh_schema_url()


def _without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _without_times(v)
            for k, v in value.items()
            if k not in ("createdAt", "updatedAt", "ts", "created", "updated")
        }
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def _answer(call: Any) -> Any:
    try:
        return _without_times(call())
    except SkillstateError as exc:
        return {"error": str(exc)}


def _step(session: str, patch: Any, action: Any, drift: str | None, rt: Runtime) -> Any:
    seen = drift or rt.get_session(session)["metadata"]["lastObservation"]
    return rt.execute_step(session, "thinking", patch, action, seen)


def _inject(session: str, patch: Any, observation: str, rt: Runtime) -> Any:
    return rt.inject_observation(session, observation, patch)


def _close(session: str, rt: Runtime) -> Any:
    return rt.close_session(session)


def _seen(runtime: Runtime, session: str) -> str:
    record = runtime.store.get(session)
    journal = runtime.store.journal(session)
    assert verify_record(record, journal) == []
    entries = [_without_times(entry.to_dict()) for entry in journal]
    return compact([_without_times(runtime.get_session(session)), entries])


@settings(max_examples=30)
@given(
    environment=st.sampled_from(["mock", "warehouse"]),
    schema=st.sampled_from([None, SCHEMA]),
    initial=PATCHES,
    close=st.booleans(),
    calls=st.lists(st.tuples(st.one_of(STEP, INJECT), st.data()), min_size=1, max_size=8),
)
def test_every_store_runs_the_same_session(
    tmp_path_factory: pytest.TempPathFactory,
    pg_url: str,
    environment: str,
    schema: dict[str, Any] | None,
    initial: dict[str, Any],
    close: bool,
    calls: list[tuple[tuple[str, dict[str, Any], Any], st.DataObject]],
) -> None:
    root: Path = tmp_path_factory.mktemp("rt-diff")
    session = f"s-{next(SESSION_NUMBERS)}"  # the PostgreSQL schema is shared by the examples
    urls = {
        "memory": f"memory:rt-diff-{root.name}",
        "file": f"file:{root / 'file'}",
        "sqlite": f"sqlite:///{root / 'runs.db'}",
        "postgresql": pg_url,
    }
    runtimes = {name: Runtime(url) for name, url in urls.items()}
    try:
        answers = {
            name: _answer(
                lambda rt=rt: rt.initialize_skill(
                    session, "Do the task.", initial, schema, environment=environment
                )
            )
            for name, rt in runtimes.items()
        }
        assert len({compact(a) for a in answers.values()}) == 1, answers
        if "error" in answers["memory"]:  # refused alike everywhere (e.g. by the schema)
            return
        actions = MOCK_ACTIONS if environment == "mock" else WAREHOUSE_ACTIONS
        for (kind, patch, extra), data in calls:
            if kind == "step":
                drift = None if extra else "not what the runtime said"
                call = partial(_step, session, patch, data.draw(actions), drift)
            else:
                call = partial(_inject, session, patch, extra)
            answers = {name: _answer(partial(call, rt)) for name, rt in runtimes.items()}
            assert len({compact(a) for a in answers.values()}) == 1, answers
            seen = {name: _seen(rt, session) for name, rt in runtimes.items()}
            assert len(set(seen.values())) == 1, seen
        if close:  # then a step, which a closed session refuses
            for call in (partial(_close, session), partial(_step, session, {}, "go", None)):
                answers = {name: _answer(partial(call, rt)) for name, rt in runtimes.items()}
                assert len({compact(a) for a in answers.values()}) == 1, answers
            seen = {name: _seen(rt, session) for name, rt in runtimes.items()}
            assert len(set(seen.values())) == 1, seen
        expected = seen["memory"]
        for name, url in urls.items():  # what a new process reads back
            if name != "memory":
                again = Runtime(url)
                try:
                    assert _seen(again, session) == expected, name
                finally:
                    again.close()
    finally:
        for rt in runtimes.values():
            rt.close()
