"""The benchmark pages stay true: every documented ``skillstate bench`` command parses, and a
cheap slice of the documented figures re-runs to the same numbers."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from support import ROOT, SKILLSTATE, clean_env

PAGES = [ROOT / "docs" / "warehouse.md", ROOT / "plugins" / "skillstate-repo" / "README.md"]


def _commands(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    found = re.findall(r"`(skillstate bench [^`]+)`", text)
    for block in re.findall(r"```bash\n(.*?)```", text, re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip()
            if "skillstate bench" in line:
                found.append(line[line.index("skillstate bench") :])
    out = []
    for command in found:
        command = re.sub(r"\{([^,}]+)(,[^}]*)?\}", r"\1", command)  # {a,b,c} -> a
        if "…" not in command and "..." not in command:
            out.append(command)
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name + "/" + p.name)
def test_every_documented_bench_command_parses(page: Path) -> None:
    from skillstate.cli.main import build_parser, core_commands
    from skillstate.config import load_config
    from skillstate.host import Host

    host = Host.from_config(load_config(env={}))
    commands = _commands(page)
    assert len(commands) >= 8, commands
    for command in commands:
        argv = shlex.split(command)[1:]
        parser = build_parser([*core_commands(), *host.commands], "bench")
        try:
            parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"{page.name}: documented command does not parse: {command}")


def _row(page: Path, cells: str) -> bool:
    return cells in page.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "page", "runtime", "row"),
    [
        (
            "warehouse",
            PAGES[0],
            "react",
            "| 10 | react | 1.00 ±0.00 | 2,510 ±44 | 628 | 25,100 ±436 | 6,278 |",
        ),
        (
            "repo",
            PAGES[1],
            "skill-state",
            "| 10 | skill-state | 1.00 ±0.00 | 2,780 ±14 | 27,797 ±138 | 6,953 |",
        ),
    ],
)
def test_the_documented_t_10_row_re_runs_exactly(
    name: str, page: Path, runtime: str, row: str, tmp_path: Path
) -> None:
    assert _row(page, row), f"{page.name} no longer shows {row}"
    done = subprocess.run(
        [SKILLSTATE, "bench", name, "--runtime", runtime, "--horizon", "10", "--seeds", "5", "--json"],
        capture_output=True, text=True, env=clean_env(), cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"][0]
    avg, sd = f"{summary['avg_prompt_chars']:,.0f}", f"{summary['avg_prompt_chars_sd']:,.0f}"
    total = f"{summary['total_prompt_chars']:,.0f} ±{summary['total_prompt_chars_sd']:,.0f}"
    assert (
        f"{avg} ±{sd}" in row
        and total in row
        and f"{summary['total_prompt_tokens_est']:,.0f} |" in row
    )


def test_the_bench_hook_is_documented_in_a_section_of_its_own() -> None:
    """docs/hooks.md: the core's hooks, then the bench plugin's (its spec module's docstring)."""
    from tools.hookdoc import hook_signatures

    page = (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    core, bench = page.split(
        "\n# Hooks of the `bench` plugin (`skillstate_plugins.bench.hookspecs`)\n"
    )
    assert "\n## skillstate_register_benchmarks\n" not in core  # not a core hook
    assert (
        hook_signatures()["skillstate_register_benchmarks"]
        == "skillstate_register_benchmarks(register)"
    )
    assert (
        "\n## skillstate_register_benchmarks\n\n`skillstate_register_benchmarks(register)` — collected\n"
        in bench
    )
    assert "@hookimpl(optionalhook=True)" in bench and "The benchmark harness's own hook" in bench


def test_the_documented_replace_benchmark_runs(tmp_path: Path) -> None:
    """``benchmarks/bench_replace.py`` (docs/benchmarks.md, "Issue 25 … third step") prints
    its three rows, each a number, and leaves nothing behind in the directory it used."""
    import sys

    command = "benchmarks/bench_replace.py"
    assert command in (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_replace.py"), "--n", "20"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and "µs" not in line]
    assert len(rows) == 3, done.stdout
    assert all(float(row.rsplit("|", 2)[1]) > 0 for row in rows), done.stdout
    assert list(tmp_path.iterdir()) == []
