"""A long ``skillstate bench`` stops at once when its reader goes away (``| head``), at
SIGTERM (``kill PID``) and at SIGINT even when started as a script's ``bench &`` (SIGINT
ignored), keeping every episode already finished, each line of the results file whole."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from skillstate_testing import clean_env

SEEDS = 300  # about 6 s on one core: a run that did not stop would finish them all


def start(out: Path, cwd: Path) -> subprocess.Popen[str]:
    command = [
        str(Path(sys.executable).parent / "skillstate"), "bench", "warehouse",
        "--horizon", "50", "--seeds", str(SEEDS), "--out", str(out), "--no-progress",
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as a script's `skillstate bench … &`: the shell starts background jobs so
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 2):
        assert process.poll() is None, process.communicate()
        time.sleep(0.02)
    return process


def kept(out: Path) -> list[dict[str, object]]:
    text = out.read_text()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]  # every line whole


def test_a_closed_output_stops_the_run_with_141_and_keeps_the_finished_episodes(
    tmp_path: Path,
) -> None:
    out = tmp_path / "runs.jsonl"
    process = start(out, tmp_path)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader went away, as `| head` does once it has its lines
    code = process.wait(timeout=120)
    stderr = process.stderr.read()
    process.stderr.close()
    assert code == 141, stderr
    assert stderr == ""  # nothing printed after
    assert 2 <= len(kept(out)) < SEEDS


@pytest.mark.parametrize(
    ("signum", "code", "word"),
    [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")],
)
def test_a_background_run_stops_at_a_signal_and_keeps_the_finished_episodes(
    tmp_path: Path, signum: int, code: int, word: str
) -> None:
    out = tmp_path / "runs.jsonl"
    process = start(out, tmp_path)
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == code, stderr
    done = kept(out)
    assert 2 <= len(done) < SEEDS
    assert stderr.strip() == (
        f"skillstate: {word}; {len(done)} episodes finished are in {out} (--resume continues)"
    )
    assert "Traceback" not in stdout
