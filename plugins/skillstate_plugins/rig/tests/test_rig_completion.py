"""``rig-state completion SHELL``: the script, loaded into a real bash (and zsh's syntax
check), completes rig-state's commands, flags and skills from the same table its parser
reads."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from skillstate_testing import require_service, run_command


def complete(path: Path, line: str) -> list[str]:
    program = (
        'source "$1"; read -ra W <<< "$2"; [[ "$2" == *" " ]] && W+=("");'
        ' COMP_WORDS=("${W[@]}"); COMP_CWORD=$((${#W[@]}-1)); COMP_LINE="$2";'
        ' COMP_POINT=${#COMP_LINE}; _shtab_rig_state; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(
        ["bash", "--norc", "-c", program, "bash", str(path), line],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout.split()


def test_bash_completes_rig_states_commands_flags_and_skills(tmp_path: Path) -> None:
    done = run_command("rig-state", "completion", "bash", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    path = tmp_path / "rig-state.bash"
    path.write_text(done.stdout)
    assert complete(path, "rig-state pa") == ["patch"]
    assert complete(path, "rig-state init ") == ["rig-task", "rig-epic", "rig-review"]
    assert complete(path, "rig-state patch abc-1 --st") == ["--step"]
    assert set(complete(path, "rig-state patch abc-1 --")) == {
        "--help", "--root", "--json", "--step", "--force",
    }  # fmt: skip
    assert set(complete(path, "rig-state doctor --")) >= {"--fix", "--stale-days"}
    assert complete(path, "rig-state --root /tmp sh") == ["show"]
    assert complete(path, "rig-state completion f") == ["fish"]


def test_zsh_reads_the_script(tmp_path: Path) -> None:
    require_service(shutil.which("zsh") is not None, "zsh is not installed")
    done = run_command("rig-state", "completion", "zsh", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("#compdef rig-state")
    path = tmp_path / "_rig-state"
    path.write_text(done.stdout)
    subprocess.run(["zsh", "-n", str(path)], check=True, timeout=30)


@pytest.mark.parametrize("args", [(), ("ksh",), ("bash", "zsh")])
def test_a_wrong_completion_line_is_one_line_and_exit_2(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    done = run_command("rig-state", "completion", *args, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "rig-state: usage: rig-state completion <bash|zsh|fish|tcsh>\n"
