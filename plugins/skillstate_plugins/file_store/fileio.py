"""Low-level, durable file operations for the ``file`` store.

Everything here works on raw file descriptors so that the order of system calls is
exactly the one documented in ``docs/storage-format.md``: write a whole buffer (and
``fsync`` it when asked), append with ``O_APPEND`` and ``fdatasync``, put a file in
place of another (an exchange, or a ``rename``), ``fsync`` the directory.
The run lock is in :mod:`.locks`. Every ``OSError`` is turned into a :class:`~skillstate.plugin.StoreError` naming the
operation, the path and the operating system's reason.
"""

from __future__ import annotations

import errno
import os
from typing import NamedTuple

from skillstate.plugin import StoreError

from .syncs import flock_module, sync_directory, sync_file

fcntl = flock_module()  # None where there is no flock (Windows): the store refuses to open

__all__ = [
    "OpenJournal",
    "RunFiles",
    "discard",
    "ends_with_newline",
    "file_size",
    "fsync_dir",
    "in_store",
    "put_in_place",
    "read_file",
    "remove",
    "store_error",
    "write_file",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_TAIL_CHUNK = 4096
_READ_CHUNK = 1 << 16


class RunFiles(NamedTuple):
    """The paths of one run's files."""

    record: str  # <id>.json
    journal: str  # <id>.jsonl
    pending: str  # <id>.json.new, only while a commit is in flight
    lock: str  # <id>.lock


def store_error(exc: OSError, doing: str, path: str) -> StoreError:
    """A :class:`StoreError` saying what failed, on which path, and why (the OS reason)."""
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ELOOP:
        reason = "it is a symbolic link, which the file store refuses to follow"
    return StoreError(f"cannot {doing} {path}: {reason}")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_file(path: str) -> bytes | None:
    """The whole file, or ``None`` if it does not exist; symbolic links are refused."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise store_error(exc, "read", path) from None
    try:
        data = os.read(fd, _READ_CHUNK)
        if len(data) < _READ_CHUNK:  # a short read of a regular file is its end
            return data
        chunks = [data]
        while chunk := os.read(fd, _READ_CHUNK):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise store_error(exc, "read", path) from None
    finally:
        os.close(fd)


def file_size(path: str) -> int:
    """The size of the file at ``path``, 0 if there is none; a symbolic link is not followed."""
    try:
        return os.lstat(path).st_size
    except FileNotFoundError:
        return 0
    except OSError as exc:
        raise store_error(exc, "read", path) from None


def ends_with_newline(path: str, size: int) -> bool:
    """Whether byte ``size - 1`` of ``path`` is a newline (``True`` for an empty file)."""
    if size <= 0:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        return False
    try:
        return os.pread(fd, 1, size - 1) == b"\n"
    except OSError:
        return False
    finally:
        os.close(fd)


def write_file(path: str, data: bytes, *, sync: bool = True) -> None:
    """Create or truncate ``path``, write ``data`` and ``fsync`` it; remove it on failure.

    ``sync=False`` skips the ``fsync`` (the record of a commit, which its journal line
    can rebuild).
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW | _CLOEXEC, 0o644)
    except OSError as exc:
        raise store_error(exc, "create", path) from None
    try:
        _write_all(fd, data)
        if sync:
            sync_file(fd)
    except OSError as exc:
        os.close(fd)
        discard(path)
        raise store_error(exc, "write", path) from None
    os.close(fd)


def fsync_dir(path: str) -> None:
    """``fsync`` a directory, making the renames and unlinks in it durable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
        try:
            sync_directory(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise store_error(exc, "sync the directory", path) from None


def put_in_place(new: str, target: str) -> None:
    """Put the file ``new`` in place of ``target`` atomically (a rename over it).

    The one way a record file is replaced (by a creation, a commit, a recovery). Nothing
    is synced: whoever needs the new name durable syncs the directory. (An earlier
    version exchanged the names with ``renameat2(RENAME_EXCHANGE)`` through ``ctypes``;
    it held process-wide state and bought 11% on a durable MCP step, under the 20% a
    speed-up must buy: docs/benchmarks.md, issue 25.)
    """
    try:
        os.replace(new, target)
    except OSError as exc:
        raise store_error(exc, "replace the record", target) from None


def remove(path: str) -> None:
    """Unlink ``path`` if it exists."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise store_error(exc, "remove", path) from None


def discard(path: str) -> None:
    """Unlink ``path``, ignoring every error: cleaning up after a failure already reported."""
    try:
        os.unlink(path)
    except OSError:
        pass


