"""Durability as a setting: where the level comes from, bad values, and the group sync.

Each store's promise under SIGKILL and a simulated power loss is tested with the store
(``plugins/skillstate_plugins/*_store/tests/test_store_*_durability.py``).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

import skillstate.durability as durability
from skillstate.config import load_config
from skillstate.durability import check_level, configured_level, using_level
from skillstate.errors import ConfigError, StoreError
from skillstate.group_sync import PendingSyncs
from skillstate.testing import make_host, run_command


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
        expected = 3 if "unknown option" in message else 2  # as any store URL's bad option
        assert result.returncode == expected, (args, result.stderr)
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


# -- the group sync -------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _recording(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    seen: list[tuple[str, bool]] = []
    monkeypatch.setattr(
        durability,
        "sync_observer",
        lambda fd, d: seen.append((os.readlink(f"/proc/self/fd/{fd}"), d)),
    )
    return seen


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/self/fd")
def test_pending_syncs_sync_files_before_directories_once_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _recording(monkeypatch)
    clock = Clock()
    syncs = PendingSyncs(window=1.0, thread=False, clock=clock)
    (tmp_path / "a").write_bytes(b"x")
    syncs.add(str(tmp_path), directory=True)
    syncs.add(str(tmp_path / "a"))
    syncs.add(str(tmp_path / "a"))  # once, however often it was written
    syncs.add(str(tmp_path / "gone"))  # removed since: nothing to sync
    clock.now = 0.4
    assert not syncs.run_due() and not seen  # not due before half the window
    clock.now = 0.5
    assert syncs.run_due()
    assert seen == [(str(tmp_path / "a"), False), (str(tmp_path), True)]
    assert syncs.settled() and syncs.syncs == 1


def test_pending_syncs_thread_syncs_without_another_write(tmp_path: Path) -> None:
    done = threading.Event()
    previous = durability.sync_observer
    durability.sync_observer = lambda fd, d: done.set()
    try:
        syncs = PendingSyncs(window=0.1)
        (tmp_path / "a").write_bytes(b"x")
        started = time.monotonic()
        syncs.add(str(tmp_path / "a"))
        assert done.wait(5), "the sync thread never synced"
        assert time.monotonic() - started < 5
    finally:
        durability.sync_observer = previous


def test_a_failed_sync_is_raised_once_by_the_next_check(tmp_path: Path) -> None:
    syncs = PendingSyncs(thread=False, clock=Clock())
    syncs.add(str(tmp_path / "missing-dir" / "x"), directory=True)  # ENOENT: skipped
    syncs.flush()
    (tmp_path / "f").write_bytes(b"")
    syncs.add(str(tmp_path / "f"), directory=True)  # not a directory: ENOTDIR
    syncs.run_due(10.0)
    with pytest.raises(StoreError, match="a deferred sync failed"):
        syncs.check()
    syncs.check()  # once


EXIT_SCRIPT = """
import os, sys
from skillstate.testing import make_host, observing_syncs, sample_skill
from skillstate.plugin import Change, create_run, transition
root = sys.argv[1]
def seen(fd, directory):
    sys.stderr.write("synced " + os.readlink(f"/proc/self/fd/{fd}") + "\\n")
import skillstate.durability as durability
import skillstate.group_sync as group_sync
syncs = group_sync.pending_syncs()
syncs.window = syncs.delay = 600.0  # the thread will not sync before the exit does
observing = observing_syncs(seen)
observing.__enter__()  # still observing while the interpreter exits
host = make_host(f"file:{root}?durability=process")
store = host.open_store()
create_run(host, store, sample_skill(), "r", {"counter": 0})
transition(host, store, "r", Change(patch={"counter": 1}), skill=sample_skill())
sys.stderr.write("acknowledged\\n")
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/self/fd")
def test_what_is_pending_is_synced_when_the_interpreter_exits(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = tmp_path / "state"
    done = subprocess.run(
        [sys.executable, "-c", EXIT_SCRIPT, str(root)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    after = done.stderr.split("acknowledged\n", 1)[1]  # no close(): the exit flushes
    assert f"synced {root / 'r.jsonl'}" in after and f"synced {root}\n" in after


EXIT_FAILING_SCRIPT = """
import sys
from skillstate.testing import make_host, observing_syncs, sample_skill
from skillstate.plugin import Change, create_run, transition
import skillstate.durability as durability
import skillstate.group_sync as group_sync
syncs = group_sync.pending_syncs()
syncs.window = syncs.delay = 600.0  # only the exit syncs
def failing(fd, directory):
    raise OSError(5, "Input/output error")
host = make_host(f"file:{sys.argv[1]}?durability=process")
store = host.open_store()
create_run(host, store, sample_skill(), "r", {"counter": 0})
transition(host, store, "r", Change(patch={"counter": 1}), skill=sample_skill())
sys.stderr.write("acknowledged\\n")
observing = observing_syncs(failing)
observing.__enter__()  # every sync from here on fails: the exit's too
"""


def test_a_sync_that_fails_at_the_interpreter_exit_is_reported(tmp_path: Path) -> None:
    """A command has no next write to fail: the exit's failed sync must still be said."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", EXIT_FAILING_SCRIPT, str(tmp_path / "state")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    after = done.stderr.split("acknowledged\n", 1)[1]
    assert "a deferred sync failed" in after and "Input/output error" in after, done.stderr
    assert "Traceback" not in done.stderr
