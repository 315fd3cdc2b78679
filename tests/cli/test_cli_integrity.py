"""Deletes that never take a later write, and verify telling the truth about files.

Through the real ``skillstate`` command line on a real file store (and SQLite): ``gc``
racing a writer in another process, ``rm --expected-version``, a torn record, and the
debris a delete killed halfway leaves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import SKILLSTATE, clean_env, make_distribution, run_skillstate

RACY_STORE = '''
"""A file store whose delete lets another process patch the run first: exactly the
moment a writer can land between gc's read of a run and its delete."""
import subprocess

from skillstate.plugin import StoreSpec, hookimpl
from skillstate_plugins.file_store.store import FileStore


SKILLSTATE = {skillstate!r}


class RacyStore(FileStore):
    def __init__(self, url):
        super().__init__("file:" + url.split(":", 1)[1])

    def delete(self, run_id, expected_version=None):
        patch = subprocess.run(
            [SKILLSTATE, "--store", "file:" + self.root,
             "patch", run_id, "--json", '{"nextAction": "written by a racing writer"}'],
            capture_output=True, text=True,
        )
        if patch.returncode == 0:  # acknowledged to that writer
            with open(self.root + "/acked.txt", "a") as out:
                out.write(run_id + "\\n")
        return super().delete(run_id, expected_version)


@hookimpl
def skillstate_register_stores(register):
    register(StoreSpec(scheme="racy", factory=RacyStore, description="test: a racing writer"))
