"""PEP 562 lazy exports: a package names what it exports and where, imports on first use.

Keeps ``import skillstate`` (and every sub-package) cheap for the CLI's start-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


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
