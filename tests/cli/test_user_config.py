"""The user's configuration file, ``$XDG_CONFIG_HOME/skillstate/config.toml``, through the
real ``skillstate`` command: its place (the XDG rule), its layer (above the defaults,
below the project's files, the environment and the flags), ``config set --user``, and a
broken one (one line naming the file, exit 3)."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

import pytest
from support import VENV_BIN, clean_env, run_skillstate


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A project (a git checkout), an XDG config home and a home directory, all empty."""
    project, xdg, home = tmp_path / "project", tmp_path / "xdg", tmp_path / "home"
    for directory in (project / ".git", xdg, home):
        directory.mkdir(parents=True)
    return project, xdg, home


def sources(project: Path, **env: str) -> dict[str, dict[str, object]]:
    done = run_skillstate("config", "list", "--json", cwd=project, **env)
    assert done.returncode == 0, done.stderr
    listing: dict[str, dict[str, object]] = json.loads(done.stdout)
    return listing


def test_config_set_user_writes_a_private_file_that_list_reports(
    places: tuple[Path, Path, Path],
) -> None:
    project, xdg, home = places
    env = {"XDG_CONFIG_HOME": str(xdg), "HOME": str(home)}
    done = run_skillstate("config", "set", "--user", "max_spec_bytes", "1234", cwd=project, **env)
    user_file = xdg / "skillstate" / "config.toml"
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"wrote max_spec_bytes to {user_file}\n"
    assert stat.S_IMODE(user_file.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(user_file.stat().st_mode) == 0o600
    assert not (project / "skillstate.toml").exists()
    run_skillstate("config", "set", "--user", "budget.array_items", "7", cwd=project, **env)
    assert user_file.read_text() == "max_spec_bytes = 1234\n\n[budget]\narray_items = 7\n"

    listing = sources(project, **env)
    assert listing["max_spec_bytes"] == {"value": 1234, "source": str(user_file)}
    assert listing["budget"]["source"] == str(user_file)
    assert listing["store"]["source"] == "default"
    text = run_skillstate("config", "list", cwd=project, **env).stdout
    assert "1234" in text and f"({user_file})" in text
    got = run_skillstate("config", "get", "max_spec_bytes", cwd=project, **env)
    assert got.stdout == "1234\n"


def test_precedence_flags_env_project_user_defaults(places: tuple[Path, Path, Path]) -> None:
    project, xdg, _ = places
    user_file = xdg / "skillstate" / "config.toml"
    user_file.parent.mkdir()
    user_file.write_text(
        'store = "memory:user"\nmax_spec_bytes = 100\nmax_input_bytes = 2048\n'
        "max_active_sessions = 3\n"
    )
    (project / "skillstate.toml").write_text('store = "memory:project"\nmax_spec_bytes = 200\n')
    env = {"XDG_CONFIG_HOME": str(xdg), "SKILLSTATE_MAX_INPUT_BYTES": "4096"}
    listing = sources(project, **env)
    assert listing["max_active_sessions"] == {"value": 3, "source": str(user_file)}
    assert listing["max_spec_bytes"] == {"value": 200, "source": "skillstate.toml"}
    assert listing["max_input_bytes"]["source"] == "environment (SKILLSTATE_MAX_INPUT_BYTES)"
    assert listing["session_idle_ttl"]["source"] == "default"
    assert listing["store"]["value"] == "memory:project"
    flagged = run_skillstate("--store", "memory:flag", "config", "get", "store", cwd=project, **env)
    assert flagged.stdout == '"memory:flag"\n'
    (project / "skillstate.toml").unlink()
    assert sources(project, **env)["store"] == {"value": "memory:user", "source": str(user_file)}
    # the user's store is the one a command uses
    done = run_skillstate("-v", "init", "rig-task", "abc-1", cwd=project, **env)
    assert done.returncode == 0, done.stderr
    assert f"store memory:user (from {user_file};" in done.stderr


@pytest.mark.parametrize("xdg", ["", "relative/dir"])
def test_an_empty_or_relative_xdg_config_home_means_home_dot_config(
    places: tuple[Path, Path, Path], xdg: str
) -> None:
    project, _, home = places
    done = run_skillstate(
        "config", "set", "--user", "strict_plugins", "true", cwd=project,
        XDG_CONFIG_HOME=xdg, HOME=str(home),
    )  # fmt: skip
    user_file = home / ".config" / "skillstate" / "config.toml"
    assert done.stdout == f"wrote strict_plugins to {user_file}\n", done.stderr
    assert not (project / "relative").exists()
    listing = sources(project, XDG_CONFIG_HOME=xdg, HOME=str(home))
    assert listing["strict_plugins"] == {"value": True, "source": str(user_file)}


def test_no_home_and_no_xdg_config_home(places: tuple[Path, Path, Path]) -> None:
    project, _, _ = places
    done = run_skillstate(
        "config", "set", "--user", "store", "memory:", cwd=project, XDG_CONFIG_HOME="", HOME=""
    )
    assert done.returncode == 2
    assert done.stderr == (
        "skillstate: --user: no user config directory (set HOME or XDG_CONFIG_HOME)\n"
    )
    assert sources(project, XDG_CONFIG_HOME="", HOME="")["store"]["source"] == "default"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('store = "memory:\n', "not valid TOML: "),
        ("colour = 1\n", "unknown key 'colour'. Known keys: "),
        ('max_spec_bytes = "big"\n', "key 'max_spec_bytes' must be a whole number"),
        # a new user's walk: a traceback (UnicodeDecodeError) before
        (b"store = '\xff'\n", "not valid TOML: not UTF-8 text (byte 9 is 0xff)"),
    ],
)
def test_a_broken_user_file_is_one_line_naming_it_and_exit_3(
    places: tuple[Path, Path, Path], text: str | bytes, problem: str
) -> None:
    project, xdg, _ = places
    user_file = xdg / "skillstate" / "config.toml"
    user_file.parent.mkdir()
    user_file.write_bytes(text if isinstance(text, bytes) else text.encode())
    for args in (("list",), ("config", "list"), ("doctor",)):
        done = run_skillstate(*args, cwd=project, XDG_CONFIG_HOME=str(xdg))
        assert done.returncode == 3, (args, done.stderr)
        assert done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"skillstate: {user_file}: {problem}")
    rig = subprocess.run(
        [str(VENV_BIN / "rig-state"), "list"],
        cwd=project,
        env=clean_env(XDG_CONFIG_HOME=str(xdg)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert rig.returncode == 3
    assert rig.stderr.startswith(f"rig-state: {user_file}: {problem}")


def test_a_directory_in_the_files_place_is_no_file(places: tuple[Path, Path, Path]) -> None:
    project, xdg, _ = places
    (xdg / "skillstate" / "config.toml").mkdir(parents=True)
    assert sources(project, XDG_CONFIG_HOME=str(xdg))["store"]["source"] == "default"


def _block(heading: str, fence: str) -> str:
    """The first ``fence`` block under ``heading`` in docs/configuration.md."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    section = page.split(f"\n{heading}\n", 1)[1]
    return section.split(f"```{fence}\n", 1)[1].split("```", 1)[0]


def test_the_documented_user_file_session_is_the_real_one(tmp_path: Path) -> None:
    """The console block of "The user's file", run with HOME=/home/me moved to a temp dir."""
    home = tmp_path / "home" / "me"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir(parents=True)
    block = _block("## The user's file", "console").replace("/home/me", str(home))
    commands = [part for part in block.split("$ ") if part]
    assert len(commands) == 2
    for part in commands:
        line, *expected = part.splitlines()
        args = line.split()
        assert args[0] == "skillstate"
        done = run_skillstate(*args[1:], cwd=project, HOME=str(home), XDG_CONFIG_HOME="")
        assert done.returncode == 0, done.stderr
        if expected[:1] == ["..."]:  # a listing shown in part: each shown line is in it
            # (its columns are padded for /home/me: compare the words)
            words = {" ".join(row.split()) for row in done.stdout.splitlines()}
            assert {" ".join(row.split()) for row in expected[1:]} <= words, done.stdout
        else:
            assert done.stdout.splitlines() == expected
