"""Issue 16 through the real ``skillstate`` executable: bad text, secrets, bounded echo, clean exits.

Every test runs the installed console script in a subprocess (real files, real pipes,
a real PostgreSQL port that refuses connections) and asserts there is no traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from support import SKILLSTATE, VENV_BIN, clean_env, run_skillstate

RIG_SEED = '{"spec":{"id":"ABC-18","title":"Add rate limiting","source":"linear"}}'


def tree_hash(root: Path) -> str:
    """One digest of every file (path and bytes) under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def ss(tmp_path: Path, *args: str | bytes, stdin: bytes = b"", **env: str) -> tuple[int, str, str]:
    """``skillstate ARGS`` (arguments may be bytes: argv that is not UTF-8), in ``tmp_path``."""
    done = subprocess.run(
        [SKILLSTATE, *args],
        cwd=tmp_path,
        input=stdin,
        capture_output=True,
        env=clean_env(**env),
        timeout=120,
    )
    out = done.stdout.decode("utf-8", "replace")
    err = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    return done.returncode, out, err


# -- class 1: text that is not valid Unicode ---------------------------------------------


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (("init", "rig-task", "t2", "--json", '{"nextAction":"\\ud800"}'), b""),
        (("patch", "t1", "--json", '{"nextAction":"\\udfff"}'), b""),
        (("patch", "t1"), b'{"decisions":["ok","\\ud83d"]}'),
        (("patch", "t1", "--json", b'{"nextAction":"\xff\xfe"}'), b""),  # argv not UTF-8
        (("patch", "t1", "--json", '{"branch":"b"}', "--step", b"red\xff"), b""),
    ],
)
def test_text_that_is_not_unicode_is_refused_naming_the_path(
    tmp_path: Path, args: tuple[str | bytes, ...], stdin: bytes
) -> None:
    assert ss(tmp_path, "init", "rig-task", "t1")[0] == 0
    before = tree_hash(tmp_path / ".skillstate")
    code, _, err = ss(tmp_path, *args, stdin=stdin)
    assert code == 1, err
    assert "text is not valid Unicode (a lone surrogate" in err and "send UTF-8 text" in err
    assert tree_hash(tmp_path / ".skillstate") == before


@pytest.mark.parametrize(
    "argv", [["show", b"x\xff"], ["init", b"rig-\xfftask", "t"], ["get", "t1", "--field", b"\xff"]]
)
def test_argv_that_is_not_utf8_gets_an_answer(tmp_path: Path, argv: list[str | bytes]) -> None:
    assert ss(tmp_path, "init", "rig-task", "t1")[0] == 0
    code, _, err = ss(tmp_path, *argv)
    assert code in (1, 2) and (err == "" or err.startswith("skillstate: "))


def test_a_run_holding_half_a_surrogate_pair_breaks_only_itself(tmp_path: Path) -> None:
    for run_id in ("a1", "a2", "b1"):
        assert ss(tmp_path, "init", "rig-task", run_id, "--json", RIG_SEED)[0] == 0
    state = tmp_path / ".skillstate" / "state"
    record = state / "a2.json"
    good = record.read_text()
    record.write_text(good.replace('"phase": "spec"', '"phase": "spec", "nextAction": "\\ud83d"'))
    # The journal is intact: the damaged record is rebuilt from it, with a warning.
    code, out, err = ss(tmp_path, "list")
    assert code == 0 and [line.split("\t")[0] for line in out.splitlines()] == ["a1", "a2", "b1"]
    assert "run a2: its record was damaged" in err and "not valid Unicode" in err
    assert "\\ud83d" not in record.read_text()
    # The journal holds one too: the run cannot be read, and the others are served.
    journal = state / "a2.jsonl"
    journal.write_text(journal.read_text().replace('"step":"init"', '"step":"\\udfff"'))
    record.write_text(good.replace('"phase": "spec"', '"phase": "spec", "nextAction": "\\ud83d"'))
    code, out, err = ss(tmp_path, "list")
    assert code == 0
    assert [line.split("\t")[0] for line in out.splitlines()] == ["a1", "b1"]
    assert "skipping a2.json" in err and "not valid Unicode" in err
    code, out, err = ss(tmp_path, "show", "a2")
    assert (code, out) == (3, "") and "text is not valid Unicode" in err
    assert ss(tmp_path, "show", "b1")[0] == 0
    assert ss(tmp_path, "patch", "a1", "--json", '{"branch":"x"}')[0] == 0
    code, out, _ = ss(tmp_path, "verify")
    assert code == 1 and "a2: damaged" in out


