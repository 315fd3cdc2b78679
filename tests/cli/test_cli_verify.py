"""``skillstate verify``: replays journals of a real file store, in process and as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host, sample_skill

from skillstate.cli.main import main
from skillstate.pipeline import Change, create_run, transition


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"file:{tmp_path / 'state'}"
    host = make_host(url)
    store, skill = host.open_store(), sample_skill()
    for run_id in ("alpha", "beta"):
        assert create_run(host, store, skill, run_id, {"counter": 0}).accepted
        assert transition(host, store, run_id, Change(patch={"counter": 1}), skill=skill).accepted
    host.close()
    return url


def _tamper(url: str, run_id: str) -> None:
    path = Path(url[5:]) / f"{run_id}.json"
    data = json.loads(path.read_text())
    data["state"]["counter"] = 41
    path.write_text(json.dumps(data, indent=2) + "\n")


def _run(url: str, *args: str, capsys: Any) -> tuple[int, str, str]:
    code = main(["--store", url, "verify", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_store_exits_0(url: str, capsys: Any) -> None:
    assert _run(url, capsys=capsys) == (0, "2 runs checked, 0 differ from their journal\n", "")


def test_a_tampered_record_is_reported_with_exit_1(url: str, capsys: Any) -> None:
    _tamper(url, "beta")
    code, out, _ = _run(url, capsys=capsys)
    assert code == 1
    assert out == (
        "beta: differs from its journal\n"
        "  - record state differs from the replay of its journal\n"
        "2 runs checked, 1 differs from its journal\n"
    )
    assert _run(url, "alpha", capsys=capsys)[0] == 0  # only the named run is checked
    code, out, _ = _run(url, "--json", "beta", capsys=capsys)
    assert code == 1
    assert json.loads(out) == [
        {
            "id": "beta",
            "ok": False,
            "status": "differs",
            "problems": ["record state differs from the replay of its journal"],
            "repaired": None,
        }
    ]


def test_a_damaged_journal_is_reported(url: str, capsys: Any) -> None:
    journal = Path(url[5:]) / "alpha.jsonl"
    journal.write_bytes(b"{not json\n" + journal.read_bytes().split(b"\n", 1)[1])
    code, out, _ = _run(url, capsys=capsys)
    assert code == 1
    assert "alpha: cannot be read" in out and "alpha.jsonl line 1 is damaged" in out
    assert out.endswith("2 runs checked, 0 differ from their journal, 1 cannot be read\n")


@pytest.mark.parametrize(
    ("run_id", "message"),
    [("../x", "run id '../x' must be alphanumeric"), ("nope", "no run 'nope'")],
)
def test_bad_or_unknown_ids_are_usage_errors(
    url: str, capsys: Any, run_id: str, message: str
) -> None:
    code, out, err = _run(url, run_id, capsys=capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"skillstate: {message}")


def test_as_a_real_command(url: str) -> None:
    _tamper(url, "alpha")
    result = subprocess.run(
        [sys.executable, "-m", "skillstate.cli.main", "--store", url, "verify"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("alpha: differs from its journal\n")


def test_a_commit_between_the_two_reads_is_not_a_difference(url: str) -> None:
    """verify reads the record, then the journal; a real commit is made to land in between."""
    from skillstate_plugins.maintenance.verify import check_run

    host = make_host(url)
    store, skill = host.open_store(), sample_skill()

    class CommitBetweenReads:
        def __init__(self) -> None:
            self.commits = 1

        def get(self, run_id: str) -> Any:
            return store.get(run_id)

        def snapshots(self, run_id: str) -> Any:
            return store.snapshots(run_id)

        def journal(self, run_id: str) -> Any:
            if self.commits:
                self.commits -= 1
                assert transition(
                    host, store, run_id, Change(patch={"counter": 7}), skill=skill
                ).accepted
            return store.journal(run_id)

    assert check_run(CommitBetweenReads(), "alpha", attempts=1) == (
        "differs",
        [
            "record is at version 2, journal replays to version 3",
            "record state differs from the replay of its journal",
        ],
    )  # what a single read pair sees...
    assert check_run(CommitBetweenReads(), "alpha") == ("ok", [])  # ...and what verify reports
    host.close()


# -- issue 16, class 8: damaged records ---------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # torn: half a record file
        lambda data: b"garbage, not JSON\n",
        lambda data: b'{"id": "alpha", "state": 7}\n',  # JSON, but not a record
        lambda data: data.replace(b'"counter": 1', b'"counter": "\\ud83d"'),  # half a pair
    ],
)
def test_a_damaged_record_beside_an_intact_journal_is_reported_then_rebuilt(
    url: str, capsys: Any, damage: Any
) -> None:
    """Reported as damaged, exit 1 (issue 26: it used to pass); the listing that follows
    reads the run, and a read of the file store rebuilds it from its journal."""
    path = Path(url[5:]) / "alpha.json"
    good = path.read_bytes()
    path.write_bytes(damage(good))
    code, out, err = _run(url, capsys=capsys)
    assert code == 1
    assert out.startswith("alpha: damaged\n  - its record alpha.json is damaged (")
    assert out.endswith("2 runs checked, 0 differ from their journal, 1 damaged\n")
    assert "alpha: its record was damaged" in err and "rebuilt from its journal" in err
    assert url[5:] not in out + err  # files named by name, not by where the store lies
    assert _run(url, capsys=capsys)[:2] == (0, "2 runs checked, 0 differ from their journal\n")
    assert json.loads(path.read_bytes())["state"] == json.loads(good)["state"]
    assert main(["--store", url, "list"]) == 0
    assert capsys.readouterr().out.startswith("alpha\tsample")


def test_verify_reports_a_run_it_cannot_read_and_repair_rebuilds_it(url: str, capsys: Any) -> None:
    _tamper(url, "alpha")  # valid JSON, level with the journal: only verify sees it
    journal = Path(url[5:]) / "beta.jsonl"
    journal.write_bytes(journal.read_bytes().replace(b'"version":2', b'"version":9'))
    code, out, _ = _run(url, capsys=capsys)
    assert code == 1
    assert "alpha: differs from its journal" in out and "beta: cannot be read" not in out
    assert out.endswith("2 runs checked, 2 differ from their journal\n")
    code, out, _ = _run(url, "--repair", capsys=capsys)
    assert code == 1
    assert "alpha: record rebuilt from its journal (2 lines)" in out
    assert "beta: differs from its journal" in out and "not repaired: " in out
    assert out.endswith("2 runs checked, 1 differs from its journal, 1 repaired\n")
    assert _run(url, "alpha", capsys=capsys) == (
        0,
        "1 run checked, 0 differ from their journal\n",
        "",
    )


def test_a_run_no_one_can_read_is_counted_not_hidden(url: str, capsys: Any) -> None:
    (Path(url[5:]) / "alpha.jsonl").unlink()
    (Path(url[5:]) / "alpha.json").write_bytes(b"garbage")  # no journal to rebuild from
    code, out, _ = _run(url, capsys=capsys)
    assert code == 1
    assert out.startswith("alpha: damaged\n  - its record alpha.json is damaged (record file ")
    assert out.endswith("2 runs checked, 0 differ from their journal, 1 damaged\n")
    assert main(["--store", url, "list"]) == 0
    listed = capsys.readouterr()
    assert listed.out.startswith("beta\t") and "skipping alpha.json" in listed.err
