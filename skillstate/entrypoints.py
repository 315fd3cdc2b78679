"""Finding ``skillstate`` entry points without importing :mod:`importlib.metadata`.

Every CLI call loads the plugins, and ``importlib.metadata`` (with the ``email``,
``zipfile`` and ``csv`` modules it pulls in) costs more start-up time than the rest of
plugin discovery together. Entry points only need the ``*.dist-info`` (and
``*.egg-info``) directories on ``sys.path`` and their ``entry_points.txt``, so this
module reads exactly that: the same files, the same first-distribution-wins rule for a
name found twice on the path. ``tests/test_entrypoints.py`` checks it agrees with
``importlib.metadata.entry_points(group=...)``. Distribution names and versions come
from the directory name (``name-version.dist-info``), which the wheel spec fixes.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterable
from typing import Any

__all__ = ["Distribution", "EntryPoint", "entry_points"]

_INFO = re.compile(r"^(?P<name>.+?)-(?P<version>[^-]+?)\.(?:dist|egg)-info$")


class Distribution:
    """The name and version of the distribution an entry point belongs to."""

    __slots__ = ("name", "version")

    def __init__(self, name: str, version: str) -> None:
        self.name = name
        self.version = version


class EntryPoint:
    """``name = module[:attr]`` in a group, like :class:`importlib.metadata.EntryPoint`."""

    __slots__ = ("dist", "group", "name", "value")

    def __init__(self, name: str, value: str, group: str, dist: Distribution) -> None:
        self.name = name
        self.value = value
        self.group = group
        self.dist = dist

    def load(self) -> Any:
        module_name, _, attr = self.value.partition(":")
        obj: Any = importlib.import_module(module_name.strip())
        for part in attr.strip().split(".") if attr.strip() else ():
            obj = getattr(obj, part)
        return obj


def _read_group(path: str, group: str) -> list[tuple[str, str]]:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return []
    found: list[tuple[str, str]] = []
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
            continue
        if current == group and "=" in line:
            name, _, value = line.partition("=")
            found.append((name.strip(), value.strip()))
    return found


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def entry_points(group: str, path: Iterable[str] | None = None) -> list[EntryPoint]:
    """Every entry point of ``group`` from the distributions on ``path`` (default ``sys.path``)."""
    seen: set[str] = set()
    out: list[EntryPoint] = []
    for entry in sys.path if path is None else path:
        directory = entry or "."
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            match = _INFO.match(name)
            if match is None:
                continue
            dist_name = match.group("name")
            key = _normalized(dist_name)
            if key in seen:
                continue
            seen.add(key)
            dist = Distribution(dist_name.replace("_", "-"), match.group("version"))
            for ep_name, value in _read_group(
                os.path.join(directory, name, "entry_points.txt"), group
            ):
                out.append(EntryPoint(ep_name, value, group, dist))
    return out