class OpenJournal:
    r"""A journal opened with ``O_APPEND``: its size and inode, its torn tail, appending.

    A missing journal is created by the first :meth:`append`. :meth:`append` writes and
    ``fdatasync``\ s; on failure it truncates the file back to the size it had when
    opened (or last repaired), so a full disk never leaves a partial line behind.

    A store keeps the journal of each run it remembers open in one of these
    (:mod:`.cache`), so a commit appends without opening it. ``read_only`` opens it for
    reading alone (``O_RDONLY``: what ``get`` remembers, so a reader holds no write
    descriptor), :attr:`appendable` says which, and a commit :meth:`upgrade`\ s it.
    """

    __slots__ = ("appendable", "dev", "fd", "ino", "path", "size")

    def __init__(self, path: str, *, read_only: bool = False) -> None:
        self.path = path
        self.fd = -1
        self.size = self.ino = self.dev = 0
        self.appendable = True
        if read_only:
            self._open_for_reading()
        else:
            self.reopen()

    def _open_for_reading(self) -> None:
        """Open ``O_RDONLY`` (a reader holds no write descriptor); ``OSError`` if it cannot.

        A commit :meth:`upgrade`\\ s the descriptor to an appending one under the lock.
        """
        self.fd = os.open(self.path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
        self.appendable = False
        st = os.fstat(self.fd)
        self.size, self.ino, self.dev = st.st_size, st.st_ino, st.st_dev

    def upgrade(self) -> bool:
        """Swap a read-only descriptor for an appending one of the same file.

        Opens the path for appending and checks that the new descriptor is the file
        kept open (``fstat``: device and inode): then the old one is closed, the new one
        kept, its length read, and ``True`` returned. ``False`` (nothing changed) if the
        path cannot be opened for appending or holds another file by now.
        """
        try:
            fd = self._open(0)
        except OSError:
            return False
        try:
            st = os.fstat(fd)
        except OSError:
            os.close(fd)
            return False
        if st.st_ino != self.ino or st.st_dev != self.dev:
            os.close(fd)
            return False
        old, self.fd = self.fd, fd
        if old >= 0:
            os.close(old)
        self.size, self.appendable = st.st_size, True
        return True

    def reopen(self) -> None:
        """(Re)open the file and read its size: after recovery may have rewritten it."""
        self.close()
        self.size = self.ino = self.dev = 0
        self.appendable = True
        try:
            self.fd = self._open(0)
            st = os.fstat(self.fd)
            self.size, self.ino, self.dev = st.st_size, st.st_ino, st.st_dev
        except FileNotFoundError:
            pass
        except OSError as exc:
            self.close()
            raise store_error(exc, "open the journal", self.path) from None

    def at_path(self) -> bool:
        """Whether the open journal is still the file at its path (one ``lstat``: device
        and inode), reading its length; ``False`` if it is not open, was removed, or was
        moved aside or replaced (reopen the path instead)."""
        if self.fd < 0:
            return False
        try:
            st = os.lstat(self.path)
        except OSError:
            return False
        if st.st_ino != self.ino or st.st_dev != self.dev:
            return False
        self.size = st.st_size
        return True

    def _open(self, create: int) -> int:
        return os.open(self.path, os.O_RDWR | os.O_APPEND | create | _NOFOLLOW | _CLOEXEC, 0o644)

    def torn_tail(self) -> bytes:
        """The bytes after the journal's last newline: ``b""`` unless a writer was cut short.

        Read backwards from the end, so the cost does not depend on the journal's length.
        """
        chunk = _TAIL_CHUNK
        try:
            while self.fd >= 0 and self.size:
                start = max(0, self.size - chunk)
                data = os.pread(self.fd, self.size - start, start)
                end = data.rfind(b"\n")
                if end >= 0 or start == 0:
                    return data[end + 1 :]
                chunk *= 4
        except OSError as exc:
            raise store_error(exc, "read", self.path) from None
        return b""

    def cut(self, size: int) -> None:
        """Truncate to ``size`` bytes, durably (repairing a torn last line)."""
        try:
            os.ftruncate(self.fd, size)
            sync_file(self.fd)
        except OSError as exc:
            raise store_error(exc, "repair the journal", self.path) from None
        self.size = size

    def append(self, data: bytes, *, sync: bool = True) -> None:
        """Append ``data`` and ``fdatasync``; on failure undo the partial write and raise.

        ``fdatasync`` is enough for an append: it writes the data and the file's new
        size, leaving only timestamps behind. ``sync=False`` (``durability=process``)
        leaves the sync to whoever calls it.
        """
        if self.fd < 0:
            try:
                self.fd = self._open(os.O_CREAT)
            except OSError as exc:
                raise store_error(exc, "create the journal", self.path) from None
        try:
            written = os.write(self.fd, data)
            if written != len(data):  # a short write: the rest, or the error, comes next
                _write_all(self.fd, data[written:])
            if sync:
                sync_file(self.fd)  # F_FULLFSYNC on macOS, fdatasync elsewhere
        except OSError as exc:
            try:
                self.cut(self.size)
            except StoreError:
                pass  # the torn line is repaired when the run is next opened
            raise store_error(exc, "append to the journal", self.path) from None
        self.size += len(data)

    def close(self) -> None:
        """Close the descriptor (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def in_store(text: str, root: str) -> str:
    """``text`` naming the store's files by name alone: a warning never shows where the
    store lies on the machine (``/srv/app/.skillstate/state/a.json`` becomes ``a.json``)."""
    return text.replace(root.rstrip(os.sep) + os.sep, "")
