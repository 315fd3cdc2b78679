"""Durability as a setting: where the level comes from, and bad values.

Each store's promise under SIGKILL and a simulated power loss is tested with the store
(``plugins/skillstate_plugins/*_store/tests/test_store_*_durability.py``; the file
store's group sync in ``test_store_file_group_sync.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from skillstate_testing import make_host, run_command

from skillstate.config import load_config
from skillstate.durability import check_level, configured_level, durability, using_level
from skillstate.errors import ConfigError, StoreError


def write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_the_level_defaults_to_full_and_comes_from_files_then_env(tmp_path: Path) -> None:
    config = load_config(tmp_path, env={})
    assert config.durability == "full" and config.source("durability") == "default"
    write(tmp_path / "skillstate.toml", 'durability = "process"\n')
    config = load_config(tmp_path, env={})
    assert config.durability == "process" and config.source("durability") == "skillstate.toml"
    config = load_config(tmp_path, env={"SKILLSTATE_DURABILITY": "FULL"})
    assert config.durability == "full"
    assert config.source("durability") == "environment (SKILLSTATE_DURABILITY)"


@pytest.mark.parametrize(
    ("scheme", "url"),
    [("file", "file:{d}/state"), ("sqlite", "sqlite:///{d}/runs.db")],
)
def test_a_store_url_names_its_level_and_wins(tmp_path: Path, scheme: str, url: str) -> None:
    base = url.format(d=str(tmp_path).lstrip("/") if scheme == "sqlite" else tmp_path)
    host = make_host(base, durability="process")
    try:
        assert host.open_store().durability == "process"  # the configuration's
        joiner = "&" if "?" in base else "?"
        assert host.open_store(f"{base}{joiner}durability=full").durability == "full"
    finally:
        host.close()


def test_the_memory_store_says_it_keeps_nothing() -> None:
    host = make_host("memory:", durability="process")
    assert host.open_store().durability == "none"
    host.close()


def test_outside_a_host_the_environment_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKILLSTATE_DURABILITY", raising=False)
    assert configured_level() == "full"
    monkeypatch.setenv("SKILLSTATE_DURABILITY", "process")
    assert configured_level() == "process"
    with using_level("full"):
        assert configured_level() == "full"
    monkeypatch.setenv("SKILLSTATE_DURABILITY", "sometimes")
    with pytest.raises(ConfigError, match="SKILLSTATE_DURABILITY: durability must be"):
        configured_level()


@pytest.mark.parametrize("value", ["fsync", "", "none", 1, True])
def test_a_bad_level_is_a_usage_error(value: object) -> None:
    with pytest.raises(ConfigError, match="durability must be 'full' or 'process'") as caught:
        check_level(value, "somewhere")
    assert caught.value.kind == "usage"


def test_bad_levels_on_the_command_line_exit_2_and_change_nothing(tmp_path: Path) -> None:
    state = tmp_path / "state"
    for env, args, message in [
        ({"SKILLSTATE_DURABILITY": "fast"}, ["init", "rig-task", "r1"], "SKILLSTATE_DURABILITY"),
        (
            {},
            ["--store", f"file:{state}?durability=fast", "init", "rig-task", "r1"],
            "file store URL",
        ),
        (
            {},
            ["--store", f"file:{state}?durable=1", "init", "rig-task", "r1"],
            "unknown option 'durable'",
        ),
        ({}, ["config", "set", "durability", "fast"], "skillstate config set"),
    ]:
        result = run_command("skillstate", *args, cwd=tmp_path, **env)
        assert result.returncode == 2, (args, result.stderr)  # as any store URL's bad option
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.stderr
    assert not state.exists() and not (tmp_path / "skillstate.toml").exists()
    write(tmp_path / "skillstate.toml", 'durability = "fast"\n')
    result = run_command(
        "skillstate", "--store", f"file:{state}", "init", "rig-task", "r1", cwd=tmp_path
    )
    assert result.returncode == 2 and "skillstate.toml: durability must be" in result.stderr
    assert not state.exists()


def test_plugins_shows_the_level_and_where_it_comes_from(tmp_path: Path) -> None:
    result = run_command("skillstate", "plugins", cwd=tmp_path, SKILLSTATE_DURABILITY="process")
    assert result.returncode == 0
    assert "durability: process (from environment (SKILLSTATE_DURABILITY)" in result.stdout
    result = run_command("skillstate", "--store", "file:x?durability=full", "plugins", cwd=tmp_path)
    assert "durability: full (from the store URL" in result.stdout
    result = run_command("skillstate", "config", "set", "durability", "process", cwd=tmp_path)
    assert result.returncode == 0
    assert 'durability = "process"' in (tmp_path / "skillstate.toml").read_text()


@pytest.mark.parametrize(
    ("url", "rest", "level"),
    [
        (
            "sqlite:///runs.db?timeout=5&durability=process",
            "sqlite:///runs.db?timeout=5",
            "process",
        ),
        ("file:x?durability=FULL", "file:x", "full"),
        ("file:x?durability=full&durability=process", "file:x", "process"),  # the last wins
        ("pg://h/db?a=%20b&durability=process&c=d+e", "pg://h/db?a=%20b&c=d+e", "process"),
        ("pg://h/db?durable=1", "pg://h/db?durable=1", "full"),  # not the option
        ("memory:", "memory:", "full"),
    ],
)
def test_durability_takes_the_option_out_and_keeps_the_rest_as_written(
    url: str, rest: str, level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SKILLSTATE_DURABILITY", raising=False)
    assert durability(url) == (rest, level)
    with using_level("process"):  # the host's configuration, when the URL names none
        assert durability("sqlite:///runs.db")[1] == "process"
        assert durability("sqlite:///runs.db?durability=full")[1] == "full"  # the URL wins


def test_a_bad_level_in_a_url_names_the_url_without_its_password() -> None:
    with pytest.raises(StoreError, match="durability must be 'full' or 'process'") as caught:
        durability("postgresql://me:secret@h/db?durability=fast")
    assert caught.value.kind == "usage"
    assert "postgresql store URL 'postgresql://me:***@h/db" in str(caught.value)
    assert "secret" not in str(caught.value)
