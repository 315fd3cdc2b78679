"""Issue 16 for the file store: a platform without flock, a full disk at creation.

- Without ``fcntl`` (Windows) the store refuses to open, in one line saying what to use
  instead (``fcntl`` is hidden from a real subprocess by an import hook, as if absent).
- A creation that fails (a real full tmpfs) leaves nothing behind: before, a stray
  ``<id>.lock`` stayed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from skillstate_testing import SmallFilesystem, clean_env, run_command

HIDE_FCNTL = (
    "import importlib.abc, sys\n"
    "class Hide(importlib.abc.MetaPathFinder):\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'fcntl':\n"
    "            raise ModuleNotFoundError(name)\n"
    "sys.modules.pop('fcntl', None)\n"
    "sys.meta_path.insert(0, Hide())\n"
    "from skillstate.cli.main import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_without_flock_the_file_store_refuses_in_one_line(tmp_path: Path) -> None:
    for args in (["list"], ["init", "rig-task", "t1"]):
        done = subprocess.run(
            [sys.executable, "-c", HIDE_FCNTL, *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=clean_env(),
            timeout=60,
        )
        assert (done.returncode, done.stdout) == (3, ""), done.stderr
        assert done.stderr == (
            "skillstate: the file store needs POSIX file locks (fcntl.flock), which this "
            f"platform ({sys.platform}) does not have; use another store, e.g. "
            "sqlite:///path/to/runs.db\n"
        )
    assert not (tmp_path / ".skillstate").exists()


def test_a_creation_that_fails_on_a_full_disk_leaves_nothing(small_fs: SmallFilesystem) -> None:
    store = small_fs.path / "state"
    assert (
        run_command("skillstate", "--store", f"file:{store}", "init", "rig-task", "t0").returncode
        == 0
    )
    small_fs.fill()
    done = run_command("skillstate", "--store", f"file:{store}", "init", "rig-task", "t1")
    assert done.returncode == 3 and "No space left on device" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(os.listdir(store)) == ["t0.json", "t0.jsonl", "t0.lock"]
