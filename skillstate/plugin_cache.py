"""The installed ``skillstate`` entry points, remembered between commands.

Importing :mod:`importlib.metadata` costs a command about 20 ms, so what it finds is
kept in ``$SKILLSTATE_CACHE_DIR`` (default ``$XDG_CACHE_HOME/skillstate``, else
``~/.cache/skillstate``; empty: off) beside a fingerprint of what discovery reads
(docs/architecture.md, "Start-up cost").
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import zlib
from collections.abc import Callable
from typing import Any

Entry = tuple[str, str, "str | None", "str | None"]
"""An entry point as kept: its name, its value, its distribution's name and version."""

FORMAT = 1
"""The cache file's layout: a file of another (an older or newer skillstate's) is a miss."""


def _stamp(path: str) -> list[int] | None:
    with contextlib.suppress(OSError):
        st = os.stat(path)
        return [st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    return None


def fingerprint() -> list[Any] | None:
    """``sys.path``, and the stamps of each directory and its ``*.dist-info`` /
    ``*.egg-info`` files; ``None`` when another distribution finder is installed."""
    from importlib.machinery import PathFinder

    if any(hasattr(f, "find_distributions") and f is not PathFinder for f in sys.meta_path):
        return None
    parts: list[Any] = []
    for entry in sys.path:
        root = os.path.abspath(entry or ".")
        parts.append([root, _stamp(root)])
        with contextlib.suppress(OSError):
            for name in sorted(os.listdir(root)):
                low = name.lower()
                if low.endswith((".dist-info", ".egg-info")) or low == "egg-info":
                    info = os.path.join(root, name)
                    files = ("entry_points.txt", "METADATA", "PKG-INFO")
                    parts.append([name, _stamp(info), *(_stamp(f"{info}/{f}") for f in files)])
    return parts


def entry_points(group: str, scan: Callable[[], list[Entry]]) -> list[Entry]:
    """``group``'s entry points: the kept ones while the fingerprint holds, else ``scan()``'s,
    kept unless a file is under two seconds old (a change within its timestamp's tick)."""
    from skillstate.config import user_dir  # loaded already by any command

    where = os.environ.get("SKILLSTATE_CACHE_DIR")
    if where is None:
        where = str(user_dir(os.environ, "XDG_CACHE_HOME", ".cache") or "")
    parts = fingerprint() if where else None
    if parts is None:
        return scan()
    key = zlib.crc32(os.fsencode(sys.executable))
    path = os.path.join(where, f"entry-points-{key:08x}.json")
    with contextlib.suppress(OSError, ValueError, LookupError, TypeError):
        with open(path, encoding="utf-8") as handle:
            kept = json.load(handle)
        if kept["format"] == FORMAT and kept["group"] == group and kept["fingerprint"] == parts:
            return [(e[0], e[1], e[2], e[3]) for e in kept["entries"]]
    found = scan()
    stamps = [s for part in parts for s in part[1:] if s]
    if max((max(s[3], s[4]) for s in stamps), default=0) < time.time_ns() - 2 * 10**9:
        partial = f"{path}.{os.getpid()}.tmp"
        try:
            os.makedirs(where, mode=0o700, exist_ok=True)
            with open(partial, "w", encoding="utf-8") as handle:
                record = {"format": FORMAT, "group": group, "fingerprint": parts, "entries": found}
                json.dump(record, handle)
            os.replace(partial, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(partial)
    return found
