"""``skillstate log/diff/get --at/show --at/fork/rewind/export/import/gc`` and
``patch --expected-version``: real processes on the file, SQLite and PostgreSQL stores
(the memory store lives in one process: it runs the same commands in-process)."""

from __future__ import annotations

import io
import json
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import jsonpatch
import pytest
from skillstate_testing import temporary_store_url
from support import SKILLSTATE, clean_env, run_skillstate

SEED = '{"branch": "feature/x"}'
PATCHES = [
    ("red", {"phase": "red", "tests": {"command": "pytest", "fail": 2}}),
    ("green", {"phase": "green", "tests": {"fail": 0, "pass": 7}}),
    ("bad", {"phase": "refactor", "tests": {"fail": 3}}),
]


@pytest.fixture(params=["file", "sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path):
    with temporary_store_url(request.param, tmp_path) as url:
        yield url


def sk(url: str, *args: str, cwd: Path):
    return run_skillstate("--store", url, *args, cwd=cwd)


def make_run(url: str, cwd: Path, run_id: str = "t1") -> None:
    assert sk(url, "init", "rig-task", run_id, "--json", SEED, cwd=cwd).returncode == 0
    for label, patch in PATCHES:
        out = sk(url, "patch", run_id, "--step", label, "--json", json.dumps(patch), cwd=cwd)
        assert out.returncode == 0, out.stderr


def state_at(url: str, cwd: Path, run_id: str, version: int) -> dict:
    out = sk(url, "get", run_id, "--at", str(version), cwd=cwd)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_log_diff_and_reading_old_versions(store: str, tmp_path: Path) -> None:
    make_run(store, tmp_path)
    log = sk(store, "log", "t1", cwd=tmp_path)
    lines = [line.split("\t") for line in log.stdout.splitlines()]
    assert [row[0] for row in lines] == ["1", "2", "3", "4"]
    assert [row[2] for row in lines] == ["init", "red", "green", "bad"]
    assert lines[1][3] == "phase,tests" and lines[3][3] == "phase,tests"
    rows = json.loads(sk(store, "log", "t1", "--json", "--limit", "2", cwd=tmp_path).stdout)
    assert [r["version"] for r in rows] == [3, 4] and rows[0]["keys"] == ["phase", "tests"]
    since = json.loads(
        sk(store, "log", "t1", "--since", "1", "--limit", "1", "--json", cwd=tmp_path).stdout
    )
    assert [r["version"] for r in since] == [2]

    assert state_at(store, tmp_path, "t1", 3)["tests"] == {
        "command": "pytest",
        "fail": 0,
        "pass": 7,
    }
    field = sk(store, "get", "t1", "--at", "2", "--field", "phase", "--with-version", cwd=tmp_path)
    assert field.stdout.splitlines() == ["2", "red"]
    show = sk(store, "show", "t1", "--at", "3", cwd=tmp_path)
    assert "phase: green" in show.stdout

    readable = sk(store, "diff", "t1", "3", "4", cwd=tmp_path).stdout.splitlines()
    assert '~ phase: "green" → "refactor"' in readable and "~ tests.fail: 0 → 3" in readable
    patch = json.loads(sk(store, "diff", "t1", "1", "--json", cwd=tmp_path).stdout)
    assert jsonpatch.apply_patch(state_at(store, tmp_path, "t1", 1), patch) == state_at(
        store, tmp_path, "t1", 4
    )


def test_fork_rewind_export_import_round_trip_through_verify(store: str, tmp_path: Path) -> None:
    make_run(store, tmp_path)
    fork = sk(store, "fork", "t1", "t1-alt", "--at", "3", cwd=tmp_path)
    assert fork.returncode == 0, fork.stderr
    forked = json.loads(sk(store, "get", "t1-alt", cwd=tmp_path).stdout)
    assert forked["runId"] == "t1-alt" and forked["phase"] == "green"
    first = json.loads(sk(store, "log", "t1-alt", "--json", cwd=tmp_path).stdout)[0]
    assert first["origin"] == {"op": "fork", "run": "t1", "version": 3}

    rewind = sk(store, "rewind", "t1", "--to", "3", cwd=tmp_path)
    assert rewind.returncode == 0, rewind.stderr
    now = json.loads(sk(store, "get", "t1", cwd=tmp_path).stdout)
    then = state_at(store, tmp_path, "t1", 3)
    assert {k: v for k, v in now.items() if k != "updatedAt"} == {
        k: v for k, v in then.items() if k != "updatedAt"
    }
    assert len(sk(store, "log", "t1", cwd=tmp_path).stdout.splitlines()) == 5  # history kept

    exported = tmp_path / "t1.export.json"
    assert sk(store, "export", "t1", "-o", str(exported), cwd=tmp_path).returncode == 0
    assert sk(store, "import", str(exported), "--as", "t1-copy", cwd=tmp_path).returncode == 0
    copy = json.loads(sk(store, "get", "t1-copy", cwd=tmp_path).stdout)
    assert copy["runId"] == "t1-copy" and copy["phase"] == now["phase"]
    verify = sk(store, "verify", "--json", cwd=tmp_path)
    assert verify.returncode == 0, verify.stdout
    assert {r["id"] for r in json.loads(verify.stdout)} == {"t1", "t1-alt", "t1-copy"}
    # into another store, under its own id
    with temporary_store_url("sqlite", tmp_path / "other") as other:
        assert sk(other, "import", str(exported), cwd=tmp_path).returncode == 0
        assert sk(other, "verify", "t1", cwd=tmp_path).returncode == 0
        assert (
            sk(other, "log", "t1", cwd=tmp_path).stdout
            == sk(store, "log", "t1", cwd=tmp_path).stdout
        )


def test_rewind_out_of_a_terminal_phase_needs_force(store: str, tmp_path: Path) -> None:
    make_run(store, tmp_path)
    assert (
        sk(store, "patch", "t1", "--json", '{"phase": "abandoned"}', cwd=tmp_path).returncode == 0
    )
    refused = sk(store, "rewind", "t1", "--to", "3", cwd=tmp_path)
    assert refused.returncode == 1 and "terminal phase 'abandoned'" in refused.stderr
    assert json.loads(sk(store, "get", "t1", cwd=tmp_path).stdout)["phase"] == "abandoned"
    assert sk(store, "rewind", "t1", "--to", "3", "--force", cwd=tmp_path).returncode == 0


BAD = [
    (("log", "t1", "--since", "9"), 2, "--since 9 is past the run's last version"),
    (("log", "t1", "--limit", "0"), 2, "--limit must be a whole number >= 1"),
    (("get", "t1", "--at", "5"), 2, "has no version 5: its versions are 1 to 4"),
    (("get", "t1", "--at", "x"), 2, "--at must be a version"),
    (("show", "t1", "--at", "0"), 2, "--at must be a version"),
    (("diff", "t1", "1", "7"), 2, "has no version 7"),
    (("fork", "t1", "t1", "--at", "2"), 2, "run 't1' already exists"),
    (("fork", "t1", "new", "--at", "12"), 2, "has no version 12"),
    (("fork", "nope", "new"), 2, "no run 'nope'"),
    (("rewind", "t1", "--to", "99"), 2, "has no version 99"),
    (
        ("patch", "t1", "--expected-version", "2", "--json", "{}"),
        4,
        "is at version 4, not the expected version 2",
    ),
    (
        ("patch", "t1", "--expected-version", "-1", "--json", "{}"),
        2,
        "--expected-version must be a version",
    ),
    (("gc",), 2, "gc needs --closed-before DATE or --older-than AGE"),
    (("gc", "--older-than", "soon"), 2, "--older-than must be a number with a unit"),
]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file store with run t1 at version 4, built once and copied by each test."""
    root = tmp_path_factory.mktemp("made")
    make_run(f"file:{root / 'state'}", root)
    return root / "state"


@pytest.mark.parametrize(("args", "code", "message"), BAD, ids=[" ".join(b[0]) for b in BAD])
def test_bad_input_is_one_line_a_distinct_code_and_nothing_written(
    tmp_path: Path, made: Path, args: tuple[str, ...], code: int, message: str
) -> None:
    import shutil

    shutil.copytree(made, tmp_path / "state")
    url = f"file:{tmp_path / 'state'}"
    before = sorted((p.name, p.read_bytes()) for p in (tmp_path / "state").iterdir())
    out = sk(url, *args, cwd=tmp_path)
    assert out.returncode == code, (out.stdout, out.stderr)
    assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "Traceback" not in out.stderr
    after = sorted((p.name, p.read_bytes()) for p in (tmp_path / "state").iterdir())
    assert after == before


def test_an_import_of_a_tampered_or_truncated_file_writes_nothing(
    tmp_path: Path, made: Path
) -> None:
    import shutil

    shutil.copytree(made, tmp_path / "state")
    url = f"file:{tmp_path / 'state'}"
    good = sk(url, "export", "t1", cwd=tmp_path).stdout
    cases = {
        "tampered": good.replace('"fail":3', '"fail":4'),
        "truncated": good[: len(good) // 2],
        "empty": "",
        "other": '{"format": "something-else"}',
        "future": good.replace('"format_version":1', '"format_version":9'),
    }
    for name, text in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        out = sk(url, "import", str(path), "--as", f"x-{name}", cwd=tmp_path)
        assert out.returncode == 5, (name, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and "nothing written" in out.stderr
    assert sorted(p.name for p in (tmp_path / "state").iterdir() if p.suffix == ".json") == [
        "t1.json"
    ]
    exists = subprocess.run(  # from stdin, onto an id that is taken
        [SKILLSTATE, "--store", url, "import", "-"],
        input=good,
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
    )
    assert exists.returncode == 2 and "already exists" in exists.stderr


def test_gc_deletes_finished_and_old_runs_only(store: str, tmp_path: Path) -> None:
    make_run(store, tmp_path, "keep")
    make_run(store, tmp_path, "old")
    dry = sk(store, "gc", "--closed-before", "2999-01-01", "--dry-run", cwd=tmp_path)
    assert dry.returncode == 0 and dry.stdout.strip() == "would delete 0 runs"  # none finished
    old = sk(store, "gc", "--older-than", "0s", "--dry-run", "--json", cwd=tmp_path)
    assert {r["id"] for r in json.loads(old.stdout)["runs"]} == {"keep", "old"}
    assert sk(store, "gc", "--older-than", "30d", cwd=tmp_path).stdout.strip() == "deleted 0 runs"
    assert sk(store, "list", cwd=tmp_path).stdout.count("\n") == 2


def test_every_command_on_the_memory_store_in_one_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from skillstate.cli.main import main

    url = "memory:cli-history-test"

    def call(*args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["--store", url, *args])
        return code, out.getvalue(), err.getvalue()

    assert call("init", "rig-task", "m1", "--json", SEED)[0] == 0
    for label, patch in PATCHES:
        assert call("patch", "m1", "--step", label, "--json", json.dumps(patch))[0] == 0
    assert len(call("log", "m1")[1].splitlines()) == 4
    assert call("diff", "m1", "2", "3")[1]
    assert json.loads(call("get", "m1", "--at", "2")[1])["phase"] == "red"
    assert call("fork", "m1", "m2", "--at", "2")[0] == 0
    assert call("rewind", "m1", "--to", "2")[0] == 0
    code, text, _ = call("export", "m1")
    assert code == 0
    assert call("rm", "m1")[0] == 0
    import sys

    sys.stdin = io.StringIO(text)
    try:
        assert call("import", "-")[0] == 0
    finally:
        sys.stdin = sys.__stdin__
    assert (
        call("verify")[0] == 0
        and call("patch", "m1", "--expected-version", "1", "--json", "{}")[0] == 4
    )


SHELL = r"""
set -u
for i in $(seq {per}); do
  while :; do
    {{ read -r v; read -r n; }} < <("$SKILLSTATE" get c --field tests.pass --with-version)
    "$SKILLSTATE" patch c --expected-version "$v" --json "{{\"tests\": {{\"pass\": $((n + 1))}}}}" >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq 0 ] && break
    [ "$rc" -eq 4 ] || exit "$rc"
  done
done
"""


@pytest.mark.slow
def test_four_shells_compare_and_swap_lose_no_increment(tmp_path: Path) -> None:
    """Four shells doing get-then-patch on one counter: with --expected-version none of the
    40 increments is lost (without it most are lost: 30 of 100 kept here, docs/benchmarks.md;
    the issue's 100 increments are the benchmark's, 40 keep the suite's time down)."""
    env = clean_env(SKILLSTATE=SKILLSTATE, SKILLSTATE_STORE=f"file:{tmp_path / 'state'}")
    assert (
        run_skillstate(
            "init",
            "rig-task",
            "c",
            "--json",
            '{"tests": {"pass": 0}}',
            cwd=tmp_path,
            SKILLSTATE_STORE=env["SKILLSTATE_STORE"],
        ).returncode
        == 0
    )
    shells = [
        subprocess.Popen(["bash", "-c", SHELL.format(per=10)], cwd=tmp_path, env=env)
        for _ in range(4)
    ]
    assert [shell.wait(timeout=600) for shell in shells] == [0, 0, 0, 0]
    out = run_skillstate(
        "get", "c", "--field", "tests.pass", cwd=tmp_path, SKILLSTATE_STORE=env["SKILLSTATE_STORE"]
    )
    assert out.stdout.strip() == "40"
    log = run_skillstate(
        "log", "c", "--json", cwd=tmp_path, SKILLSTATE_STORE=env["SKILLSTATE_STORE"]
    )
    assert len(json.loads(log.stdout)) == 41


def test_gc_deletes_closed_sessions_and_keeps_the_rest(tmp_path: Path) -> None:
    from skillstate_testing import make_host

    from skillstate.runtime import Runtime

    url = f"file:{tmp_path / 'state'}"
    host = make_host(url)
    runtime = Runtime(host=host)
    for sid in ("done-1", "live-1"):
        runtime.initialize_skill(sid, "spec", environment="mock")
    runtime.close_session("done-1")
    host.close()
    make_run(url, tmp_path, "rig-1")
    listed = sk(url, "gc", "--closed-before", "2999-01-01", "--dry-run", cwd=tmp_path)
    assert listed.stdout.splitlines()[0].startswith("would delete done-1\tskill-state\tclosed\t")
    assert sk(url, "list", cwd=tmp_path).stdout.count("\n") == 3  # a dry run deletes nothing
    assert sk(url, "gc", "--closed-before", "2000-01-01", cwd=tmp_path).stdout == "deleted 0 runs\n"
    done = sk(url, "gc", "--closed-before", "2999-01-01", cwd=tmp_path)
    assert done.stdout.splitlines()[-1] == "deleted 1 run"
    assert [line.split("\t")[0] for line in sk(url, "list", cwd=tmp_path).stdout.splitlines()] == [
        "live-1",
        "rig-1",
    ]
