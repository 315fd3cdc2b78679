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
    make_distribution(site, "cached-two", "cached_two", PLUGIN, {"cached-two": "cached_two"})
    shutil.rmtree(site / "cached_two-1.0.dist-info")
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
