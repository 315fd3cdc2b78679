"""Configuration: files, environment, flags, precedence, errors, and `skillstate config`."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest
from support import SKILLSTATE, clean_env

from skillstate.config import load_config, set_config_value
from skillstate.errors import ConfigError
from skillstate.records import Budget


def write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_defaults_and_sources(tmp_path: Path) -> None:
    config = load_config(tmp_path, env={})
    assert config.store == "file:.skillstate/state" and config.source("store") == "default"
    assert config.load_plugins is None and config.disable_plugins == () and config.budget is None


def test_precedence_pyproject_then_own_file_then_env_then_flags(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        '[project]\nname="x"\n[tool.skillstate]\nstore = "memory:a"\ndisable_plugins = ["rig"]\n',
    )
    config = load_config(tmp_path, env={})
    assert (
        config.store == "memory:a" and config.source("store") == "pyproject.toml [tool.skillstate]"
    )
    write(tmp_path / "skillstate.toml", 'store = "memory:b"\n[budget]\nstring_chars = 100\n')
    config = load_config(tmp_path, env={})
    assert config.store == "memory:b" and config.source("store") == "skillstate.toml"
    assert config.budget == Budget(string_chars=100)
    assert config.disable_plugins == ("rig",)
    config = load_config(
        tmp_path, env={"SKILLSTATE_STORE": "memory:c", "SKILLSTATE_LOAD_PLUGINS": ""}
    )
    assert config.store == "memory:c" and config.source("store") == "environment (SKILLSTATE_STORE)"
    assert config.load_plugins == ()
    config = load_config(
        tmp_path, env={"SKILLSTATE_STORE": "memory:c"}, overrides={"store": "memory:d"}
    )
    assert config.store == "memory:d" and config.source("store") == "command line"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'stor = "x"\n',
            "skillstate.toml: unknown key 'stor'. Known keys: budget, default_environment, disable_plugins",
        ),
        ("store = 3\n", "skillstate.toml: key 'store' must be a string, got 3"),
        (
            'disable_plugins = "rig"\n',
            "skillstate.toml: key 'disable_plugins' must be a list of strings",
        ),
        (
            "[budget]\nstring_chars = -1\n",
            "skillstate.toml: key 'budget.string_chars' must be a positive integer",
        ),
        (
            "[budget]\nbytes = 5\n",
            "skillstate.toml: unknown key 'budget.bytes'. Known keys: string_chars",
        ),
        ("strict_plugins = 'yes'\n", "skillstate.toml: key 'strict_plugins' must be true or false"),
        ("store = \n", "skillstate.toml: not valid TOML"),
    ],
)
def test_bad_files_name_the_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    write(tmp_path / "skillstate.toml", text)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={})
    assert message in str(info.value)


def test_bad_environment_value() -> None:
    with pytest.raises(
        ConfigError,
        match="SKILLSTATE_STRICT_PLUGINS must be 1, true, yes or on, or 0, false, no or off",
    ):
        load_config(env={"SKILLSTATE_STRICT_PLUGINS": "maybe"})


def test_set_keeps_other_keys_and_round_trips(tmp_path: Path) -> None:
    write(tmp_path / "skillstate.toml", '# my settings\nstore = "memory:x"\nskills_path = "sk"\n')
    set_config_value(tmp_path, "disable_plugins", "rig, warehouse")
    set_config_value(tmp_path, "budget.array_items", "20")
    data = tomllib.loads((tmp_path / "skillstate.toml").read_text(encoding="utf-8"))
    assert data == {
        "store": "memory:x",
        "skills_path": "sk",
        "disable_plugins": ["rig", "warehouse"],
        "budget": {"array_items": 20},
    }
    with pytest.raises(ConfigError, match="unknown configuration key 'nope'"):
        set_config_value(tmp_path, "nope", "1")
    with pytest.raises(ConfigError, match=r"budget\.array_items must be a positive integer"):
        set_config_value(tmp_path, "budget.array_items", "zero")
    assert tomllib.loads((tmp_path / "skillstate.toml").read_text(encoding="utf-8"))["budget"] == {
        "array_items": 20
    }


def cli(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SKILLSTATE, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=clean_env(**env),
        timeout=60,
    )


def test_config_cli_list_get_set(tmp_path: Path) -> None:
    assert cli(tmp_path, "config", "set", "store", "memory:cli").returncode == 0
    listed = cli(tmp_path, "config", "list")
    assert '"memory:cli"' in listed.stdout and "(skillstate.toml)" in listed.stdout
    got = cli(tmp_path, "config", "get", "store", SKILLSTATE_STORE="memory:env")
    assert json.loads(got.stdout) == "memory:env"
    flagged = cli(tmp_path, "--store", "memory:flag", "config", "list")
    assert "memory:flag" in flagged.stdout and "(command line)" in flagged.stdout
    bad = cli(tmp_path, "config", "get", "nope")
    assert bad.returncode == 2 and "unknown configuration key 'nope'" in bad.stderr
    write(tmp_path / "skillstate.toml", "store = 1\n")
    broken = cli(tmp_path, "plugins")
    assert (
        broken.returncode == 3 and "skillstate.toml: key 'store' must be a string" in broken.stderr
    )


def test_session_limits_parse_strictly(tmp_path: Path) -> None:
    config = load_config(root=tmp_path, env={})
    assert (config.max_active_sessions, config.session_idle_ttl) == (256, 86400.0)
    env = {"SKILLSTATE_MAX_ACTIVE_SESSIONS": "3", "SKILLSTATE_SESSION_IDLE_TTL": "90m"}
    config = load_config(root=tmp_path, env=env)
    assert (config.max_active_sessions, config.session_idle_ttl) == (3, 5400.0)
    (tmp_path / "skillstate.toml").write_text('max_active_sessions = 0\nsession_idle_ttl = "0"\n')
    config = load_config(root=tmp_path, env={})
    assert (config.max_active_sessions, config.session_idle_ttl) == (0, 0.0)
    for env, message in (
        ({"SKILLSTATE_MAX_ACTIVE_SESSIONS": "-5"}, "must be a whole number >= 0, got '-5'"),
        ({"SKILLSTATE_SESSION_IDLE_TTL": "soon"}, "must be a number with a unit"),
    ):
        with pytest.raises(ConfigError, match=message):
            load_config(root=tmp_path, env=env)
    (tmp_path / "skillstate.toml").write_text("max_active_sessions = true\n")
    with pytest.raises(ConfigError, match=r"skillstate\.toml: key 'max_active_sessions'"):
        load_config(root=tmp_path, env={})
