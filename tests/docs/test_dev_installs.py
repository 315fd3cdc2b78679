"""What `./dev` installs: the demo the project alone, test and lint the test extras.

The real `dev` script runs in a scratch copy of the checkout's pyproject files, with a
PYTHON whose `-m venv` makes a venv of stubs that record every command they are given,
so the test sees each pip install `dev` decides on without installing anything.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from support import ROOT, clean_env

PYPROJECTS = (
    "pyproject.toml",
    "plugins/skillstate-repo/pyproject.toml",
    "plugins/skillstate-redis/pyproject.toml",
)


def _scratch(tmp_path: Path) -> tuple[Path, Path]:
    tree = tmp_path / "tree"
    for name in ("dev", *PYPROJECTS):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tree / name)
    log = tmp_path / "commands.log"
    stub = tmp_path / "python3"
    # `python3 -m venv DIR` makes DIR/bin/python and DIR/bin/skillstate, each logging argv.
    stub.write_text(
        "#!/bin/sh\n"
        'mkdir -p "$3/bin"\n'
        "for tool in python skillstate; do\n"
        f'  printf \'#!/bin/sh\\necho "%s $*" >> {log}\\n\' "$tool" > "$3/bin/$tool"\n'
        '  chmod +x "$3/bin/$tool"\n'
        "done\n",
        encoding="utf-8",
    )
    stub.chmod(0o755)
    return tree, log


def _dev(tree: Path, log: Path, command: str) -> list[str]:
    """Run `dev COMMAND`; return the pip installs it ran."""
    before = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    env = clean_env()
    env["PYTHON"] = str(log.parent / "python3")
    out = subprocess.run(
        [str(tree / "dev"), command], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    lines = log.read_text(encoding="utf-8").splitlines()[len(before) :]
    return [line for line in lines if " -m pip install " in line and "--upgrade pip" not in line]


def test_demo_installs_the_project_alone_and_test_then_adds_the_test_extras(
    tmp_path: Path,
) -> None:
    tree, log = _scratch(tmp_path)
    demo = _dev(tree, log, "demo")
    assert len(demo) == 1 and demo[0].endswith(" -e ."), demo
    assert "demo" in log.read_text(encoding="utf-8").splitlines()[-1]
    assert _dev(tree, log, "demo") == []

    test = _dev(tree, log, "test")
    assert len(test) == 1 and "-e .[test]" in test[0], test
    assert "plugins/skillstate-repo" in test[0]
    assert _dev(tree, log, "test") == []
    assert _dev(tree, log, "demo") == []


def test_a_changed_pyproject_reinstalls_what_each_command_needs(tmp_path: Path) -> None:
    tree, log = _scratch(tmp_path)
    assert len(_dev(tree, log, "test")) == 1
    venv = tree / ".venv"
    for name in PYPROJECTS:
        now = os.stat(venv / ".skillstate-installed-test").st_mtime
        for stamp in (".skillstate-installed", ".skillstate-installed-test"):
            os.utime(venv / stamp, (now - 100, now - 100))
        for other in PYPROJECTS:
            old = now - 50 if other == name else now - 200
            os.utime(tree / other, (old, old))
        demo = _dev(tree, log, "demo")
        assert len(demo) == 1 and demo[0].endswith(" -e ."), (name, demo)
        test = _dev(tree, log, "test")
        assert len(test) == 1 and "-e .[test]" in test[0], (name, test)
        assert _dev(tree, log, "test") == []


def test_setup_installs_the_test_extras(tmp_path: Path) -> None:
    tree, log = _scratch(tmp_path)
    assert len(_dev(tree, log, "demo")) == 1
    setup = _dev(tree, log, "setup")
    assert len(setup) == 1 and "-e .[test]" in setup[0], setup
