"""Low-level, durable file operations for the ``file`` store.

Everything here works on raw file descriptors so that the order of system calls is
exactly the one documented in ``docs/storage-format.md``: write a whole buffer,
``fsync`` it, ``rename`` it, ``fsync`` the directory, append with ``O_APPEND``.
Every ``OSError`` is turned into a :class:`~skillstate.errors.StoreError` naming the
operation, the path and the operating system's reason.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from skillstate.plugin import StoreError

__all__ = [
    "OpenJournal",
    "RunFiles",
    "RunLock",
    "Tail",
    "fsync_dir",
    "read_file",
    "remove",
    "store_error",
    "swap_in",
    "truncate",
    "write_new_file",
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


def write_new_file(path: str, data: bytes, *, sync: bool = True) -> None:
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
            os.fsync(fd)
    except OSError as exc:
        os.close(fd)
        _unlink_quietly(path)
        raise store_error(exc, "write", path) from None
    os.close(fd)


def fsync_dir(path: str) -> None:
    """``fsync`` a directory, making the renames and unlinks in it durable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise store_error(exc, "sync the directory", path) from None


_datasync = getattr(os, "fdatasync", os.fsync)

_RENAME_EXCHANGE = 2
_renameat2: Any = None


def _load_renameat2() -> Any:
    global _renameat2
    if _renameat2 is None:
        import ctypes  # only when a commit first swaps a record in: not at CLI start-up

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            function = libc.renameat2
            function.argtypes = [
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_uint,
            ]
            function.restype = ctypes.c_int
            _renameat2 = function
        except (AttributeError, OSError):
            _renameat2 = False
    return _renameat2


def swap_in(new: str, target: str) -> None:
    """Put ``new`` in place of ``target`` atomically; ``new`` is gone afterwards.

    On Linux the two names are exchanged (``renameat2(RENAME_EXCHANGE)``) and the old
    file, now at ``new``, is unlinked. Unlike a rename over ``target``, that does not
    make ext4 start writing ``new``'s data back at once (its ``auto_da_alloc``
    heuristic, about 0.13 ms here) — which is not needed: the journal line, synced
    before, can rebuild the record. Elsewhere, or where the file system refuses the
    exchange, it is a plain ``rename``.
    """
    function = _load_renameat2()
    if function:
        at_cwd = -100
        if function(at_cwd, os.fsencode(new), at_cwd, os.fsencode(target), _RENAME_EXCHANGE) == 0:
            _unlink_quietly(new)
            return
        import ctypes

        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOENT, errno.EPERM):
            raise OSError(code, os.strerror(code), target)
    os.replace(new, target)


def truncate(path: str, size: int) -> None:
    """Cut ``path`` to ``size`` bytes, durably."""
    try:
        fd = os.open(path, os.O_WRONLY | _NOFOLLOW | _CLOEXEC)
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise store_error(exc, "repair the journal", path) from None


def remove(path: str) -> None:
    """Unlink ``path`` if it exists."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise store_error(exc, "remove", path) from None


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class Tail:
    """The end of a journal file, read with a seek: its size and its last lines.

    ``last`` is the last newline-terminated line (without the newline) or ``None``;
    ``last_start`` is where it starts; ``torn`` is the bytes after the last newline
    (a line whose writer was killed mid-write), ``b""`` when the file ends cleanly.
    """

    __slots__ = ("last", "last_start", "size", "torn")

    def __init__(self, size: int, last: bytes | None, last_start: int, torn: bytes) -> None:
        self.size = size
        self.last = last
        self.last_start = last_start
        self.torn = torn

    @property
    def clean_size(self) -> int:
        """The size of the file without its torn tail."""
        return self.size - len(self.torn)


def _tail_of(fd: int, size: int) -> Tail:
    chunk = _TAIL_CHUNK
    while True:
        start = max(0, size - chunk)
        data = os.pread(fd, size - start, start)
        end = data.rfind(b"\n")
        if end < 0 and start > 0:
            chunk *= 4
            continue
        torn = data[end + 1 :]
        if end < 0:
            return Tail(size, None, 0, torn)
        begin = data.rfind(b"\n", 0, end)
        if begin < 0 and start > 0:
            chunk *= 4
            continue
        return Tail(size, data[begin + 1 : end], start + begin + 1, torn)


class OpenJournal:
    r"""A journal opened once per commit: its tail is read, and its line appended, through one descriptor.

    Opened with ``O_APPEND`` (and created if missing). :meth:`append` writes and
    ``fsync``\ s; on failure it truncates the file back to the size it had when
    opened (or last repaired), so a full disk never leaves a partial line behind.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd = -1  # a missing journal is created by the first append only
        self.size = 0
        self.reopen()

    def reopen(self) -> None:
        """(Re)open the file and read its size: after recovery may have rewritten it."""
        self.close()
        self.size = self.ino = 0
        try:
            self.fd = self._open(0)
            st = os.fstat(self.fd)
            self.size, self.ino = st.st_size, st.st_ino
        except FileNotFoundError:
            pass
        except OSError as exc:
            self.close()
            raise store_error(exc, "open the journal", self.path) from None

    def _open(self, create: int) -> int:
        return os.open(self.path, os.O_RDWR | os.O_APPEND | create | _NOFOLLOW | _CLOEXEC, 0o644)

    def tail(self) -> Tail:
        """The end of the journal, read with a seek (the cost depends only on its last
        line, not on its length); empty for a missing journal."""
        if self.fd < 0:
            return Tail(0, None, 0, b"")
        try:
            return _tail_of(self.fd, self.size)
        except OSError as exc:
            raise store_error(exc, "read", self.path) from None

    def cut(self, size: int) -> None:
        """Truncate to ``size`` bytes, durably (repairing a torn last line)."""
        try:
            os.ftruncate(self.fd, size)
            os.fsync(self.fd)
        except OSError as exc:
            raise store_error(exc, "repair the journal", self.path) from None
        self.size = size

    def append(self, data: bytes) -> None:
        """Append ``data`` and ``fdatasync``; on failure undo the partial write and raise.

        ``fdatasync`` is enough for an append: it writes the data and the file's new
        size, leaving only timestamps behind.
        """
        if self.fd < 0:
            try:
                self.fd = self._open(os.O_CREAT)
            except OSError as exc:
                raise store_error(exc, "create the journal", self.path) from None
        try:
            _write_all(self.fd, data)
            _datasync(self.fd)
        except OSError as exc:
            try:
                os.ftruncate(self.fd, self.size)
                os.fsync(self.fd)
            except OSError:
                pass  # the torn line is repaired when the run is next opened
            raise store_error(exc, "append to the journal", self.path) from None
        self.size += len(data)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class RunLock:
    """An exclusive ``flock`` on a run's lock file, robust against the file being deleted.

    ``delete`` removes the lock file while holding the lock; a process that was
    waiting on the old file notices (the file it locked has no name any more) and
    locks the file now at the path instead, so two writers never hold "the" lock at
    once.
    """

    def __init__(self, path: str) -> None:
        self.path = path

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the lock for the ``with`` block."""
        fd = self.acquire()
        try:
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the flock

    def acquire(self) -> int:
        """Block until the lock is held; returns the descriptor, whose closing releases it."""
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o644)
            except OSError as exc:
                raise store_error(exc, "open the lock file", self.path) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                deleted = os.fstat(fd).st_nlink == 0
            except OSError as exc:
                os.close(fd)
                raise store_error(exc, "lock", self.path) from None
            if not deleted:
                return fd
            os.close(fd)  # deleted while we waited: lock the file now at the path
