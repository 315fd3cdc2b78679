"""Review fixes of issue 17 on the CLI: an import checks the type of every field of the
export file, ``export -o`` leaves nothing behind when it cannot write, and the history
modules are not imported by ``get``/``patch``."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from support import clean_env

from skillstate.jsondoc import compact

SEED = '{"branch": "feature/x"}'


def _call(url: str, *args: str) -> tuple[int, str, str]:
    from skillstate.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--store", url, *args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"file:{tmp_path / 'state'}"
    assert _call(url, "init", "rig-task", "t1", "--json", SEED)[0] == 0
    assert _call(url, "patch", "t1", "--json", '{"phase": "red"}')[0] == 0
    return url


def _resealed(doc: dict) -> str:
    """An export whose content was changed and its digest made to match again."""
    text = compact({"run": doc["run"], "journal": doc["journal"]})
    doc["sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return json.dumps(doc)


WRONG = [
    (("run", "version"), "2", "run.version must be a whole number"),
    (("run", "step"), True, "run.step must be a whole number"),
    (("run", "status"), 3, "run.status must be a string"),
    (("run", "created"), None, "run.created must be a string"),
    (("run", "state"), [], "run.state must be an object"),
    (("run", "spec"), {"x": 1}, "run.spec must be a string or null"),
    (("run", "meta"), "x", "run.meta must be an object"),
    (("run", "environment"), 1, "run.environment must be an object or null"),
    (("journal", 0, "ts"), 5, "journal[0].ts must be a string"),
    (("journal", 0, "step"), None, "journal[0].step must be a string"),
    (("journal", 1, "patch"), "x", "journal[1].patch must be an object"),
    (("journal", 1, "version"), -1, "journal[1].version must be a whole number"),
    (("journal", 0, "base"), [1], "journal[0].base must be an object or null"),
    (("journal", 1, "turn"), "1", "journal[1].turn must be a whole number or null"),
    (("journal", 1, "origin"), "fork", "journal[1].origin must be an object or null"),
    (("journal", 1, "extra"), 1, 'journal[1] has an unknown field "extra"'),
]


@pytest.mark.parametrize(("path", "value", "message"), WRONG, ids=[m for *_, m in WRONG])
def test_an_import_checks_the_type_of_every_field(
    url: str, tmp_path: Path, path: tuple, value: object, message: str
) -> None:
    code, text, _ = _call(url, "export", "t1")
    assert code == 0
    doc = json.loads(text)
    where = doc
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    bad = tmp_path / "bad.json"
    bad.write_text(_resealed(doc))
    before = sorted(os.listdir(tmp_path / "state"))
    code, out, err = _call(url, "import", str(bad), "--as", "t2")
    assert code == 5, err
    assert len(err.strip().splitlines()) == 1 and message in err and "nothing written" in err
    assert "Traceback" not in err and out == ""
    assert sorted(os.listdir(tmp_path / "state")) == before


def test_an_untouched_resealed_export_still_imports(url: str, tmp_path: Path) -> None:
    doc = json.loads(_call(url, "export", "t1")[1])
    good = tmp_path / "good.json"
    good.write_text(_resealed(doc))
    assert _call(url, "import", str(good), "--as", "t2")[0] == 0
    assert _call(url, "verify", "t2")[0] == 0


def test_export_to_a_directory_or_an_unwritable_place_leaves_nothing(
    url: str, tmp_path: Path
) -> None:
    target = tmp_path / "out"
    target.mkdir()
    code, _, err = _call(url, "export", "t1", "-o", str(target))
    assert code != 0 and len(err.strip().splitlines()) == 1 and "directory" in err
    assert list(target.iterdir()) == [] and not list(tmp_path.glob(".skillstate-export-*"))
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o500)
    try:
        code, _, err = _call(url, "export", "t1", "-o", str(locked / "t1.json"))
        if os.geteuid() != 0:  # root writes anywhere: only a directory target fails then
            assert code == 3 and len(err.strip().splitlines()) == 1
        assert not list(locked.glob(".skillstate-export-*"))
    finally:
        os.chmod(locked, 0o700)
    missing = tmp_path / "no" / "such" / "dir" / "t1.json"
    code, _, err = _call(url, "export", "t1", "-o", str(missing))
    assert code == 3 and len(err.strip().splitlines()) == 1 and "nothing written" in err


def test_export_replacing_a_directory_entry_fails_cleanly(url: str, tmp_path: Path) -> None:
    """os.replace onto a non-empty directory fails after the temporary file is written:
    the temporary file is removed again."""
    target = tmp_path / "full"
    (target / "inner").mkdir(parents=True)
    code, _, err = _call(url, "export", "t1", "-o", str(target))
    assert code != 0 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".skillstate")) == []


@pytest.mark.parametrize("command", [("get", "t1"), ("patch", "t1", "--json", "{}")])
def test_get_and_patch_do_not_import_the_history_modules(
    url: str, tmp_path: Path, command: tuple[str, ...]
) -> None:
    code = (
        "import sys, runpy\n"
        "sys.argv = ['skillstate', '--store', sys.argv[1], *sys.argv[2:]]\n"
        "try:\n"
        "    from skillstate.cli.main import main\n"
        "    code = main(sys.argv[1:])\n"
        "finally:\n"
        "    loaded = sorted(m for m in sys.modules if m in WATCH)\n"
        "    print('LOADED', loaded, file=sys.stderr)\n"
    )
    watch = [
        "mmap",
        "skillstate.history",
        "skillstate.retention",
        "skillstate.exports",
        "skillstate_plugins.file_store.history",
        "jsonpatch",
    ]
    out = subprocess.run(
        [sys.executable, "-c", f"WATCH = {watch!r}\n" + code, url, *command],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
    )
    assert "LOADED []" in out.stderr, out.stderr
