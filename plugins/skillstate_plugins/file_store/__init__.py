"""The ``file`` store plugin: the embedded default (see :mod:`.store` and ``docs/storage-format.md``).

Modules: :mod:`.store` (the :class:`~.store.FileStore`), :mod:`.url` (its URLs),
:mod:`.commit` (its write path), :mod:`.fileio` (files), :mod:`.locks` (the run
lock), :mod:`.syncs` (durable syncs on each platform), :mod:`.group_sync` (the
deferred syncs of ``durability=process``), :mod:`.format` (record and journal
encoding), :mod:`.replay` (rebuilding a record from journal lines), :mod:`.recovery`
(after a crash or power loss), :mod:`.history` (reading by version), :mod:`.cache`
(records this process already read), :mod:`.legacy` (runs the original rig-state
wrote). Registering costs nothing: the store is imported when a ``file:`` URL is
first opened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skillstate.plugin import StoreSpec, hookimpl

if TYPE_CHECKING:
    from .store import FileStore

__all__ = ["FileStore", "open_store", "root_from_url", "skillstate_register_stores"]


def open_store(url: str) -> FileStore:
    """The factory: opens a :class:`~.store.FileStore`."""
    from .store import FileStore

    return FileStore(url)


def root_from_url(url: str) -> str:
    """The absolute root directory named by a ``file:`` URL."""
    from .url import root_from_url as root

    return root(url)


def __getattr__(name: str) -> Any:
    if name == "FileStore":
        from .store import FileStore

        return FileStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@hookimpl
def skillstate_register_stores(register: Callable[[StoreSpec], Any]) -> None:
    register(
        StoreSpec(
            scheme="file",
            factory=open_store,
            description="files in a directory (default .skillstate/state); durable, multi-process",
        )
    )