# -- class 4: secrets and bounded echo -------------------------------------------------------


def test_config_masks_both_forms_of_a_postgres_password(tmp_path: Path) -> None:
    (tmp_path / "skillstate.toml").write_text(
        'store = "postgresql://alice:hunter22@db:5432/runs?password=sw0rdfish&sslmode=require"\n'
    )
    for args in (("config", "list"), ("config", "get", "store")):
        code, out, err = ss(tmp_path, *args)
        assert code == 0, err
        assert "hunter22" not in out and "sw0rdfish" not in out
        assert "postgresql://alice:***@db:5432/runs?password=***&sslmode=require" in out


@pytest.mark.postgres
def test_an_unreachable_store_is_one_line_without_its_password(tmp_path: Path) -> None:
    url = "postgresql://postgres:hunter22@127.0.0.1:1/test?pool_timeout=1&password=sw0rdfish"
    code, out, err = ss(tmp_path, "--store", url, "list")
    assert (code, out) == (3, "")
    assert "hunter22" not in err and "sw0rdfish" not in err
    assert (
        "skillstate: cannot connect to PostgreSQL at postgresql://postgres:***@127.0.0.1:1" in err
    )
    assert all(line.startswith("skillstate: ") for line in err.splitlines())


HUGE = 50 * 1024 * 1024


