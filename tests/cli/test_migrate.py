"""``skillstate migrate``: copies runs with their journals, verifies them, is idempotent."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pgservice import fresh_schema_url
from skillstate_testing import make_host, sample_skill

from skillstate.cli.main import main
from skillstate.pipeline import Change, create_run, transition


def _fill(url: str, runs: dict[str, int]) -> None:
    """Create each run and give it ``n`` more steps."""
    host = make_host(url)
    store, skill = host.open_store(), sample_skill()
    for run_id, steps in runs.items():
        assert create_run(host, store, skill, run_id, {"counter": 0}, spec="P", meta={"b": 1})
        for n in range(steps):
            patch = {"counter": n + 1, "notes": [f"n{n}", "é"]}
            assert transition(host, store, run_id, Change(patch=patch), skill=skill).accepted
    host.close()


def _snapshot(url: str) -> dict[str, Any]:
    host = make_host(url)
    store = host.open_store()
    out = {s.id: (store.get(s.id), store.journal(s.id)) for s in store.list()}
    host.close()
    return out


def _migrate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["migrate", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def src(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path}/src.db"
    _fill(url, {"a-run": 3, "b-run": 0, "c-run": 12})
    return url


@pytest.fixture
def pg(tmp_path: Path) -> Iterator[str]:
    yield from fresh_schema_url()


def test_copies_everything_then_nothing_the_second_time(
    src: str, pg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _migrate(capsys, "--from", src, "--to", pg)
    assert code == 0
    assert "copied   c-run: copied (version 13, 13 journal entries)" in out
    assert "copied 3 run(s), 0 already present, 0 not copied" in out
    assert _snapshot(pg) == _snapshot(src)

    code, out, _ = _migrate(capsys, "--from", src, "--to", pg, "--json")
    report = json.loads(out)
    assert code == 0 and report["copied"] == []
    assert [r["id"] for r in report["present"]] == ["a-run", "b-run", "c-run"]
    assert _snapshot(pg) == _snapshot(src)


def test_round_trip_back_to_sqlite_in_a_real_process(src: str, pg: str, tmp_path: Path) -> None:
    back = f"sqlite:///{tmp_path}/back.db"
    for a, b in ((src, pg), (pg, back)):
        done = subprocess.run(
            [sys.executable, "-m", "skillstate.cli.main", "migrate", "--from", a, "--to", b],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    again = subprocess.run(
        [sys.executable, "-m", "skillstate.cli.main", "migrate", "--from", pg, "--to", back],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0
    assert again.stdout.splitlines()[-1].startswith("nothing to copy: copied 0 run(s), 3 already")
    snapshot = _snapshot(back)
    assert snapshot == _snapshot(src)
    record = snapshot["c-run"][0]
    assert list(record.state) == list(_snapshot(src)["c-run"][0].state)


def test_a_different_run_in_the_target_is_not_overwritten(
    src: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dst = f"sqlite:///{tmp_path}/dst.db"
    _fill(dst, {"b-run": 5})
    before = _snapshot(dst)["b-run"]
    code, out, _ = _migrate(capsys, "--from", src, "--to", dst)
    assert code == 1
    assert "differs  b-run: the target has a different run 'b-run' (version 6)" in out
    assert "copied 2 run(s), 0 already present, 1 not copied" in out
    assert _snapshot(dst)["b-run"] == before


def test_a_source_run_that_does_not_replay_is_not_copied(
    src: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sqlite3.connect(src.removeprefix("sqlite:///")) as conn:  # damage one journal
        conn.execute("DELETE FROM journal WHERE run_id = 'a-run' AND version = 2")
    dst = f"sqlite:///{tmp_path}/dst.db"
    code, out, _ = _migrate(capsys, "--from", src, "--to", dst)
    assert code == 1
    assert "invalid  a-run: source does not replay: journal versions are [1, 3, 4]" in out
    assert sorted(_snapshot(dst)) == ["b-run", "c-run"]


def test_dry_run_and_run_filter(
    src: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dst = f"sqlite:///{tmp_path}/dst.db"
    code, out, _ = _migrate(capsys, "--from", src, "--to", dst, "--dry-run", "--run", "c-run")
    assert code == 0 and "would copy 1 run(s)" in out
    assert _snapshot(dst) == {}
    code, out, _ = _migrate(capsys, "--from", src, "--to", dst, "--run", "c-run")
    assert code == 0 and sorted(_snapshot(dst)) == ["c-run"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--run", "zzz"], "no run 'zzz' in sqlite://"),
        (["--run", "../x"], "run id '../x' must be alphanumeric"),
    ],
)
def test_bad_requests_fail_clearly_and_write_nothing(
    src: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    dst = f"sqlite:///{tmp_path}/dst.db"
    code, _, err = _migrate(capsys, "--from", src, "--to", dst, *args)
    assert code == 2 and message in err
    assert _snapshot(dst) == {}


def test_same_store_twice_is_refused(src: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _migrate(capsys, "--from", src, "--to", src)
    assert code == 2 and "name the same store" in err
