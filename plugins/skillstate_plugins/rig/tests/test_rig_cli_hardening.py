"""Issue 16 through the real ``rig-state``: usage parity, bad text, clean exits, warnings.

Before the fix, ``rig-state rm ''`` and ``rig-state init '' x`` did not print rig's
usage line, ``init --json null`` was taken as no seed, a lone surrogate raised a
traceback, and a closed pipe printed one.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from skillstate_testing import clean_env

from . import rigcli
from .rigcli import VENV_BIN, Cli

cli = rigcli.cli


@pytest.mark.parametrize(
    ("args", "usage"),
    [
        (("rm", ""), "usage: rig-state rm <runId>"),
        (("init", "", "x"), "usage: rig-state init <skill> <runId> [--json '{...}']"),
        (("init", "rig-task", ""), "usage: rig-state init <skill> <runId> [--json '{...}']"),
        (("show", ""), "usage: rig-state show <runId>"),
    ],
)
def test_an_empty_positional_is_a_missing_one_as_in_rig(
    cli: Cli, args: tuple[str, ...], usage: str
) -> None:
    r = cli.rig(*args)
    assert (r.code, r.out, r.err) == (2, "", f"rig-state: {usage}\n")


@pytest.mark.parametrize("prog", ["rig-state", "skillstate"])
def test_init_json_null_is_refused_like_an_array(cli: Cli, prog: str) -> None:
    for seed in ("null", "[]"):
        r = cli.run(prog, "init", "rig-task", "t1", "--json", seed)
        assert (r.code, r.out) == (1, "")
        assert r.err == f"{prog}: rejected:\n  - patch: expected a JSON object\n"
    assert not cli.state_dir.exists() or not list(cli.state_dir.iterdir())


def test_a_lone_surrogate_is_refused_naming_the_path(cli: Cli) -> None:
    assert cli.rig("init", "rig-task", "t1").code == 0
    before = sorted((p.name, p.read_bytes()) for p in cli.state_dir.iterdir())
    r = cli.rig("patch", "t1", "--json", '{"decisions":["\\ud83d"]}')
    assert r.code == 1 and "Traceback" not in r.err
    assert r.err == (
        "rig-state: decisions[0]: text is not valid Unicode (a lone surrogate, U+D83D, "
        "at character 0); send UTF-8 text\n"
    )
    assert sorted((p.name, p.read_bytes()) for p in cli.state_dir.iterdir()) == before


def test_a_closed_pipe_is_a_quiet_exit_141(cli: Cli) -> None:
    assert cli.rig("init", "rig-task", "t1").code == 0
    for args in (["list"], ["journal", "t1"], ["show", "t1"], ["get", "t1"]):
        read, write = os.pipe()
        os.close(read)
        try:
            done = subprocess.run(
                [str(VENV_BIN / "rig-state"), *args],
                cwd=cli.root,
                stdout=write,
                stderr=subprocess.PIPE,
                env=clean_env(),
                timeout=60,
            )
        finally:
            os.close(write)
        assert (done.returncode, done.stderr) == (141, b""), args


def test_an_output_stream_that_cannot_encode_is_one_line_exit_3(cli: Cli) -> None:
    assert cli.rig("init", "rig-task", "t1", "--json", '{"nextAction":"→"}').code == 0
    r = cli.rig("show", "t1", PYTHONIOENCODING="ascii")
    assert r.code == 3 and r.err.startswith("rig-state: cannot write the output: ")
    assert r.err.count("\n") == 1
