"""Sessions live in the file store: restart-and-resume across processes, concurrent processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from skillstate import Runtime


def _file_store_available() -> bool:
    from skillstate_testing import make_host

    return make_host().stores.get("file") is not None


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    if not _file_store_available():
        if os.environ.get("CI") == "true":
            pytest.fail("the file store plugin is not installed")
        pytest.skip("the file store plugin is not installed")
    return f"file:{tmp_path / 'state'}"


def _run(store_url: str, body: str) -> Any:
    """Run ``body`` in a fresh Python process with ``rt`` bound to a Runtime; return its printed JSON."""
    code = "import json\nfrom skillstate import Runtime\n"
    code += f"rt = Runtime({store_url!r})\n" + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else None


SCHEMA = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}


def test_restart_resumes_every_open_session_exactly(store_url: str) -> None:
    first = _run(
        store_url,
        f"""
        out = {{}}
        for sid in ("alpha", "beta"):
            p = rt.initialize_skill(sid, "Count to ten. " + sid, {{"count": 0}}, {SCHEMA!r})
            for n in range(1, 4):
                p = rt.execute_step(sid, "why", {{"count": n}}, "tick", p["prompt_payload"]["latest_observation"])
            p = rt.execute_step(sid, "", {{"count": 99}}, {{"type": "fail", "reject_transition": True}},
                                p["prompt_payload"]["latest_observation"])
            out[sid] = p
        p = rt.initialize_skill("gamma", "P", {{"count": 0}})
        rt.execute_step("gamma", "", {{}}, {{"type": "complete"}})
        print(json.dumps(out))
        """,
    )
    # a different process (this one) picks every session up where it was
    rt = Runtime(store_url)
    index = rt.list_sessions()
    assert [s["session_id"] for s in index["sessions"]] == ["alpha", "beta", "gamma"]
    for sid in ("alpha", "beta"):
        last = first[sid]
        session = rt.get_session(sid)
        assert session["execution_state"] == {"count": 3}
        assert session["metadata"]["stepCount"] == 3
        assert (
            session["metadata"]["lastObservation"] == last["prompt_payload"]["latest_observation"]
        )
        assert session["skill_spec"] == "Count to ten. " + sid
        nxt = rt.execute_step(
            sid, "", {"count": 4}, "tick", last["prompt_payload"]["latest_observation"]
        )
        assert "warning" not in nxt["meta"]  # the rollback observation survived the restart
        assert nxt["step"] == 4
        assert nxt["prompt_payload"]["latest_observation"].startswith("[MOCK ENV · step 4]")
        bad = rt.execute_step(sid, "", {"count": "x"}, "tick")
        assert bad["meta"]["rolled_back"] and bad["step"] == 4  # the schema came back too
    assert rt.get_session("gamma")["metadata"]["status"] == "completed"
    rt.close()
    # and a third process sees what the second one did
    third = _run(store_url, 'print(json.dumps(rt.get_session("alpha")))')
    assert third["execution_state"] == {"count": 4} and third["metadata"]["stepCount"] == 4


def test_two_processes_step_one_session_without_losing_a_step(store_url: str) -> None:
    rt = Runtime(store_url)
    rt.initialize_skill("shared", "P", {"count": 0})
    rt.close()
    body = """
        steps = [rt.execute_step("shared", "", {}, "tick")["step"] for _ in range(15)]
        print(json.dumps(steps))
        """
    code = "import json\nfrom skillstate import Runtime\n"
    code += f"rt = Runtime({store_url!r})\n" + textwrap.dedent(body)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    seen: list[int] = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        seen += json.loads(out.strip().splitlines()[-1])
    assert sorted(seen) == list(range(1, 31))
    from skillstate.journal import verify_record

    rt = Runtime(store_url)
    session = rt.get_session("shared")
    assert session["metadata"]["stepCount"] == 30
    assert session["metadata"]["environmentState"] == {"executed": 30}
    assert verify_record(rt.store.get("shared"), rt.store.journal("shared")) == []
    rt.close()