'''


def _init(url: str, cwd: Path, *run_ids: str) -> None:
    for run_id in run_ids:
        out = run_skillstate("--store", url, "init", "rig-task", run_id, cwd=cwd)
        assert out.returncode == 0, out.stderr


def test_gc_never_deletes_a_patch_acknowledged_after_it_read_the_run(tmp_path: Path) -> None:
    make_distribution(
        tmp_path,
        "racy-store",
        "racy_store",
        RACY_STORE.replace("{skillstate!r}", repr(SKILLSTATE)),
        {"racy-store": "racy_store"},
    )
    state = tmp_path / "state"
    _init(f"file:{state}", tmp_path, "a1", "a2", "a3")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    gc = run_skillstate(
        "--store", f"racy:{state}", "gc", "--older-than", "0s", "--json", cwd=tmp_path, **env
    )
    assert gc.returncode == 0, gc.stderr
    acked = (state / "acked.txt").read_text().split()
    assert acked == ["a1", "a2", "a3"]  # every run got a write gc had not seen
    assert json.loads(gc.stdout)["runs"] == []  # so gc deleted none of them
    for run_id in acked:
        got = run_skillstate("--store", f"file:{state}", "get", run_id, cwd=tmp_path)
        assert json.loads(got.stdout)["nextAction"] == "written by a racing writer"
    again = run_skillstate("--store", f"file:{state}", "gc", "--older-than", "0s", cwd=tmp_path)
    assert again.stdout.splitlines()[-1] == "deleted 3 runs"  # unraced, they go


@pytest.mark.parametrize("scheme", ["file", "sqlite"])
def test_rm_expected_version(tmp_path: Path, scheme: str) -> None:
    url = f"file:{tmp_path / 'state'}" if scheme == "file" else f"sqlite:{tmp_path / 'r.db'}"
    _init(url, tmp_path, "t1")
    patch = run_skillstate(
        "--store", url, "patch", "t1", "--json", '{"nextAction": "x"}', cwd=tmp_path
    )
    assert patch.returncode == 0
    stale = run_skillstate("--store", url, "rm", "t1", "--expected-version", "1", cwd=tmp_path)
    assert stale.returncode == 4
    assert stale.stderr == (
        "skillstate: run 't1' is at version 2, not the expected version 1; nothing deleted "
        "(read the run again and retry)\n"
    )
    assert run_skillstate("--store", url, "get", "t1", cwd=tmp_path).returncode == 0
    gone = run_skillstate("--store", url, "rm", "t1", "--expected-version", "2", cwd=tmp_path)
    assert (gone.returncode, gone.stdout, gone.stderr) == (0, "", "")
    missing = run_skillstate("--store", url, "rm", "t1", "--expected-version", "2", cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr == "skillstate: no run 't1' (expected at version 2); nothing deleted\n"
    bad = run_skillstate("--store", url, "rm", "t1", "--expected-version", "x", cwd=tmp_path)
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1


def test_a_torn_record_is_reported_damaged_then_repaired(tmp_path: Path) -> None:
    url = f"file:{tmp_path / 'state'}"
    _init(url, tmp_path, "torn", "fine")
    run_skillstate("--store", url, "patch", "torn", "--json", '{"nextAction": "n"}', cwd=tmp_path)
    record = tmp_path / "state" / "torn.json"
    os.truncate(record, 60)
    verify = run_skillstate("--store", url, "verify", cwd=tmp_path)
    assert verify.returncode == 1
    lines = verify.stdout.splitlines()
    assert lines[0] == "torn: damaged"
    assert lines[1].startswith("  - its record torn.json is damaged (record file torn.json is")
    assert lines[-1] == "2 runs checked, 0 differ from their journal, 1 damaged"
    assert str(tmp_path) not in verify.stdout + verify.stderr  # no path of the machine
    os.truncate(record, 60)  # verify's own listing read it, and reads mend: tear it again
    as_json = run_skillstate("--store", url, "verify", "torn", "--json", cwd=tmp_path)
    assert as_json.returncode == 1
    assert [(r["id"], r["status"]) for r in json.loads(as_json.stdout)] == [("torn", "damaged")]
    os.truncate(record, 60)
    repair = run_skillstate("--store", url, "verify", "--repair", cwd=tmp_path)
    assert repair.returncode == 0, repair.stdout
    assert repair.stdout.startswith("torn: record rebuilt from its journal")
    got = run_skillstate("--store", url, "get", "torn", cwd=tmp_path)
    assert json.loads(got.stdout)["nextAction"] == "n"
    assert run_skillstate("--store", url, "verify", cwd=tmp_path).returncode == 0


def test_the_debris_of_a_delete_killed_halfway_is_reported_and_collected(
    tmp_path: Path,
) -> None:
    url = f"file:{tmp_path / 'state'}"
    _init(url, tmp_path, "half", "whole")
    root = tmp_path / "state"
    # a delete killed after its record went (the order: .json.new, .json, .jsonl, .lock)
    (root / "half.json").unlink()
    assert run_skillstate("--store", url, "get", "half", cwd=tmp_path).returncode == 2
    verify = run_skillstate("--store", url, "verify", cwd=tmp_path)
    assert verify.returncode == 1
    assert verify.stdout == (
        "half: debris of an interrupted delete\n"
        "  - a journal or lock without its record\n"
        "2 runs checked, 0 differ from their journal, 1 left by an interrupted delete\n"
    )
    named = run_skillstate("--store", url, "verify", "half", cwd=tmp_path)
    assert named.returncode == 1 and named.stdout.startswith("half: debris")
    repair = run_skillstate("--store", url, "verify", "--repair", cwd=tmp_path)
    assert repair.returncode == 0
    assert repair.stdout.splitlines()[0] == "half: debris collected"
    assert sorted(p.name for p in root.iterdir() if p.name.startswith("half")) == []
    assert run_skillstate("--store", url, "verify", cwd=tmp_path).stdout == (
        "1 run checked, 0 differ from their journal\n"
    )
    # a lock left alone (killed one step later) is debris too
    (root / "whole.json").unlink()
    (root / "whole.jsonl").unlink()
    verify = run_skillstate("--store", url, "verify", "--json", cwd=tmp_path)
    assert [(r["id"], r["status"]) for r in json.loads(verify.stdout)] == [("whole", "debris")]


def test_a_delete_leaves_no_cut_short_commit_that_recovery_would_revive(tmp_path: Path) -> None:
    """A ``.json.new`` beside a journal, without the record, is a creation cut short:
    recovery puts it in place. So the delete removes it first."""
    url = f"file:{tmp_path / 'state'}"
    _init(url, tmp_path, "r1")
    root = tmp_path / "state"
    (root / "r1.json.new").write_bytes((root / "r1.json").read_bytes())
    env = clean_env()
    code = (
        "import sys, os\n"
        "from skillstate_testing import make_host\n"
        "store = make_host(sys.argv[1]).open_store()\n"
        "real = os.unlink\n"
        "def unlink(path, *a, **k):\n"
        "    real(path, *a, **k)\n"
        "    if path.endswith('r1.json.new'): os._exit(9)  # killed after the first file\n"
        "os.unlink = unlink\n"
        "os.remove = unlink\n"
        "store.delete('r1')\n"
    )
    import subprocess

    killed = subprocess.run(
        [sys.executable, "-c", code, url], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert killed.returncode == 9, killed.stderr
    assert not (root / "r1.json.new").exists() and (root / "r1.json").exists()
    assert run_skillstate("--store", url, "verify", cwd=tmp_path).returncode == 0


# -- import holds a forged export to its skill's rules (issue 26, item 4) ----------------


def _forge(export: str, edit: Any) -> str:
    """The export with ``edit(doc)`` applied and its sha256 recomputed, as a forger would."""
    import hashlib

    doc = json.loads(export)
    edit(doc)
    body = json.dumps(
        {"run": doc["run"], "journal": doc["journal"]}, separators=(",", ":"), ensure_ascii=False
    )
    doc["sha256"] = hashlib.sha256(body.encode()).hexdigest()
    return json.dumps(doc)


def _in_state_and_base(key: str, value: Any) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        doc["run"]["state"][key] = value
        doc["journal"][0]["base"][key] = value

    return edit


def _set(where: str, key: str, value: Any) -> Any:
    def edit(doc: dict[str, Any]) -> None:
        target = {"doc": doc, "run": doc["run"], "entry": doc["journal"][0]}[where]
        target[key] = value

    return edit


def _unknown_skill(doc: dict[str, Any]) -> None:
    doc["run"]["skill"] = doc["run"]["state"]["skill"] = "nope"
    doc["journal"][0]["base"]["skill"] = "nope"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_in_state_and_base("bogus", 1), "  - bogus: unknown key. Known keys: base,"),
        (_in_state_and_base("phase", "pr-open"), "  - phase 'pr-open' requires tests.status"),
        (_unknown_skill, "  - unknown skill 'nope'. Known: "),
        (_set("doc", "format_version", True), "has export format version True;"),
        (_set("doc", "format_version", "1"), "has export format version '1';"),
        (_set("run", "created", "not a time"), 'run.created must be an RFC 3339 time, got "no'),
        (_set("entry", "ts", "2026-02-30T00:00:00Z"), "journal[0].ts must be an RFC 3339 time"),
    ],
    ids=["unknown-key", "guard", "unknown-skill", "true", "string", "created", "ts"],
)
def test_import_refuses_a_forged_export_and_writes_nothing(
    tmp_path: Path, edit: Any, message: str
) -> None:
    source = f"file:{tmp_path / 'source'}"
    _init(source, tmp_path, "r1")
    export = run_skillstate("--store", source, "export", "r1", cwd=tmp_path).stdout
    forged = tmp_path / "forged.json"
    forged.write_text(_forge(export, edit), encoding="utf-8")
    target = tmp_path / "target"
    out = run_skillstate("--store", f"file:{target}", "import", str(forged), cwd=tmp_path)
    assert out.returncode == 5, out.stderr
    assert message in out.stderr
    assert "nothing written" in out.stderr.splitlines()[0]
    assert not target.exists() or list(target.iterdir()) == []
    # the same file unforged imports
    (tmp_path / "good.json").write_text(_forge(export, lambda doc: None), encoding="utf-8")
    good = run_skillstate("--store", f"file:{target}", "import", "good.json", cwd=tmp_path)
    assert good.returncode == 0, good.stderr


# -- a refusal costs what its first problems cost (issue 26, item 5) ---------------------


def _patch_stdin(
    url: str, cwd: Path, document: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """``skillstate patch r1 --json -`` with ``document`` on standard input."""
    return subprocess.run(
        [SKILLSTATE, "--store", url, "patch", "r1", "--json", "-"],
        input=document,
        capture_output=True,
        text=True,
        env=clean_env(**env),
        cwd=cwd,
        timeout=120,
    )


def test_a_huge_patch_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    url = f"file:{tmp_path / 'state'}"
    _init(url, tmp_path, "r1")
    big = json.dumps({f"k{i}": i for i in range(1_000_000)})  # 16 MB of unknown keys
    out = _patch_stdin(url, tmp_path, big)
    assert out.returncode == 1
    assert out.stderr == (
        "skillstate: patch is over the 1,048,576-byte input limit (the setting "
        "max_input_bytes, SKILLSTATE_MAX_INPUT_BYTES), refused unread\n"
    )
    raised = _patch_stdin(
        url, tmp_path, json.dumps({"nextAction": "x" * 1500}), SKILLSTATE_MAX_INPUT_BYTES="1024"
    )
    assert raised.returncode == 1 and "1,024-byte input limit" in raised.stderr


def test_a_refusal_stops_collecting_at_the_cap(tmp_path: Path) -> None:
    url = f"file:{tmp_path / 'state'}"
    _init(url, tmp_path, "r1")
    many = json.dumps({f"k{i}": i for i in range(50_000)})  # under the input limit
    out = _patch_stdin(url, tmp_path, many)
    assert out.returncode == 1
    lines = out.stderr.splitlines()
    assert lines[0] == "skillstate: patch rejected:"
    assert lines[1].startswith("  - k0: unknown key.")
    assert lines[-1] == (
        "  - … checking stopped after the first 100 problems; fix these and send it again"
    )
    assert len(lines) <= 103


def test_the_api_returns_a_bounded_list_of_problems() -> None:
    from skillstate_testing import make_host, sample_skill

    from skillstate.pipeline import Change, create_run, transition

    host = make_host("memory:")
    store, skill = host.open_store(), sample_skill()
    assert create_run(host, store, skill, "r1", {"counter": 0}).accepted
    patch = {f"k{i}": i for i in range(200_000)}
    outcome = transition(host, store, "r1", Change(patch=patch), skill=skill)
    assert not outcome.accepted
    codes = [p.code for p in outcome.problems]
    assert codes[:100] == ["unknown-key"] * 100 and "more" in codes  # then the budget's
    assert len(codes) <= 102
    assert store.get("r1").version == 1
    host.close()


def test_a_long_patch_holding_a_lone_surrogate_is_refused_with_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz harness: measuring a long argv patch must not trip on a lone
    surrogate (Python's argv of bytes that are not UTF-8) before the parser names it."""
    from skillstate.cli.main import main

    monkeypatch.chdir(tmp_path)
    assert main(["--store", "file:ss", "init", "rig-task", "t1"]) == 0
    document = '{"phase": ["\ud800", {"' + "\\u0000" * 70_000 + '": null}]}'
    assert main(["--store", "file:ss", "patch", "t1", "--json", document]) == 1
    err = capsys.readouterr().err
    assert err.endswith(
        "phase[0]: text is not valid Unicode (a lone surrogate, U+D800, at "
        "character 0); send UTF-8 text\n"
    )
