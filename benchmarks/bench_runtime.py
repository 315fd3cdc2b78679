"""Session runtime: the cost of the session layer, and a flat prompt.

Run: ``.venv/bin/python -m benchmarks.bench_runtime [--steps 300] [--json out.json]``

- ``execute_step`` in process on the file store vs a bare durable transition
  (:func:`skillstate.transition` on the same store, same skill, same state size,
  same patch), measured interleaved in one run (target: median ratio ≤ 1.3×);
- the A.4 prompt over a 200-step scripted session with a bounded Σ (target:
  largest / smallest ≤ 1.1), with the A.1 ReAct prompt of the same turns for scale;
- ``parse_turn_response`` on a turn text of about 128 KB and 1 MB whose block needs the
  trailing-comma repair (the worst case of the repair pass): the 1 MB time and the
  1 MB / 128 KB ratio (linear: about 8; the quadratic parser before issue 16 took 18 s
  for 1 MB).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from skillstate_plugins.bench.prompts import render_react_prompt  # A.1: the bench's own

from skillstate import Change, Runtime, create_run, transition
from skillstate.budgets import document_size
from skillstate.runtime.sessions import ADHOC_SKILL


def _seed() -> dict[str, Any]:
    return {
        "goal": "ship every ordered item",
        "counter": 0,
        "inventory": {f"shelf_{k}": f"item_{k}" for k in range(40)},
        "recent": [],
        "notes": ["keep Σ small", "one action per turn"],
    }


def _patch(i: int) -> dict[str, Any]:
    return {
        "counter": i,
        "inventory": {f"shelf_{i % 40}": f"item_{i}"},
        "recent": [f"event {j}" for j in range(max(0, i - 2), i + 1)],
    }


def bench_step(steps: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"file:{Path(tmp) / 'state'}"
        rt = Runtime(url)
        rt.initialize_skill("bench-session", "Run the warehouse.", _seed())
        created = create_run(rt.host, rt.store, ADHOC_SKILL, "bench-bare", _seed())
        assert created.accepted
        session_times: list[float] = []
        bare_times: list[float] = []
        for i in range(1, steps + 1):
            patch = _patch(i)
            start = time.perf_counter()
            payload = rt.execute_step("bench-session", "reasoning", patch, f"Ship item_{i}")
            session_times.append(time.perf_counter() - start)
            assert payload["step"] == i, payload["meta"]
            start = time.perf_counter()
            outcome = transition(
                rt.host, rt.store, "bench-bare", Change(patch=patch), skill=ADHOC_SKILL
            )
            bare_times.append(time.perf_counter() - start)
            assert outcome.accepted
        size_session = document_size(rt.store.get("bench-session").state)
        size_bare = document_size(rt.store.get("bench-bare").state)
        rt.close()
    session, bare = statistics.median(session_times), statistics.median(bare_times)
    return {
        "steps": steps,
        "state_bytes": [size_session, size_bare],
        "execute_step_median_ms": round(session * 1000, 3),
        "bare_transition_median_ms": round(bare * 1000, 3),
        "ratio": round(session / bare, 3),
        "target": 1.3,
    }


def bench_prompt(steps: int = 200) -> dict[str, Any]:
    rt = Runtime("memory:bench-prompt")
    spec = "You run a warehouse. Keep inventory in Σ; one action per turn; reply in the A.4 format."
    payload = rt.initialize_skill("p", spec, _seed())
    sizes: list[int] = []
    react_sizes: list[int] = []
    history: list[tuple[str, str]] = []
    observation = payload["prompt_payload"]["latest_observation"]
    for i in range(1, steps + 1):
        sizes.append(len(rt.paper_prompt("p")))
        react_sizes.append(len(render_react_prompt(spec, history, observation)))
        action = f"Ship item_{i} shelf_{i % 40}"
        payload = rt.execute_step("p", "reasoning", _patch(i), action, observation)
        history.append((observation, f"Reasoning... Action: {action}"))
        observation = payload["prompt_payload"]["latest_observation"]
    rt.close()
    return {
        "steps": steps,
        "a4_min_chars": min(sizes),
        "a4_max_chars": max(sizes),
        "a4_ratio": round(max(sizes) / min(sizes), 4),
        "a4_total_chars": sum(sizes),
        "react_first_chars": react_sizes[0],
        "react_last_chars": react_sizes[-1],
        "react_total_chars": sum(react_sizes),
        "target": 1.1,
    }


def _turn_text(items: int) -> str:
    body = ",".join(f'[{i},"v{i}",]' for i in range(items))
    return (
        "Reasoning that is thrown away.\n```json\n"
        f'{{"state_patch": {{"xs": [{body}]}}, "action": "go",}}\n```\n'
    )


def bench_turn_parse(repeats: int = 3) -> dict[str, Any]:
    """The best of ``repeats`` parses of a ~128 KB and a ~1 MB turn text (trailing commas)."""
    from skillstate.runtime.turns import parse_turn_response

    texts = {"small": _turn_text(7_100), "large": _turn_text(57_000)}
    best: dict[str, float] = {}
    for name, text in texts.items():
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            parsed = parse_turn_response(text)
            times.append(time.perf_counter() - start)
        assert parsed.action == "go"
        best[name] = min(times)
    return {
        "small_bytes": len(texts["small"].encode()),
        "large_bytes": len(texts["large"].encode()),
        "small_ms": round(best["small"] * 1000, 2),
        "large_ms": round(best["large"] * 1000, 2),
        "ratio": round(best["large"] / best["small"], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = {
        "execute_step": bench_step(args.steps),
        "prompt": bench_prompt(),
        "turn_parse": bench_turn_parse(),
    }
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
