"""The MCP bench client: timed ``execute_step`` round trips against any SKILL.state server.

A plain client on the official SDK (``mcp.Client``), no server code: it launches a stdio
server (``--stdio CMD``) or a Streamable HTTP one (``--spawn CMD --url URL``), opens a
session and calls ``execute_step`` ``--n`` times, one request in flight, each echoing
the observation the server last returned (so a drift-checking server sees none).
``benchmarks/bench_mcp.py`` runs it once per server configuration.

Scenarios: ``steps`` (the mock environment, patch ``{"counter": i}``, action ``noop``)
and ``warehouse`` (``Store item_i shelf_i`` with ``{"inventory": {"shelf_i": "item_i"}}``).
A fresh server per repetition (``--repeat``); the medians over repetitions go to
``--json-out`` as ``{"medians": {SCENARIO: {calls_per_s, median_ms, p99_ms,
server_cpu_us_per_call, server_sum_vmhwm_kb, errors}}}``. Server CPU and peak RSS are
read from ``/proc`` for the server's process tree (Linux).

    .venv/bin/python benchmarks/mcp_client.py --stdio "skillstate mcp" --n 500
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import AsyncExitStack
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

SPEC = "Benchmark skill. Keep the bookkeeping in the state; apply each patch, act, report."
TICKS = os.sysconf("SC_CLK_TCK")


def _parents() -> dict[int, int]:
    """pid → parent pid, for every process /proc shows."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat", "rb").read().decode("utf-8", "replace")
                found[int(entry)] = int(stat[stat.rfind(")") + 2 :].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return found


def _tree(root: int) -> list[int]:
    """``root`` and its descendants."""
    parents = _parents()
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(child for child, parent in parents.items() if parent == pid)
    return tree


def _cpu(root: int | None) -> float:
    """CPU seconds (user + system) used so far by ``root``'s process tree."""
    total = 0.0
    for pid in _tree(root) if root else []:
        try:
            stat = open(f"/proc/{pid}/stat", "rb").read().decode("utf-8", "replace")
            fields = stat[stat.rfind(")") + 2 :].split()
            total += (int(fields[11]) + int(fields[12])) / TICKS
        except (OSError, ValueError, IndexError):
            continue
    return total


def _peak_rss_kb(root: int | None) -> int:
    """The sum of VmHWM (peak resident set) over ``root``'s process tree, in KiB."""
    total = 0
    for pid in _tree(root) if root else []:
        try:
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return total


def _payload(result: Any) -> Any:
    if result.structured_content is not None:
        return result.structured_content
    for block in result.content or []:
        text = getattr(block, "text", None)
        if text:
            try:
                return json.loads(text)
            except ValueError:
                return None
    return None


def _observation(result: Any, previous: str) -> str:
    payload = _payload(result)
    if isinstance(payload, dict):
        found = (payload.get("prompt_payload") or {}).get("latest_observation")
        if isinstance(found, str):
            return found
    return previous


async def _connect(o: argparse.Namespace, stack: AsyncExitStack) -> tuple[Client, int | None]:
    env = dict(item.split("=", 1) for item in o.server_env)
    if o.url:
        server = subprocess.Popen(
            shlex.split(o.spawn), cwd=o.cwd, env={**os.environ, **env},
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        stack.callback(lambda: (server.terminate(), server.wait(10)))
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(o.url, timeout=1).close()
                break
            except urllib.error.HTTPError:
                break  # it answers: any status will do
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"mcp_client: {o.url} did not answer within 30 s") from None
                await anyio.sleep(0.05)
        client = await stack.enter_async_context(Client(o.url, mode=o.mode))
        return client, server.pid
    argv = shlex.split(o.stdio)
    params = StdioServerParameters(command=argv[0], args=argv[1:], cwd=o.cwd, env=env or None)
    before = {pid for pid, parent in _parents().items() if parent == os.getpid()}
    errlog = stack.enter_context(open(os.devnull, "w"))
    client = await stack.enter_async_context(
        Client(stdio_client(params, errlog=errlog), mode=o.mode)
    )
    new = sorted(p for p, parent in _parents().items() if parent == os.getpid() and p not in before)
    return client, (new[0] if new else None)


def _step(scenario: str, i: int) -> tuple[dict[str, Any], str]:
    if scenario == "warehouse":
        return {"inventory": {f"shelf_{i}": f"item_{i}"}}, f"Store item_{i} shelf_{i}"
    return {"counter": i}, "noop"


async def _one_run(o: argparse.Namespace, run: int) -> dict[str, Any]:
    n = o.warehouse_n if o.scenario == "warehouse" else o.n
    environment = "warehouse" if o.scenario == "warehouse" else "mock"
    session = f"bench-{o.scenario}-{run}"
    async with AsyncExitStack() as stack:
        client, server_pid = await _connect(o, stack)
        started = await client.call_tool(
            "initialize_skill",
            {"session_id": session, "skill_specification": SPEC, "initial_state": {},
             "environment": environment},
        )  # fmt: skip
        observation = _observation(started, "")
        latencies, errors = [], 0
        cpu_before, wall_before = _cpu(server_pid), time.perf_counter()
        for i in range(n):
            patch, action = _step(o.scenario, i)
            t = time.perf_counter()
            result = await client.call_tool(
                "execute_step",
                {"session_id": session, "reasoning_trace": f"step {i}", "state_update": patch,
                 "action": action, "environment_observation": observation},
            )  # fmt: skip
            latencies.append(time.perf_counter() - t)
            errors += bool(result.is_error)
            observation = _observation(result, observation)
        wall = time.perf_counter() - wall_before
        cpu = _cpu(server_pid) - cpu_before
        rss = _peak_rss_kb(server_pid)
        await client.call_tool("close_session", {"session_id": session})
    latencies.sort()
    return {
        "calls_per_s": n / wall,
        "median_ms": statistics.median(latencies) * 1e3,
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e3,
        "server_cpu_us_per_call": cpu / n * 1e6,
        "server_sum_vmhwm_kb": rss,
        "errors": errors,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--stdio", metavar="CMD", help="the server's stdio command line")
    where.add_argument("--url", help="a Streamable HTTP endpoint (with --spawn)")
    parser.add_argument("--spawn", metavar="CMD", help="the HTTP server's command line")
    parser.add_argument("--scenario", choices=("steps", "warehouse"), default="steps")
    parser.add_argument("--n", type=int, default=2000, help="steps (default 2000)")
    parser.add_argument("--warehouse-n", type=int, default=500, help="warehouse steps")
    parser.add_argument("--repeat", type=int, default=1, help="runs, a fresh server each")
    parser.add_argument("--mode", default="auto", help="mcp.Client mode (auto, legacy)")
    parser.add_argument("--cwd", default=None, help="the server's working directory")
    parser.add_argument("--server-env", action="append", default=[], metavar="K=V")
    parser.add_argument("--json-out", default=None, help="write the figures here")
    o = parser.parse_args(argv)
    if o.url and not o.spawn:
        parser.error("--url needs --spawn (the command that serves it)")
    runs = [anyio.run(_one_run, o, run) for run in range(o.repeat)]
    medians = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    text = json.dumps({"medians": {o.scenario: medians}, "runs": runs}, indent=2)
    if o.json_out:
        with open(o.json_out, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
