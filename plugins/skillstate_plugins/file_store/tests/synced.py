"""A power-loss model for the durability tests: what the disk would hold after a power cut.

:class:`SyncRecorder` sets :func:`..syncs.observing_syncs` (every sync the store
makes goes through :func:`..syncs.sync_file` or :func:`..syncs.sync_directory`) and records, at each sync, the file's
content (by inode) or the directory's entries (name → inode). :meth:`SyncRecorder.cut`
then writes a copy of the store directory as a power loss would leave it:

- a name exists only if the last sync of its directory listed it (a directory never
  synced while recording has no entries: to start from files already on disk, call
  the recorder on their descriptors and the directory's first);
- a file holds what it held at its last sync, or nothing if it was never synced;
- ``keep`` names files (by suffix) whose unsynced writes happened to reach the disk
  anyway (the disk may write back any time): they are copied as they are now, which
  is how a record can end up ahead of its journal.
- ``zeros`` names files (by suffix) whose new size reached the disk but whose
  unsynced data did not: what was synced, then NUL bytes up to the current size (what
  some file systems show after a crash).

It is the pessimistic model a file system allows (POSIX promises nothing about data
not synced), so a store that passes it survives any real cut at the same points.
Linux only: a descriptor is read back through ``/proc/self/fd``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..syncs import observing_syncs

__all__ = ["SyncRecorder"]


class SyncRecorder:
    """Records what each sync made durable under ``root``; :meth:`cut` simulates the loss."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.contents: dict[int, bytes] = {}  # inode -> its content at its last sync
        self.listing: dict[str, int] | None = None  # the root's entries at its last sync
        self.syncs = 0

    def __call__(self, fd: int, directory: bool) -> None:
        path = os.readlink(f"/proc/self/fd/{fd}")
        if directory:
            if Path(path) == self.root:
                self.listing = {e.name: e.inode() for e in os.scandir(path)}
                self.syncs += 1
            return
        if Path(path).parent != self.root:
            return
        with open(f"/proc/self/fd/{fd}", "rb") as handle:  # reopened: fd may be write-only
            self.contents[os.fstat(fd).st_ino] = handle.read()
        self.syncs += 1

    @contextmanager
    def recording(self) -> Iterator[SyncRecorder]:
        """Observe every sync inside the block."""
        with observing_syncs(self):
            yield self

    def cut(self, target: Path, keep: tuple[str, ...] = (), zeros: tuple[str, ...] = ()) -> Path:
        """Write into ``target`` what a power cut now would leave of ``root``."""
        target.mkdir(parents=True)
        listing = self.listing
        if listing is None:  # never synced: only what was there (and synced) before
            listing = {}
        now = {e.name: e.inode() for e in os.scandir(self.root)}
        for name, inode in listing.items():
            if name.endswith(".lock"):
                continue
            if keep and name.endswith(keep) and name in now:
                shutil.copyfile(self.root / name, target / name)
                continue
            data = self.contents.get(inode, b"")
            if zeros and name.endswith(zeros) and name in now and now[name] == inode:
                data += b"\0" * max(0, (self.root / name).stat().st_size - len(data))
            (target / name).write_bytes(data)
        for name in now:
            if keep and name.endswith(keep) and name not in listing and not name.endswith(".lock"):
                shutil.copyfile(self.root / name, target / name)
        return target
