"""The remembered entry points (skillstate.plugin_cache), through the console script.

A plugin installed as pip leaves it (a ``*.dist-info`` on ``sys.path``) is found the
first time by importlib.metadata and then from the cache, which must follow every
change to what is installed: an entry added in place, a distribution removed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillstate.manager import EntryRef
from skillstate.plugin_cache import entry_points
from tests.support import clean_env, make_distribution

PLUGIN = """
from skillstate.plugin import hookimpl
"""

PROBE = (
    "import sys, json\n"
    "from skillstate.manager import make_plugin_manager\n"
    "pm = make_plugin_manager()\n"
    "print(json.dumps([[r[0] for r in pm.rows], 'importlib.metadata' in sys.modules]))\n"
)


def _probe(site: Path, cache: Path) -> tuple[list[str], bool]:
    env = clean_env(PYTHONPATH=str(site), SKILLSTATE_CACHE_DIR=str(cache))
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    names, scanned = json.loads(done.stdout)
    return names, scanned


def _age() -> None:
    """Wait out the two seconds within which a scan is not kept."""
    time.sleep(2.1)


def test_a_kept_scan_is_reused_and_follows_changes(tmp_path: Path) -> None:
    site, cache = tmp_path / "site", tmp_path / "cache"
    site.mkdir()
    make_distribution(site, "cached-one", "cached_one", PLUGIN, {"cached-one": "cached_one"})
    names, scanned = _probe(site, cache)
    assert "cached-one" in names and scanned
    assert not cache.exists() or not any(cache.iterdir())  # too new to keep
    _age()
    assert _probe(site, cache) == (names, True)  # scanned again, now kept
    assert len(list(cache.iterdir())) == 1
    assert _probe(site, cache) == (names, False)  # from the cache: no importlib.metadata

    # An entry added in place, its mtime put back: the change time still tells.
    info = site / "cached_one-1.0.dist-info" / "entry_points.txt"
    before = info.stat()
    (site / "cached_two.py").write_text(PLUGIN, encoding="utf-8")
    info.write_text("[skillstate]\ncached-one = cached_one\ncached-two = cached_two\n")
    os.utime(info, ns=(before.st_atime_ns, before.st_mtime_ns))
    names, scanned = _probe(site, cache)
    assert "cached-two" in names and scanned

    # A distribution removed: gone at once.
    _age()
    _probe(site, cache)
    shutil.rmtree(site / "cached_one-1.0.dist-info")
    names, scanned = _probe(site, cache)
    assert "cached-one" not in names and "cached-two" not in names and scanned


def test_a_damaged_cache_or_none_is_no_error(tmp_path: Path) -> None:
    site, cache = tmp_path / "site", tmp_path / "cache"
    site.mkdir()
    make_distribution(site, "cached-one", "cached_one", PLUGIN, {"cached-one": "cached_one"})
    _age()
    names, _ = _probe(site, cache)
    (kept,) = cache.iterdir()
    kept.write_text('{"group": "skillstate", "fingerprint": [1, ')
    assert _probe(site, cache) == (names, True)
    env = clean_env(PYTHONPATH=str(site), SKILLSTATE_CACHE_DIR="")
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=60
    )
    assert json.loads(done.stdout) == [names, True]  # empty: no cache, always a scan
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert _probe(site, blocked / "sub") == (names, True)  # unwritable: still runs


def test_a_relative_xdg_cache_home_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The XDG rule, as for the user's config file: a relative base is not used (it
    would put the cache in whatever directory a command runs in)."""
    monkeypatch.delenv("SKILLSTATE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative-cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "time_ns", lambda: 10**30)  # every file old enough to keep
    assert entry_points("skillstate-test", lambda: [("a", "m:f", None, None)]) == [
        ("a", "m:f", None, None)
    ]
    assert not (tmp_path / "relative-cache").exists()
    assert len(list((tmp_path / "home" / ".cache" / "skillstate").iterdir())) == 1
    # Kept: the second call does not scan.
    assert entry_points("skillstate-test", lambda: []) == [("a", "m:f", None, None)]
    # Another group is another scan.
    assert entry_points("skillstate-other", lambda: []) == []


def test_entry_values_load_as_importlib_reads_them() -> None:
    assert EntryRef("x", "os.path:join").load() is os.path.join
    assert EntryRef("x", "os:path.join [extra1, extra2]").load() is os.path.join
    assert EntryRef("x", " json ").load() is json
    with pytest.raises(ValueError, match="entry point value 'os:path:join' is not"):
        EntryRef("x", "os:path:join").load()
    with pytest.raises(AttributeError):
        EntryRef("x", "os:no_such_thing").load()
