"""PEP 562 lazy exports: a package names what it exports and where, imports on first use.

Keeps ``import skillstate`` (and every sub-package) cheap for the CLI's start-up. A
package lists its names twice, both checked by ``tests/core/test_lazy_exports.py``: in
a ``TYPE_CHECKING`` block (``from m import Name as Name``, for type checkers) and in the
table given here (for the run time); ``__all__`` is the table's names.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports", "lazy_getattr"]


def lazy_getattr(
    package: str, table: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` importing ``name`` from ``table[name]`` and caching it in ``namespace``."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module '{package}' has no attribute '{name}'")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__


def lazy_exports(
    package: str, where: Mapping[str, Iterable[str]], namespace: dict[str, Any]
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` of a package exporting, from each module
    of ``where``, the names it lists (``namespace`` is the package's ``globals()``)."""
    table = {name: module for module, names in where.items() for name in names}
    namespace["_LAZY"] = table
    names = sorted(table)
    return names, lazy_getattr(package, table, namespace), lambda: list(names)
