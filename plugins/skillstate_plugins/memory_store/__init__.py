"""The ``memory:`` store plugin: runs kept in this process only (see :mod:`.store`).

``memory:`` opens a fresh, private store; ``memory:NAME`` the store named NAME, shared
by every opener in this process.
"""

from __future__ import annotations

from collections.abc import Callable

from skillstate.plugin import Store, StoreSpec, hookimpl

__all__ = ["open_store", "skillstate_register_stores"]


def open_store(url: str) -> Store:
    """The factory: opens a :class:`~.store.MemoryStore`."""
    from .store import MemoryStore

    return MemoryStore(url)


@hookimpl
def skillstate_register_stores(register: Callable[[StoreSpec], None]) -> None:
    register(
        StoreSpec(
            scheme="memory", factory=open_store, description="in-process, not durable (tests)"
        )
    )
