"""The record a store plugin registers: a URL scheme and the factory opening it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from skillstate.store import Store


__all__ = [
    "StoreSpec",
]


@attrs.frozen
class StoreSpec:
    """A storage backend, selected by the scheme of a store URL (``file:``, ``memory:``...).

    ``factory(url)`` opens the store; it is called once per URL per process.
    """

    scheme: str
    factory: Callable[[str], Store]
    description: str = ""

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.scheme, str) or not self.scheme.strip():
            raise ValueError(f"a store scheme must be a non-empty string, got {self.scheme!r}")
        object.__setattr__(self, "scheme", self.scheme.strip().lower())
