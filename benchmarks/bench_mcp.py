"""MCP server benchmark: ``execute_step`` round trips through the bench client.

Runs ``benchmarks/mcp_client.py`` (a plain ``mcp.Client``; another client with the same
options with ``--bench``) against several server configurations, one after another in one run, so
the figures compare on a noisy machine:

- ``runtime-file`` — ``Runtime.execute_step`` in-process on the file store, no MCP: the
  store's own ceiling;
- ``trivial-sdk`` / ``trivial-fast`` — an ``MCPServer`` with one trivial
  ``execute_step`` tool (no skillstate work) over the SDK's stdio transport and over
  our fast transport: the SDK's own cost per call;
- ``skillstate-<transport>-<store>`` — ``skillstate mcp`` over stdio, on the file store
  (durability full: the journal line `fdatasync`ed before each answer), the memory store,
  SQLite; ``skillstate-fast-file-process`` is the file store at ``durability=process``
  (synced in the background, at most a second behind);
- ``warehouse`` — Store steps on the warehouse environment (file store, fast);
- ``http`` — the steps scenario over Streamable HTTP (file store); ``http-memory`` the
  same on the memory store (the HTTP request path without the file store's commit);
- ``reference-standin`` / ``reference-standin-warehouse`` / ``reference-standin-http`` —
  ``benchmarks/reference_standin/server.mjs`` under Node (stdio steps, stdio warehouse,
  Streamable HTTP steps): a stand-in for the TypeScript reference server written from its
  behavioural spec on the same SDK and zod versions, as the side-by-side figure (the
  reference itself is not available here). Its npm dependencies are installed with
  ``npm ci`` first when ``node_modules`` is missing or older than ``package-lock.json``;
  without ``node`` or ``npm``, or when the install fails, those rows say why.

Usage::

    .venv/bin/python benchmarks/bench_mcp.py                 # all, --n 2000
    .venv/bin/python benchmarks/bench_mcp.py --n 500 --only skillstate-fast-file trivial-sdk
    .venv/bin/python benchmarks/bench_mcp.py --serve-trivial fast   # (used by the bench itself)

Prints one table (calls/s, p50/p99 ms, server CPU µs per call, peak RSS MiB) and
writes the raw figures with ``--json-out``.

``--mode legacy`` makes the client open every connection with the 2025 ``initialize``
handshake. With the default ``auto`` it first tries the 2026-07-28 ``server/discover``:
our server (on SDK v2) accepts, so every request then carries the per-request envelope
that era requires, while the reference and its stand-in (SDK 1.30) speak only the
handshake era — two protocols, each with its own cost on both client and server. Run
both to tell the protocol's cost from the server's.

**The real TypeScript server** (``Derzkiyboomchik/skill-state-mcp-server`` 1.0.1, built
from its sources outside this repository; docs/benchmarks.md says how) joins the run
with ``--peer CMD`` (or ``SKILLSTATE_BENCH_PEER``), its stdio command line, e.g.
``--peer "node ../tsmcp/dist/index.js --stdio"``. That adds ``ts-server``
(steps), ``ts-server-warehouse`` and ``ts-server-http``: the last is started as
``--peer-http CMD`` (``SKILLSTATE_BENCH_PEER_HTTP``; ``{port}`` is replaced by a free
port), by default the stdio command without ``--stdio`` plus ``--http --port {port}``.

``--rounds R`` runs every selected config once per round, R rounds one after another
(interleaved: a load change on a shared machine hits every config alike), and reports
per config the median and the range over the rounds; the ratio column divides each
round's calls/s by the baseline's of the same round (``--baseline``, by default
``ts-server`` when a peer is given, else ``reference-standin``)::

    .venv/bin/python benchmarks/bench_mcp.py --mode legacy --rounds 5 --n 2000 \
        --peer "node ../tsmcp/dist/index.js --stdio" \
        --only ts-server reference-standin skillstate-fast-file skillstate-fast-memory
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
BENCH = Path(__file__).resolve().parent / "mcp_client.py"
PY = sys.executable
SKILLSTATE = str(BIN / "skillstate")
STANDIN = Path(__file__).resolve().parent / "reference_standin"
PEER_ENV = "SKILLSTATE_BENCH_PEER"
PEER_HTTP_ENV = "SKILLSTATE_BENCH_PEER_HTTP"


def serve_trivial(transport: str) -> None:
    """A minimal MCPServer whose ``execute_step`` does no work (the SDK's own cost)."""
    from mcp.server import MCPServer

    server: MCPServer[Any] = MCPServer("trivial")

    @server.tool()
    def initialize_skill(
        session_id: str, skill_specification: str, initial_state: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return {"prompt_payload": {"latest_observation": "ok"}, "meta": {}}

    @server.tool()
    async def execute_step(
        session_id: str,
        reasoning_trace: str,
        state_update: dict[str, Any],
        action: str,
        environment_observation: str,
    ) -> dict[str, Any]:
        return {"step": 1, "prompt_payload": {"latest_observation": "ok"}, "meta": {}}

    @server.tool()
    def close_session(session_id: str) -> dict[str, Any]:
        return {"closed": True}

    from skillstate_plugins.mcp.stdio import serve_stdio

    serve_stdio(server, transport)


def _npm_reason(stderr: str) -> str:
    """The first telling line of npm's error output (not its code/errno/log-file lines)."""
    for line in stderr.splitlines():
        text = line.removeprefix("npm error").removeprefix("npm ERR!").strip()
        if text and not text.startswith(("code ", "syscall ", "errno ", "path ")):
            return text[:200]
    return "no output"


@cache
def prepare_standin() -> str | None:
    """Install the stand-in's npm dependencies when needed; an error text, or None if ready."""
    if shutil.which("node") is None:
        return "skipped: node is not on PATH"
    lock = STANDIN / "package-lock.json"
    # npm writes node_modules/.package-lock.json on every install: its age is the install's.
    installed = STANDIN / "node_modules" / ".package-lock.json"
    if installed.exists() and installed.stat().st_mtime >= lock.stat().st_mtime:
        return None
    npm = shutil.which("npm")
    if npm is None:
        return "skipped: node_modules missing and npm is not on PATH"
    cmd = [npm, "ci", "--no-audit", "--no-fund"]
    print(f"# reference-standin: {shlex.join(cmd)} (in {STANDIN})", file=sys.stderr, flush=True)
    try:
        done = subprocess.run(
            cmd, cwd=STANDIN, capture_output=True, text=True, check=False, timeout=600
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"npm ci failed: {exc}"
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-2000:], file=sys.stderr)
        return f"npm ci failed (exit {done.returncode}): {_npm_reason(done.stderr)}"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def peer_http_command(peer: str, template: str | None) -> str:
    """The HTTP command line of the peer: ``template``, else ``peer`` minus ``--stdio``
    plus ``--http --port {port}``."""
    if template:
        return template
    argv = [arg for arg in shlex.split(peer) if arg != "--stdio"]
    return shlex.join([*argv, "--http", "--port"]) + " {port}"


def peer_configs(peer: str, http_template: str | None) -> dict[str, dict[str, Any]]:
    """The real TypeScript server's configs (steps, warehouse over stdio; steps over HTTP)."""
    port = _free_port()
    http = peer_http_command(peer, http_template).replace("{port}", str(port))
    return {
        "ts-server": {"stdio": peer},
        "ts-server-warehouse": {"stdio": peer, "scenario": "warehouse"},
        "ts-server-http": {"spawn": http, "url": f"http://127.0.0.1:{port}/mcp"},
    }


def before_configs(skillstate: str, tmp: Path) -> dict[str, dict[str, Any]]:
    """Another install's ``skillstate mcp`` (e.g. the main branch's): file store at both
    durability levels, memory store."""
    return {
        "before-file": {"stdio": f"{skillstate} mcp", "store": f"file:{tmp / 'before' / 'state'}"},
        "before-file-process": {
            "stdio": f"{skillstate} mcp",
            "store": f"file:{tmp / 'before-process' / 'state'}?durability=process",
        },
        "before-memory": {"stdio": f"{skillstate} mcp", "store": "memory:"},
    }


def configs(tmp: Path) -> dict[str, dict[str, Any]]:
    me = str(Path(__file__).resolve())
    port = _free_port()
    out: dict[str, dict[str, Any]] = {
        "trivial-sdk": {"stdio": f"{PY} {me} --serve-trivial sdk"},
        "trivial-fast": {"stdio": f"{PY} {me} --serve-trivial fast"},
    }
    for transport in ("sdk", "fast"):
        out[f"skillstate-{transport}-file"] = {
            "stdio": f"{SKILLSTATE} mcp --transport {transport}",
            "store": f"file:{tmp / transport / 'state'}",
        }
    out["skillstate-fast-file-process"] = {  # durability process: synced in the background
        "stdio": f"{SKILLSTATE} mcp",
        "store": f"file:{tmp / 'process' / 'state'}?durability=process",
    }
    out["runtime-file"] = {"inprocess": f"file:{tmp / 'rt' / 'state'}"}
    out["skillstate-sdk-memory"] = {
        "stdio": f"{SKILLSTATE} mcp --transport sdk",
        "store": "memory:",
    }
    out["skillstate-fast-memory"] = {"stdio": f"{SKILLSTATE} mcp", "store": "memory:"}
    out["skillstate-fast-sqlite"] = {
        "stdio": f"{SKILLSTATE} mcp",
        "store": f"sqlite:{tmp / 'bench.db'}",
    }
    out["warehouse"] = {
        "stdio": f"{SKILLSTATE} mcp",
        "store": f"file:{tmp / 'wh' / 'state'}",
        "scenario": "warehouse",
    }
    out["http"] = {
        "spawn": f"{SKILLSTATE} mcp --http --port {port}",
        "url": f"http://127.0.0.1:{port}/mcp",
        "store": f"file:{tmp / 'http' / 'state'}",
    }
    memory_port = _free_port()
    out["http-memory"] = {  # the request path over HTTP without the file store's commit
        "spawn": f"{SKILLSTATE} mcp --http --port {memory_port}",
        "url": f"http://127.0.0.1:{memory_port}/mcp",
        "store": "memory:",
    }
    standin = [shutil.which("node") or "node", str(STANDIN / "server.mjs")]
    standin_port = _free_port()
    out["reference-standin"] = {"stdio": shlex.join(standin), "standin": True}
    out["reference-standin-warehouse"] = {
        "stdio": shlex.join(standin),
        "scenario": "warehouse",
        "standin": True,
    }
    out["reference-standin-http"] = {
        "spawn": shlex.join([*standin, "--http", "--port", str(standin_port)]),
        "url": f"http://127.0.0.1:{standin_port}/mcp",
        "standin": True,
    }
    return out


def run_inprocess(store: str, n: int) -> dict[str, Any]:
    """``Runtime.execute_step`` called directly, no MCP: the store's own ceiling."""
    import statistics
    import time

    from skillstate.runtime import Runtime

    runtime = Runtime(store)
    first = runtime.initialize_skill("bench-rt", "Benchmark skill.", {})
    obs = first["prompt_payload"]["latest_observation"]
    times = []
    cpu = time.process_time()
    start = time.perf_counter()
    for i in range(n):
        t = time.perf_counter()
        done = runtime.execute_step("bench-rt", f"r{i}", {"counter": i}, "noop", obs)
        times.append(time.perf_counter() - t)
        obs = done["prompt_payload"]["latest_observation"]
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu
    runtime.close()
    times.sort()
    return {
        "calls_per_s": n / wall,
        "median_ms": statistics.median(times) * 1e3,
        "p99_ms": times[int(len(times) * 0.99)] * 1e3,
        "server_cpu_us_per_call": cpu / n * 1e6,
        "server_sum_vmhwm_kb": 0,
    }


def run_one(name: str, cfg: dict[str, Any], args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    if "inprocess" in cfg:
        print(f"# {name}: Runtime({cfg['inprocess']!r}).execute_step x {args.n}", file=sys.stderr)
        return run_inprocess(cfg["inprocess"], args.n)
    if cfg.get("standin"):
        problem = prepare_standin()
        if problem is not None:
            print(f"# {name}: {problem}", file=sys.stderr, flush=True)
            return {"error": problem}
    out_json = tmp / f"{name}.json"
    cmd = [PY, str(args.bench), "--repeat", str(args.repeat), "--json-out", str(out_json)]
    scenario = cfg.get("scenario", "steps")
    cmd += ["--scenario", scenario, "--n", str(args.n), "--warehouse-n", str(args.warehouse_n)]
    cmd += ["--mode", args.mode]
    if "stdio" in cfg:
        cmd += ["--stdio", cfg["stdio"]]
    else:
        cmd += ["--spawn", cfg["spawn"], "--url", cfg["url"]]
    cmd += ["--cwd", str(tmp)]
    if "store" in cfg:
        cmd += ["--server-env", f"SKILLSTATE_STORE={cfg['store']}"]
        for extra in [*cfg.get("env", ()), *(getattr(args, "server_env", None) or ())]:
            cmd += ["--server-env", extra]
    print(f"# {name}: {shlex.join(cmd)}", file=sys.stderr, flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not out_json.exists():
        print(done.stdout[-2000:], done.stderr[-2000:], file=sys.stderr)
        return {"error": f"exit {done.returncode}"}
    data = json.loads(out_json.read_text())
    medians: dict[str, Any] = data["medians"][scenario]
    return medians


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of each figure over the rounds, the per-round figures, and their ranges."""
    import statistics

    good = [r for r in runs if "error" not in r]
    if not good:
        return runs[0] if runs else {"error": "not run"}
    out: dict[str, Any] = {}
    for key in good[0]:
        values = [r[key] for r in good if isinstance(r.get(key), (int, float))]
        if values:
            out[key] = statistics.median(values)
            out[f"{key}_range"] = [min(values), max(values)]
    out["rounds"] = good
    if len(good) < len(runs):
        out["failed_rounds"] = len(runs) - len(good)
    return out


def _ratios(
    rounds: list[dict[str, dict[str, Any]]], name: str, baseline: str, key: str
) -> list[float]:
    out = []
    for one in rounds:
        mine, base = one.get(name, {}), one.get(baseline, {})
        if "error" in mine or "error" in base or not base.get(key) or key not in mine:
            continue
        out.append(mine[key] / base[key])
    return out


def _baseline_for(name: str, baseline: str, names: list[str]) -> str:
    """The baseline for ``name``: the same scenario and transport (``-http``,
    ``-warehouse``) of the baseline when it was measured, else the baseline itself."""
    for kind in ("http", "warehouse"):
        if name == kind or name.endswith(f"-{kind}") or name.startswith(f"{kind}-"):
            candidate = f"{baseline}-{kind}"
            if candidate in names:
                return candidate
    return baseline


def main(argv: list[str] | None = None) -> int:
    import statistics

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve-trivial", choices=("sdk", "fast"), help=argparse.SUPPRESS)
    parser.add_argument("--bench", type=Path, default=BENCH)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--warehouse-n", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="interleaved rounds: every selected config once per round (median and range)",
    )
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument(
        "--mode",
        default="auto",
        help="the client's protocol mode (mcp.Client mode): auto — discover, which a "
        "2026 server such as ours answers (per-request envelopes), falling back to the "
        "initialize handshake, which is all the reference speaks — or legacy, the "
        "handshake for every server, so that both sides speak the same protocol",
    )
    parser.add_argument(
        "--peer",
        default=os.environ.get(PEER_ENV) or None,
        help=f"stdio command line of the real TypeScript server (default ${PEER_ENV})",
    )
    parser.add_argument(
        "--peer-http",
        default=os.environ.get(PEER_HTTP_ENV) or None,
        help="its Streamable HTTP command line, {port} replaced by a free port "
        f"(default ${PEER_HTTP_ENV}, else the --peer command with --http --port {{port}})",
    )
    parser.add_argument(
        "--baseline",
        default=None,
        help="the config the ratio column divides by (default ts-server with --peer, "
        "else reference-standin)",
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="K=V",
        help="extra environment for every skillstate server (e.g. a store option)",
    )
    parser.add_argument(
        "--before",
        default=None,
        metavar="SKILLSTATE",
        help="another install's skillstate executable (e.g. the main branch's venv): adds "
        "before-file, before-file-process and before-memory, measured in the same rounds",
    )
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    if args.serve_trivial:
        serve_trivial(args.serve_trivial)
        return 0
    baseline = args.baseline or ("ts-server" if args.peer else "reference-standin")
    rounds: list[dict[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmpdir:
        selected: list[str] = []
        for round_no in range(args.rounds):
            tmp = Path(tmpdir) / f"round-{round_no}"  # a fresh store per round
            os.makedirs(tmp / "sdk", exist_ok=True)
            table = configs(tmp)
            if args.peer:
                table.update(peer_configs(args.peer, args.peer_http))
            if args.before:
                table.update(before_configs(args.before, tmp))
            if not selected:
                selected = [name for name in table if not args.only or name in args.only]
                for unknown in sorted(set(args.only or ()) - set(table)):
                    print(
                        f"# {unknown}: no such config (ts-server* need --peer, before-* --before)",
                        file=sys.stderr,
                    )
            one: dict[str, dict[str, Any]] = {}
            for name in selected:
                if args.rounds > 1:
                    print(f"# round {round_no + 1}/{args.rounds}", file=sys.stderr, end=" ")
                one[name] = run_one(name, table[name], args, tmp)
            rounds.append(one)
    results: dict[str, Any] = {name: _summary([r[name] for r in rounds]) for name in selected}
    for name, med in results.items():
        base = _baseline_for(name, baseline, selected)
        if name == base:
            continue
        ratios = _ratios(rounds, name, base, "calls_per_s")
        if ratios:
            med["ratio_vs_baseline"] = statistics.median(ratios)
            med["ratio_vs_baseline_range"] = [min(ratios), max(ratios)]
            med["baseline"] = base
        cpu = _ratios(rounds, name, base, "server_cpu_us_per_call")
        if cpu:
            med["cpu_ratio_vs_baseline"] = statistics.median(cpu)
        rss = _ratios(rounds, name, base, "server_sum_vmhwm_kb")
        if rss:
            med["rss_ratio_vs_baseline"] = statistics.median(rss)
    width = max([24, *map(len, results)])
    header = (
        f"{'config':<{width}} {'calls/s':>8} {'range':>11} {'× baseline':>16} {'p50 ms':>7} "
        f"{'p99 ms':>7} {'srv CPU µs':>10} {'RSS MiB':>8}"
    )
    print(
        f"# {args.rounds} interleaved round(s), n={args.n}, client mode {args.mode}, "
        f"baseline {baseline} (its -http/-warehouse row for those)"
    )
    print(header)
    for name, med in results.items():
        if "error" in med:
            print(f"{name:<{width}} {med['error']}")
            continue
        rss_kb = med.get("server_sum_vmhwm_kb") or 0
        low, high = med.get("calls_per_s_range", [med["calls_per_s"]] * 2)
        ratio = ""
        if "ratio_vs_baseline" in med:
            r_low, r_high = med["ratio_vs_baseline_range"]
            ratio = f"{med['ratio_vs_baseline']:.2f} ({r_low:.2f}–{r_high:.2f})"
        print(
            f"{name:<{width}} {med['calls_per_s']:>8.1f} {f'{low:.0f}–{high:.0f}':>11} "
            f"{ratio:>16} {med['median_ms']:>7.2f} {med['p99_ms']:>7.2f} "
            f"{med['server_cpu_us_per_call']:>10.0f} {rss_kb / 1024:>8.1f}"
        )
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