@pytest.mark.parametrize(
    "document",
    [
        '{"' + "k" * HUGE + '":1}',  # an unknown key
        '{"nextAction":' + json.dumps(["v" * HUGE]) + "}",  # a type error quoting the value
        '{"tests":{"status":"' + "s" * (HUGE // 2) + '"}}',  # a bad enum quoting the value
        '{"' + "\\ud800" * 1000 + '":1}',  # a key that is not Unicode
    ],
)
def test_a_50_mb_rejection_echoes_a_bounded_message(tmp_path: Path, document: str) -> None:
    assert ss(tmp_path, "init", "rig-task", "t1")[0] == 0
    code, out, err = ss(tmp_path, "patch", "t1", stdin=document.encode())
    assert code == 1
    assert len(err) < 10_000, len(err)  # a 4 KiB quote of the value, not 50 MB
    assert len(out) < 4000


def test_a_huge_run_id_and_skill_name_are_echoed_bounded(tmp_path: Path) -> None:
    long = "x" * 100_000  # near the kernel's limit for one argument
    for args in (("show", long), ("init", "rig-task", long), ("init", long, "t1")):
        code, _, err = ss(tmp_path, *args)
        assert code == 2 and len(err) < 10_000, (args, len(err))  # one 4 KiB excerpt at most


def test_many_problems_are_listed_up_to_a_bound(tmp_path: Path) -> None:
    assert ss(tmp_path, "init", "rig-task", "t1")[0] == 0
    document = json.dumps({f"k{i}": 1 for i in range(5000)})
    code, _, err = ss(tmp_path, "patch", "t1", stdin=document.encode())
    assert code == 1
    lines = err.splitlines()
    assert len(lines) < 120
    assert lines[-1] == (  # the check stopped at the cap (issue 26: it built all 5,000)
        "  - … checking stopped after the first 100 problems; fix these and send it again"
    )


# -- class 9: clean exits ---------------------------------------------------------------------


def _closed_early(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    """Run ``args`` with its stdout a pipe whose reading end is already closed."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            args, cwd=cwd, stdout=write, stderr=subprocess.PIPE, env=clean_env(**env), timeout=120
        )
    finally:
        os.close(write)


def test_a_closed_pipe_is_a_quiet_exit_141(tmp_path: Path) -> None:
    for run_id in ("a", "b"):
        assert ss(tmp_path, "init", "rig-task", run_id)[0] == 0
    for args in (["list"], ["journal", "a"], ["show", "a"], ["config", "list"], ["demo"]):
        done = _closed_early([SKILLSTATE, *args], tmp_path)
        assert (done.returncode, done.stderr) == (141, b""), (args, done.stderr)
    helped = _closed_early([SKILLSTATE, "--help"], tmp_path)  # argparse drops what it cannot write
    assert helped.returncode in (0, 141) and helped.stderr == b""


def test_head_on_a_long_journal_is_quiet(tmp_path: Path) -> None:
    """A real ``| head`` on a journal longer than a pipe buffer (the writer is blocked, then cut)."""
    from skillstate_testing import make_host

    from skillstate import create_run, transition
    from skillstate.pipeline import Change

    host = make_host(f"sqlite:///{tmp_path}/runs.db")
    store = host.open_store()
    skill = host.skill("rig-task")
    assert create_run(host, store, skill, "long", {}).accepted
    record = store.get("long")
    entries = store.journal("long")
    for version in range(2, 1500):  # ~150 kB of journal, in one import transaction
        outcome = transition(
            host, store, "long", Change(patch={"nextAction": f"n{version}"}), skill=skill
        )
        assert outcome.accepted
    del record, entries
    host.close()
    script = (
        f"set -o pipefail; {SKILLSTATE} --store sqlite:///{tmp_path}/runs.db journal long | head -1"
    )
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, env=clean_env(), timeout=120
    )
    assert done.stdout.startswith('{"ts":') and done.stderr == ""
    assert done.returncode == 141


def test_output_the_stream_cannot_encode_is_one_line(tmp_path: Path) -> None:
    assert ss(tmp_path, "init", "rig-task", "t1", "--json", '{"nextAction":"café → ☕"}')[0] == 0
    code, _, err = ss(tmp_path, "show", "t1", PYTHONIOENCODING="ascii")
    assert code == 3
    assert err.startswith("skillstate: cannot write the output: the output stream's encoding")
    assert "PYTHONIOENCODING=utf-8" in err and err.count("\n") == 1


HIDE = (
    "import importlib.abc, sys\n"
    "class Hide(importlib.abc.MetaPathFinder):\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in ('psycopg', 'psycopg_pool'):\n"
    "            raise ModuleNotFoundError(name)\n"
    "sys.meta_path.insert(0, Hide())\n"
    "from skillstate.cli.main import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_a_missing_optional_extra_is_one_line_saying_what_to_install(tmp_path: Path) -> None:
    """psycopg is hidden from a real subprocess by an import hook, as if not installed."""
    done = subprocess.run(
        [str(VENV_BIN / "python"), "-c", HIDE, "--store", "postgresql://u:pw@127.0.0.1/x", "list"],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr.startswith("skillstate: the PostgreSQL store needs the 'postgres' extra")
    assert "pip install 'skillstate[postgres]'" in done.stderr and done.stderr.count("\n") == 1


def test_exit_codes_are_distinct(tmp_path: Path) -> None:
    assert run_skillstate("init", "rig-task", "t1", cwd=tmp_path).returncode == 0
    rejected = run_skillstate("patch", "t1", "--json", '{"phase":"nope"}', cwd=tmp_path)
    usage = run_skillstate("show", "no-such-run", cwd=tmp_path)
    syntax = run_skillstate("patch", cwd=tmp_path)
    (tmp_path / "bad.db").write_text("not a database: " + "x" * 100)
    error = run_skillstate("--store", "sqlite:///bad.db", "list", cwd=tmp_path)
    assert [p.returncode for p in (rejected, usage, syntax, error)] == [1, 2, 2, 3]
    for done in (rejected, usage, syntax, error):
        assert "Traceback" not in done.stderr


# -- class 12: doctor reports what would stop the other commands ------------------------------


def test_doctor_reports_broken_plugins_conflicts_and_a_store_that_will_not_open(
    tmp_path: Path,
) -> None:
    from support import make_distribution

    make_distribution(
        tmp_path, "broken-one", "broken_one", "import no_such_module\n", {"broken": "broken_one"}
    )
    twin = """
        from skillstate.plugin import SkillDefinition, hookimpl

        @hookimpl
        def skillstate_register_skills(register):
            register(SkillDefinition(name="rig-task", description="mine"))
    """
    make_distribution(tmp_path, "twin-skill", "twin_skill", twin, {"twin": "twin_skill"})
    (tmp_path / "bad.db").write_text("not a database: " + "x" * 100)
    done = subprocess.run(
        [SKILLSTATE, "--store", "sqlite:///bad.db", "doctor"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env(PYTHONPATH=str(tmp_path)),
        timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert (
        "error: plugins: plugin 'broken' (broken-one 1.0) failed to load: ModuleNotFoundError"
        in done.stdout
    )
    assert "error: plugin-conflicts: skill 'rig-task' is registered by two plugins" in done.stdout
    assert (
        "error: store: the configured store cannot be opened: cannot open SQLite database"
        in done.stdout
    )
