"""A real small filesystem for tests of a full disk and a read-only store (Linux, as root).

:func:`small_filesystem` mounts a ``tmpfs`` of a few hundred kilobytes on a directory
of the test's own: filling it makes every write fail with ``ENOSPC`` as a full disk
does, and remounting it read-only makes them fail with ``EROFS`` (even for root, which
file modes do not stop). The ``small_filesystem`` fixture skips the test where it
cannot mount (not root, no ``mount``) and fails it under ``CI=true``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

__all__ = ["SmallFilesystem", "can_mount", "small_filesystem"]

FILLER = ".filler"


class SmallFilesystem:
    """A mounted ``tmpfs`` at :attr:`path`; fill it, free it, make it read-only or writable."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fill(self) -> None:
        """Write a file until the filesystem has no byte left (the next write gets ENOSPC)."""
        with open(self.path / FILLER, "ab", buffering=0) as handle:
            for size in (65536, 4096, 512, 1):  # big writes first, then the last bytes
                try:
                    while True:
                        handle.write(b"\0" * size)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise

    def free(self) -> None:
        """Remove what :meth:`fill` wrote."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path / FILLER)

    def read_only(self) -> None:
        """Remount read-only: every write now fails with EROFS."""
        _mount("-o", "remount,ro", str(self.path))

    def writable(self) -> None:
        """Remount read-write."""
        _mount("-o", "remount,rw", str(self.path))


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True, timeout=30)


def can_mount() -> str | None:
    """``None`` when this process can mount a tmpfs, else why not."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "mounting a small tmpfs needs root"
    if shutil.which("mount") is None or shutil.which("umount") is None:
        return "mount/umount are not installed"
    return None


@contextlib.contextmanager
def small_filesystem(path: Path, size: str = "256k") -> Iterator[SmallFilesystem]:
    """Mount a ``tmpfs`` of ``size`` on ``path`` (created) for the ``with`` block."""
    path.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path))
    try:
        yield SmallFilesystem(path)
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True, timeout=30)
