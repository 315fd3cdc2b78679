"""``skillstate completion SHELL``: the script it prints, loaded into the real shell.

Each test generates the script with the real console script and asks the real shell
what it completes for a partial command line: bash through its programmable-completion
function, zsh through its line editor in a pseudo-terminal (zpty), fish through
``complete -C``. zsh runs under CI (.ci/run installs it); fish only where installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from skillstate_testing import require_service, run_command


def script(shell: str, tmp_path: Path, *args: str) -> Path:
    done = run_command("skillstate", *args, "completion", shell, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    path = tmp_path / f"skillstate.{shell}"
    path.write_text(done.stdout, encoding="utf-8")
    return path


def bash_complete(path: Path, line: str) -> list[str]:
    """What bash offers for ``line`` (the word being completed is its last one)."""
    program = (
        'source "$1"; read -ra W <<< "$2"; [[ "$2" == *" " ]] && W+=("");'
        ' COMP_WORDS=("${W[@]}"); COMP_CWORD=$((${#W[@]}-1)); COMP_LINE="$2";'
        ' COMP_POINT=${#COMP_LINE}; _shtab_skillstate; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(
        ["bash", "--norc", "-c", program, "bash", str(path), line],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout.split()


def test_bash_completes_core_and_plugin_commands_and_their_options(tmp_path: Path) -> None:
    path = script("bash", tmp_path)
    assert bash_complete(path, "skillstate pa") == ["patch"]
    assert bash_complete(path, "skillstate u") == ["ui"]  # plugin inspector
    assert "mcp" in bash_complete(path, "skillstate m")  # plugin mcp
    assert bash_complete(path, "skillstate patch --ex") == ["--expected-version"]
    assert bash_complete(path, "skillstate config s") == ["set"]
    assert "--user" in bash_complete(path, "skillstate config set --")
    assert bash_complete(path, "skillstate --st") == ["--store"]
    assert bash_complete(path, "skillstate completion z") == ["zsh"]
    assert "--token" in bash_complete(path, "skillstate mcp --to")  # a plugin's option
    assert bash_complete(path, "skillstate nothing-like-it") == []


def test_the_script_has_exactly_the_loaded_plugins_commands(tmp_path: Path) -> None:
    path = script("bash", tmp_path, "--disable-plugin", "inspector")
    assert bash_complete(path, "skillstate u") == []
    assert bash_complete(path, "skillstate pa") == ["patch"]


def zsh_complete(path: Path, line: str, tmp_path: Path) -> list[str]:
    """What zsh's completion system adds for ``line`` + Tab, typed into an interactive
    zsh in a pseudo-terminal, the script installed as ``_skillstate`` in ``fpath``."""
    fpath = tmp_path / "zfunc"
    fpath.mkdir(exist_ok=True)
    shutil.copy(path, fpath / "_skillstate")
    out, marker = tmp_path / "zsh-offered", tmp_path / "zsh-done"
    for stale in (out, marker):
        stale.unlink(missing_ok=True)
    driver = tmp_path / "drive.zsh"
    driver.write_text(
        "zmodload zsh/zpty\n"
        "zpty z 'zsh -f -i'\n"
        f'zpty -w z "fpath=({fpath} \\$fpath); autoload -Uz compinit; compinit -u -D"\n'
        # record every candidate the completion functions add, then add them as asked;
        # comppostfuncs runs once the completion is over (typed-ahead keys would cancel it)
        'zpty -w z "compadd() { builtin compadd -O __got \\"\\$@\\";'
        f' print -rl -- \\$__got >> {out}; builtin compadd \\"\\$@\\" }};'
        f' _done() {{ print done > {marker} }}; comppostfuncs=(_done)"\n'
        f"zpty -wn z $'{line}\\t'\n"
        f"for i in {{1..400}}; do [[ -e {marker} ]] && break; sleep 0.05; done\n"
        "zpty -d z\n",
        encoding="utf-8",
    )
    subprocess.run(["zsh", "-f", str(driver)], timeout=60, check=True, capture_output=True)
    assert marker.exists(), "zsh never finished the completion"
    return sorted(set(out.read_text().split())) if out.exists() else []


def test_zsh_completes_core_and_plugin_commands(tmp_path: Path) -> None:
    require_service(shutil.which("zsh") is not None, "zsh is not installed")
    path = script("zsh", tmp_path)
    assert path.read_text().startswith("#compdef skillstate")
    assert zsh_complete(path, "skillstate pa", tmp_path) == ["patch"]
    assert zsh_complete(path, "skillstate u", tmp_path) == ["ui"]
    assert "mcp" in zsh_complete(path, "skillstate m", tmp_path)
    assert "--expected-version" in zsh_complete(path, "skillstate patch --ex", tmp_path)


def test_fish_completes_core_and_plugin_commands(tmp_path: Path) -> None:
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed (not needed by CI)")
    path = script("fish", tmp_path)

    def offered(line: str) -> list[str]:
        done = subprocess.run(
            ["fish", "--no-config", "-c", f"source {path}; complete -C '{line}'"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
            env={**os.environ, "HOME": str(tmp_path)},
        )
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert offered("skillstate pa") == ["patch"]
    assert offered("skillstate u") == ["ui"]
    assert "--expected-version" in offered("skillstate patch --ex")


def test_tcsh_script_is_printed(tmp_path: Path) -> None:
    text = script("tcsh", tmp_path).read_text()
    assert text.count("complete skillstate") == 1 and "'p/1/(" in text and " patch " in text


def test_an_unknown_shell_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = run_command("skillstate", "completion", "fsh", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "skillstate: unknown shell 'fsh': one of bash, zsh, fish, tcsh\n"


def test_without_shtab_it_is_one_line_and_exit_3(tmp_path: Path) -> None:
    """A broken install without shtab: a module of that name that cannot be imported."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "shtab.py").write_text("raise ImportError('shtab removed')\n")
    done = subprocess.run(
        [str(Path(sys.executable).parent / "skillstate"), "completion", "bash"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(blocker)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 3
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "skillstate: shell completion needs shtab, a dependency of skillstate, which is not "
        "installed: pip install shtab"
    ]


def test_the_documented_install_lines_work(tmp_path: Path) -> None:
    """docs/configuration.md's install block, run by bash with HOME in a temp dir; the
    bash file it writes then completes in bash."""
    page = Path(__file__).resolve().parents[4] / "docs" / "configuration.md"
    block = page.read_text().split("\n## Shell completion\n", 1)[1]
    block = block.split("```bash\n", 1)[1].split("```", 1)[0]
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    done = subprocess.run(
        ["bash", "--norc", "-euo", "pipefail", "-c", block],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    written = {
        "bash": home / ".local/share/bash-completion/completions/skillstate",
        "zsh": home / ".zfunc/_skillstate",
        "fish": home / ".config/fish/completions/skillstate.fish",
        "tcsh": home / ".skillstate.completion.csh",
    }
    for shell, path in written.items():
        assert path.read_text() == script(shell, tmp_path).read_text()
    assert bash_complete(written["bash"], "skillstate pa") == ["patch"]
