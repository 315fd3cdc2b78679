"""Zero leakage: a canary planted in every reasoning trace is nowhere — files, logs, responses."""

from __future__ import annotations

import json
import logging
import os
import uuid
from pathlib import Path
from typing import Any

import pytest

from skillstate import Runtime
from skillstate.errors import SkillstateError


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    from skillstate_testing import make_host

    if make_host().stores.get("file") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the file store plugin is not installed")
        pytest.skip("the file store plugin is not installed")
    return tmp_path / "state"


def _hits(needle: str, store_dir: Path, texts: list[str]) -> list[str]:
    found = []
    raw = needle.encode("utf-8")
    for path in sorted(store_dir.rglob("*")):
        if path.is_file() and raw in path.read_bytes():
            found.append(str(path))
    found += [f"text #{i}" for i, text in enumerate(texts) if needle in text]
    return found


def test_reasoning_canary_never_leaks(store_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    canary = f"CANARY-{uuid.uuid4().hex}"
    control = f"CONTROL-{uuid.uuid4().hex}"
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    responses: list[Any] = []
    rt = Runtime(f"file:{store_dir}")
    payload = rt.initialize_skill("leak", "Count.", {"n": 0, "tag": control}, schema)
    responses.append(payload)
    observation = payload["prompt_payload"]["latest_observation"]
    for i in range(100):
        reasoning = f"{canary}-{i} I think the answer is {i}. {canary}"
        if i % 10 == 3:
            patch: dict[str, Any] = {"n": "not a number"}  # schema rollback
        else:
            patch = {"n": i}
        action: Any = "tick"
        if i % 10 == 5:
            action = {"type": "fail", "reason": "nope", "reject_transition": True}
        if i % 10 == 7:
            action = {"type": "echo", "message": f"step {i}"}
        echoed = observation if i % 10 != 8 else "a hallucinated observation"
        payload = rt.execute_step("leak", reasoning, patch, action, echoed)
        responses.append(payload)
        observation = payload["prompt_payload"]["latest_observation"]
        if i % 25 == 0:
            responses.append(rt.inject_observation("leak", f"alert {i}", {"alert": i}))
            observation = f"alert {i}"
        try:  # a rejected call must not echo the reasoning either
            rt.execute_step("leak", reasoning, [reasoning], "tick")
        except SkillstateError as exc:
            responses.append(str(exc))
    responses += [
        rt.get_session("leak"),
        rt.list_sessions(),
        rt.paper_prompt("leak"),
        rt.turn_prompt("leak"),
        [e.to_dict() for e in rt.store.journal("leak")],
        rt.close_session("leak"),
    ]
    assert rt.get_session("leak")["metadata"]["stepCount"] > 50
    rt.close()
    texts = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in responses]
    texts += [caplog.text] + [r.getMessage() for r in caplog.records]
    assert any(r.name == "skillstate.runtime" for r in caplog.records)  # logging was captured
    assert list(store_dir.rglob("*")), "the store wrote no files"
    assert _hits(control, store_dir, texts), "the search finds what is there"
    assert _hits(canary, store_dir, texts) == []
