"""Every benchmark in one run, side by side: ``python -m benchmarks [--quick] [--json PATH]``.

Calls the measurement functions of the scripts in this directory, one section after
another in one process (their subprocesses included), so the figures come from the
same machine under the same load, and prints one table:

- ``core`` — one in-process transition (memory store, 3 guards), ``skillstate
  --version`` and ``skillstate plugins`` against ``python -c pass`` (bench_core);
- ``file-store`` — a durable transition against the floor (temp file + fsync + rename +
  directory fsync + journal append), journal length 10 vs 100,000, ``list()`` over
  10,000 runs (bench_file_store);
- ``durability`` — durable transitions per second at ``full`` and ``process`` on file,
  sqlite and — when reachable — postgresql, against the fsync floor (bench_durability);
- ``stores`` — transition latency and throughput (1 and 4 clients on distinct runs, 4
  on one shared run, with lost updates counted) on memory, file, sqlite and — when it
  is reachable — postgresql (bench_stores);
- ``rig-cli`` — ``rig-state patch`` / ``show`` per process (bench_rig_cli);
- ``runtime`` — ``execute_step`` vs a bare transition; A.4 prompt flatness; a 1 MB
  turn text through ``parse_turn_response`` (bench_runtime);
- ``skills`` — skill-store listing cost in bytes read (bench_skills);
- ``mcp`` — ``execute_step`` over stdio through an MCP client (bench_mcp; needs its
  client script, skipped with the reason otherwise), beside the Node stand-in for the
  reference server (its row says why when ``node``/``npm`` are missing);
- ``warehouse`` — a whole oracle episode on the file and memory stores (bench_warehouse);
- ``history`` — ``state_at`` and the last 20 versions of a 100,000-version run on each
  store, against a replay from version 1 (bench_history);
- ``memory`` — peak resident memory of this process and of the largest child.

``--quick`` shrinks every size (about a minute); the full run stays under five minutes
on a 2-core machine. ``--only core,stores`` runs some sections. Each script still runs
on its own with more options (see its docstring). The exit code is 1 if a section
failed; a section that cannot run here (PostgreSQL, the MCP client) is reported as
skipped, with the reason.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import re
import resource
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["SECTIONS", "main", "run_sections"]

Row = tuple[str, str, str]  # measurement, value, note
Section = Callable[[bool], tuple[dict[str, Any], list[Row]]]


class Skipped(Exception):
    """A section that cannot run on this machine; the message says why."""


def _quiet(call: Callable[[], Any]) -> tuple[Any, str]:
    """Run ``call`` with stdout and stderr captured; return its result and the stdout text."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        result = call()
    return result, out.getvalue()


