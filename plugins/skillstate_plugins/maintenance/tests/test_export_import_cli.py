"""``skillstate export`` and ``import`` refusing what they must, through the console script:
one line (or one titled list), the documented exit code, and nothing written."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from skillstate_testing import run_command

from skillstate.plugin import compact


def ss(cwd: Path, *args: str) -> tuple[int, str, str]:
    done = run_command("skillstate", *args, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def _export(cwd: Path) -> dict[str, Any]:
    assert ss(cwd, "init", "rig-task", "t1")[0] == 0
    code, text, _ = ss(cwd, "export", "t1")
    assert code == 0
    return dict(json.loads(text))


def _write(path: Path, doc: dict[str, Any]) -> str:
    """``doc`` with its digest made to match again (an edit a digest does not catch)."""
    body = compact({"run": doc["run"], "journal": doc["journal"]})
    doc["sha256"] = hashlib.sha256(body.encode()).hexdigest()
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def _runs(cwd: Path) -> list[str]:
    return [line.split("\t")[0] for line in ss(cwd, "list")[1].splitlines()]


def test_export_refuses_a_bad_id_and_a_store_that_is_not_there(tmp_path: Path) -> None:
    _export(tmp_path)
    code, out, err = ss(tmp_path, "export", "a/b")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "run id 'a/b' must be alphanumeric" in err
    code, _, err = ss(tmp_path, "--store", f"file:{tmp_path / 'nowhere'}", "export", "t1")
    assert code == 2 and "no store at" in err and not (tmp_path / "nowhere").exists()
    code, _, err = ss(tmp_path, "export", "t9")
    assert code == 2 and "no run 't9'" in err


def test_import_refuses_bad_files_and_ids_and_writes_nothing(tmp_path: Path) -> None:
    doc = _export(tmp_path)
    good = _write(tmp_path / "good.json", json.loads(json.dumps(doc)))
    code, _, err = ss(tmp_path, "import", good, "--as", "x/y")
    assert code == 2 and "run id 'x/y' must be alphanumeric" in err
    for missing in (str(tmp_path / "absent.json"), str(tmp_path)):
        code, _, err = ss(tmp_path, "import", missing, "--as", "t2")
        assert code == 2 and err.startswith("skillstate: cannot read") and err.count("\n") == 1
    doc["run"]["id"] = "bad id"
    code, _, err = ss(tmp_path, "import", _write(tmp_path / "bad-id.json", doc))
    assert code == 5 and "holds a run with an invalid id; nothing written" in err
    assert _runs(tmp_path) == ["t1"]


def test_a_refusal_lists_a_hundred_reasons_and_says_where_checking_stopped(
    tmp_path: Path,
) -> None:
    doc = _export(tmp_path)
    extra = {f"k{n:03d}": n for n in range(300)}
    doc["run"]["state"].update(extra)
    doc["journal"][0]["base"].update(extra)
    code, _, err = ss(tmp_path, "import", _write(tmp_path / "many.json", doc), "--as", "m1")
    lines = err.splitlines()
    assert code == 5 and lines[0].endswith("holds a run its skill refuses (nothing written):")
    reasons = [line for line in lines[1:] if line.startswith("  - ")]
    assert len(reasons) == 101 and "unknown key" in reasons[0]
    assert "checking stopped" in reasons[-1] and "… and" not in err
    assert _runs(tmp_path) == ["t1"]


def test_import_reads_no_more_than_an_export_holds(tmp_path: Path) -> None:
    """An endless input (a new user's ``import - < /dev/zero``) is refused after 256 MiB,
    in one line: it was read whole, a MemoryError traceback."""
    _export(tmp_path)
    code, out, err = ss(tmp_path, "import", "/dev/zero", "--as", "t2")
    assert (code, out) == (5, "")
    assert (
        err == "skillstate: /dev/zero is over 256 MiB, more than an export holds; nothing written\n"
    )
    assert _runs(tmp_path) == ["t1"]


def test_verify_escapes_a_file_name_it_quotes(tmp_path: Path) -> None:
    """A stray file in the store whose name holds ESC is reported escaped, as ``list``
    shows it: ``verify`` printed it raw (a new user's walk)."""
    _export(tmp_path)
    state = tmp_path / ".skillstate" / "state"
    (state / "e\x1b[2Jvil.json").write_bytes((state / "t1.json").read_bytes())
    code, out, _ = ss(tmp_path, "verify")
    assert code != 0 and "\x1b" not in out
    assert "e\\x1b[2Jvil: cannot be read" in out


def test_verify_reports_a_directory_in_a_records_place_and_checks_the_rest(
    tmp_path: Path,
) -> None:
    """``a3.json`` as a directory was ``cannot read …: Is a directory``, exit 3, and no
    other run was checked (a new user's walk); it is one damaged run now."""
    _export(tmp_path)
    (tmp_path / ".skillstate" / "state" / "a3.json").mkdir()
    code, out, _ = ss(tmp_path, "verify")
    assert code == 1
    assert "a3: damaged" in out and "Is a directory" in out
    assert out.splitlines()[-1] == "2 runs checked, 0 differ from their journal, 1 damaged"