def core(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    from benchmarks import bench_core

    t = bench_core.bench_transition(500 if quick else 3000)
    s = bench_core.bench_startup(8 if quick else 30)
    rows = [
        (
            f"transition, memory store ({t['state_bytes']} B state, 3 guards)",
            f"{t['median_us']:.1f} µs",
            f"p90 {t['p90_us']:.1f} µs; target ≤ 50 µs",
        ),
        ("`python -c pass` (floor)", f"{s['python_pass_ms']:.1f} ms", ""),
        (
            "`skillstate --version`",
            f"{s['version_ms']:.1f} ms",
            f"{s['version_ratio']:.2f}× floor; target ≤ 1.3×",
        ),
        (
            "`skillstate plugins`",
            f"{s['plugins_ms']:.1f} ms",
            f"{s['plugins_ratio']:.2f}× floor; target ≤ 3×",
        ),
    ]
    return {"transition": t, "startup": s}, rows


def file_store(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    from benchmarks import bench_file_store

    with tempfile.TemporaryDirectory(prefix="bench-all-") as tmp:
        out = Path(tmp) / "file.json"
        rounds, long, runs = (60, 10_000, 2_000) if quick else (300, 100_000, 10_000)
        argv = ["--rounds", str(rounds), "--long", str(long), "--runs", str(runs)]
        _quiet(lambda: bench_file_store.main([*argv, "--json", str(out)]))
        r = json.loads(out.read_text())
    rows = [
        ("floor: fsync'd temp file + rename + dir fsync + append", f"{r['floor_ms']:.3f} ms", ""),
        (
            "a 400 B append + fdatasync (the one sync a commit makes)",
            f"{r['append_floor_ms']:.3f} ms",
            f"the transition is {r['transition_vs_append_floor']:.2f}× this",
        ),
        (
            f"durable transition, file store ({r['state_bytes']} B state)",
            f"{r['transition_ms']:.3f} ms",
            f"{r['transition_vs_floor']:.2f}× floor; target ≤ 1.5×",
        ),
        (
            f"same, journal of {r['long_journal_entries']:,} entries",
            f"{r['transition_long_ms']:.3f} ms",
            f"{r['long_vs_short']:.3f}× the 10-entry run; target within 10%",
        ),
        (f"`list()` over {r['list_runs']:,} runs", f"{r['list_s'] * 1000:.0f} ms", "target < 1 s"),
    ]
    return r, rows


def durability(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    from skillstate_testing.helpers import postgres_unavailable

    from benchmarks import bench_durability

    names = ["file", "sqlite"]
    if postgres_unavailable(bench_durability.PG_URL) is None:
        names.append("postgresql")
    r = bench_durability.measure(names, 80 if quick else 400)
    rows = [("fsync floor: 400 B append + fdatasync", f"{r['floor_ms']:.3f} ms", "")]
    for name in names:
        for level in bench_durability.LEVELS:
            m = r[f"{name}:{level}"]
            note = f"{m['vs_floor']:.2f}× floor"
            if level == "process":
                note += f"; {r[f'{name}:speedup']:.1f}× full"
            rows.append(
                (f"transition, {name}, durability={level}", f"{m['commits_per_s']:,.0f}/s", note)
            )
    return r, rows


def stores(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    from skillstate_testing.helpers import postgres_unavailable

    from benchmarks import bench_stores

    names = ["memory", "file", "sqlite", "postgresql"]
    reason = postgres_unavailable(bench_stores.PG_URL)
    if reason:
        names.remove("postgresql")
    n, seconds = (100, 0.5) if quick else (300, 2.0)
    cells = ((False, 1), (False, 4), (True, 4))
    results: dict[str, Any] = {"postgresql_skipped": reason} if reason else {}
    rows: list[Row] = []
    schema = f"ss_bench_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="bench-all-") as tmp:
        try:
            for name, url in bench_stores._urls(names, tmp, schema).items():
                median, p95 = bench_stores._latency(url, n)
                rates = {}
                for shared, clients in cells:
                    rate, conflicts, lost = bench_stores._throughput(url, clients, shared, seconds)
                    rates[f"{'shared' if shared else 'distinct'}_x{clients}"] = {
                        "per_s": rate,
                        "conflicts": conflicts,
                        "lost": lost,
                    }
                results[name] = {"median_ms": median, "p95_ms": p95, "throughput": rates}
                lost_total = sum(r["lost"] for r in rates.values())
                rows.append(
                    (
                        f"transition, {name} store",
                        f"{median:.2f} ms",
                        f"p95 {p95:.2f} ms; "
                        + ", ".join(f"{k} {v['per_s']:,.0f}/s" for k, v in rates.items())
                        + (
                            f"; **{lost_total} LOST UPDATES**" if lost_total else "; no lost update"
                        ),
                    )
                )
                if lost_total:
                    raise AssertionError(f"{name}: {lost_total} lost updates")
        finally:
            if "postgresql" in names:
                bench_stores.drop_schema(schema)
    if reason:
        rows.append(("transition, postgresql store", "skipped", reason))
    return results, rows


def rig_cli(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    from benchmarks import bench_rig_cli

    runs = 9 if quick else 41
    code, text = _quiet(lambda: bench_rig_cli.main(["--runs", str(runs)]))
    results: dict[str, Any] = {"runs": runs, "target_met": code == 0}
    rows: list[Row] = []
    for match in re.finditer(r"^\| `([^`]+)` \| ([\d.]+) ms \|.*?\| ([\d.]+) \|", text, re.M):
        name, median, ratio = match.group(1), float(match.group(2)), float(match.group(3))
        results[name] = {"median_ms": median, "x_pass": ratio}
        if name != "python -c pass":
            note = f"{ratio:.2f}× `python -c pass`"
            if name == "rig-state patch":
                note += "; target ≤ 60 ms"
            rows.append((f"`{name}` (a process each)", f"{median:.1f} ms", note))
    if "rig-state patch" not in results:
        raise AssertionError(f"no timings in bench_rig_cli's output:\n{text}")
    return results, rows


def runtime(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    from benchmarks import bench_runtime

    step = bench_runtime.bench_step(60 if quick else 300)
    prompt = bench_runtime.bench_prompt(50 if quick else 200)
    turn = bench_runtime.bench_turn_parse(1 if quick else 3)
    rows = [
        (
            "`execute_step`, file store",
            f"{step['execute_step_median_ms']:.3f} ms",
            f"{step['ratio']:.2f}× a bare transition; target ≤ 1.3×",
        ),
        (
            f"A.4 prompt over {prompt['steps']} steps, largest / smallest",
            f"{prompt['a4_ratio']:.3f}",
            f"ReAct prompt grows {prompt['react_first_chars']:,} → {prompt['react_last_chars']:,} chars; target ≤ 1.1",
        ),
        (
            f"`parse_turn_response`, {turn['large_bytes']:,}-byte turn (trailing-comma repair)",
            f"{turn['large_ms']:.0f} ms",
            f"{turn['ratio']:.1f}× the {turn['small_bytes']:,}-byte turn (linear: ≈ 8×); "
            "target < 1 s",
        ),
    ]
    return {"execute_step": step, "prompt": prompt, "turn_parse": turn}, rows


def skills(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    from benchmarks import bench_skills

    count = 200 if quick else 1000
    argv = ["bench_skills", "--skills", str(count), "--rounds", "3" if quick else "5"]
    saved = sys.argv
    sys.argv = argv  # bench_skills.main reads its options from sys.argv
    try:
        _, text = _quiet(bench_skills.main)
    finally:
        sys.argv = saved
    found = {
        m.group(1): (float(m.group(2)), int(m.group(3).replace(",", "")))
        for m in re.finditer(
            r"^(list\(\)|naive whole-file|view\(one\))\s+([\d.]+) ms\s+([\d,]+) bytes", text, re.M
        )
    }
    if "list()" not in found:
        raise AssertionError(f"no timings in bench_skills' output:\n{text}")
    listed, naive = found["list()"], found.get("naive whole-file", (0.0, 0))
    results = {"skills": count, **{k: {"ms": v[0], "bytes": v[1]} for k, v in found.items()}}
    rows = [
        (
            f"skill store `list()` of {count:,} skills",
            f"{listed[0]:.1f} ms",
            f"{listed[1] / count:,.0f} bytes read per skill (reading whole files: {naive[1] / count:,.0f})",
        )
    ]
    return results, rows


def mcp(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    from benchmarks import bench_mcp

    if not bench_mcp.BENCH.exists():
        raise Skipped(f"the MCP bench client {bench_mcp.BENCH} is not on this machine")
    # auto: the client speaks the 2026 protocol with our server, the 2025 handshake with
    # the stand-in (all it knows); legacy: the handshake with both (see bench_mcp).
    plan = {
        "auto": [
            "reference-standin",
            "trivial-fast",
            "skillstate-fast-file",
            "skillstate-fast-memory",
        ],
        "legacy": ["reference-standin", "skillstate-fast-file", "skillstate-fast-memory"],
    }
    results: dict[str, Any] = {}
    rows: list[Row] = []
    for mode, configs in plan.items():
        with tempfile.TemporaryDirectory(prefix="bench-all-") as tmp:
            out = Path(tmp) / "mcp.json"
            argv = ["--n", "200" if quick else "1000", "--mode", mode, "--only", *configs]
            argv += ["--json-out", str(out)]
            _quiet(lambda argv=argv: bench_mcp.main(argv))
            results[mode] = json.loads(out.read_text())
        reference = results[mode].get("reference-standin", {}).get("calls_per_s")
        for name in configs:
            med = results[mode].get(name, {"error": "not run"})
            label = f"MCP `execute_step` over stdio, client mode {mode}, {name}"
            if "error" in med:
                if name == "reference-standin":  # needs node and npm: say why it is missing
                    rows.append((label, "—", med["error"]))
                    continue
                raise AssertionError(f"bench_mcp {name} ({mode}): {med['error']}")
            rss = (med.get("server_sum_vmhwm_kb") or 0) / 1024
            ratio = f"; {med['calls_per_s'] / reference:.2f}× the stand-in" if reference else ""
            rows.append(
                (
                    label,
                    f"{med['median_ms']:.2f} ms",
                    f"p99 {med['p99_ms']:.2f} ms; {med['calls_per_s']:.0f} calls/s{ratio}; "
                    f"server CPU {med['server_cpu_us_per_call']:.0f} µs/call; RSS {rss:.0f} MiB",
                )
            )
    return results, rows


def warehouse(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    from benchmarks import bench_warehouse

    steps, repeats = (50, 1) if quick else (200, 3)
    report, _ = _quiet(
        lambda: bench_warehouse.main(["--steps", str(steps), "--repeats", str(repeats)])
    )
    rows = [
        (
            f"warehouse oracle episode, {steps} steps, {store} store",
            f"{report[f'{store}_median_s']:.2f} s",
            f"{report[f'{store}_per_step_ms']:.2f} ms per step; "
            f"target {'< 2 s' if store == 'file' else '< 0.5 s'} at 200 steps",
        )
        for store in ("file", "memory")
    ]
    return report, rows


def history(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    from skillstate_testing.helpers import postgres_unavailable

    from benchmarks import bench_history
    from benchmarks.bench_stores import PG_URL, drop_schema

    versions = 20_000 if quick else 100_000
    names = ["memory", "file", "sqlite", "postgresql"]
    reason = postgres_unavailable(PG_URL)
    if reason:
        names.remove("postgresql")
    record, entries = bench_history.build(versions)
    results: dict[str, Any] = {"versions": versions, "postgresql_skipped": reason}
    rows: list[Row] = []
    schema = f"ss_bench_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="bench-all-") as tmp:
        try:
            for name, url in bench_history._urls(names, tmp, schema).items():
                r = bench_history.measure(url, record, entries, 5 if quick else 10, False)
                results[name] = r
                rows.append(
                    (
                        f"`state_at` / last 20 versions, {name}, {versions:,} versions",
                        f"{r['state_at_random_ms']:.1f} / {r['log_20_ms']:.1f} ms",
                        f"replay from version 1: {r['replay_from_1_ms']:.0f} ms",
                    )
                )
        finally:
            if "postgresql" in names:
                drop_schema(schema)
    if reason:
        rows.append(("history, postgresql store", "skipped", reason))
    return results, rows


def memory(quick: bool) -> tuple[dict[str, Any], list[Row]]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    rows = [
        ("peak RSS of this process (every in-process section)", f"{own:.0f} MiB", ""),
        (
            "peak RSS of the largest child process",
            f"{child:.0f} MiB",
            "CLI runs, store clients, MCP servers; a forked client counts the pages it inherits",
        ),
    ]
    return {"self_max_rss_mib": own, "children_max_rss_mib": child}, rows


SECTIONS: dict[str, Section] = {
    "core": core,
    "file-store": file_store,
    "durability": durability,
    "stores": stores,
    "rig-cli": rig_cli,
    "runtime": runtime,
    "skills": skills,
    "mcp": mcp,
    "warehouse": warehouse,
    "history": history,
    "memory": memory,
}


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": model,
        "cpus": os.cpu_count(),
        "load_average_1min": os.getloadavg()[0],
    }


def run_sections(names: list[str], quick: bool) -> dict[str, Any]:
    """Run the named sections; a failing one is recorded and the others still run."""
    report: dict[str, Any] = {"machine": machine(), "quick": quick, "sections": {}, "rows": []}
    began = time.perf_counter()
    for name in names:
        print(f"# {name} ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        try:
            results, rows = SECTIONS[name](quick)
            status = "ok"
        except Skipped as exc:
            results, rows, status = {"skipped": str(exc)}, [(name, "skipped", str(exc))], "skipped"
        except Exception as exc:  # report it, keep measuring the rest
            message = f"{type(exc).__name__}: {exc}"
            results, rows, status = {"error": message}, [(name, "FAILED", message)], "error"
        seconds = time.perf_counter() - started
        report["sections"][name] = {"status": status, "seconds": round(seconds, 1), **results}
        report["rows"] += [[name, *row] for row in rows]
    report["seconds"] = round(time.perf_counter() - began, 1)
    report["machine"]["load_average_1min_end"] = os.getloadavg()[0]
    return report


def table(report: dict[str, Any]) -> str:
    """The Markdown table of a report."""
    m = report["machine"]
    lines = [
        f"{m['cpus']} CPUs ({m['cpu'] or 'unknown model'}), {m['platform']}, Python {m['python']}; "
        f"load average {m['load_average_1min']:.1f} → {m['load_average_1min_end']:.1f}; "
        f"{'--quick, ' if report['quick'] else ''}{report['seconds']:.0f} s in all",
        "",
        "| section | measurement | value | notes |",
        "|---|---|---|---|",
    ]
    lines += [f"| {s} | {what} | {value} | {note} |" for s, what, value, note in report["rows"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="small sizes (about a minute)")
    parser.add_argument("--json", metavar="PATH", type=Path, help="also write the report as JSON")
    parser.add_argument(
        "--only",
        metavar="NAMES",
        help=f"comma-separated sections (default: all): {', '.join(SECTIONS)}",
    )
    args = parser.parse_args(argv)
    names = list(SECTIONS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in SECTIONS]
        if unknown:
            parser.error(f"unknown section(s) {', '.join(unknown)}; known: {', '.join(SECTIONS)}")
    report = run_sections(names, args.quick)
    print(table(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    failed = [n for n, s in report["sections"].items() if s["status"] == "error"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
