"""Disk primitives of the skill store: bounded header reads, atomic writes, per-directory locks.

- :func:`read_header` reads a SKILL.md only until its closing fence (at most
  :data:`HEADER_WINDOW` bytes, in small chunks), so listing never reads a body.
- :func:`atomic_write` writes a temp file in the target's directory, fsyncs it,
  renames it over the target and fsyncs the directory: readers see the old file or
  the new one, never a torn one, and the write survives a crash.
- :func:`locked` takes an exclusive ``flock`` on a directory (POSIX; a no-op
  elsewhere) so read-modify-write operations of several processes never lose an update.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import attrs

from skillstate_plugins.skill_store.frontmatter import BOM, CLOSING_FENCE

__all__ = [
    "HEADER_WINDOW",
    "TEMP_MARK",
    "HardLink",
    "Header",
    "atomic_write",
    "fsync_dir",
    "locked",
    "open_regular",
    "read_all",
    "read_header",
    "scan_header",
]


def flock_module() -> ModuleType | None:
    """The ``fcntl`` module, or ``None`` on a platform without it (Windows)."""
    try:
        import fcntl
    except ImportError:
        return None
    return fcntl


def sync_file(fd: int) -> None:
    """Flush ``fd`` to stable storage: ``fcntl(F_FULLFSYNC)`` on macOS (a plain ``fsync``
    there reaches only the drive's cache), ``fsync`` where that is not supported."""
    fcntl = flock_module()
    full = getattr(fcntl, "F_FULLFSYNC", None) if fcntl is not None else None
    if full is not None:
        with contextlib.suppress(OSError):  # not supported by this filesystem
            fcntl.fcntl(fd, full)  # type: ignore[union-attr]
            return
    (os.fdatasync if hasattr(os, "fdatasync") else os.fsync)(fd)


HEADER_WINDOW = 8192
"""The frontmatter (fences included) must close within this many bytes of SKILL.md."""

TEMP_MARK = ".tmp."
"""Temp files are named ``.{target}.tmp.<random>``; discovery ignores them."""

_CHUNK = 1024
_BOM_BYTES = BOM.encode("utf-8")


@attrs.frozen
class Header:
    """What the first bytes of a SKILL.md say: ``status`` and, when ``ok``, the frontmatter source.

    ``status`` is ``ok``, ``no-fence`` (does not start with ``---``), ``unclosed``
    (the file ends before a closing fence) or ``too-long`` (no closing fence within
    :data:`HEADER_WINDOW` bytes).
    """

    status: str
    source: str = ""


def scan_header(prefix: bytes, complete: bool) -> Header | None:
    """Decide from the first bytes of a file; ``None`` when more bytes are needed.

    ``complete`` says ``prefix`` is the whole file. Only the first
    :data:`HEADER_WINDOW` bytes are ever looked at, so the listing and ``view``
    reach the same verdict.
    """
    window = prefix[:HEADER_WINDOW]
    complete = complete and len(prefix) <= HEADER_WINDOW
    data = window[len(_BOM_BYTES) :] if window.startswith(_BOM_BYTES) else window
    if len(data) < 3 and not complete:
        return None
    if not data.startswith(b"---"):
        return Header("no-fence")
    text = data.decode("utf-8", errors="replace")
    match = CLOSING_FENCE.search(text, 3)
    if match is not None:
        return Header("ok", text[3 : match.start()])
    if complete:
        return Header("unclosed")
    if len(window) >= HEADER_WINDOW:
        return Header("too-long")
    return None


class HardLink(OSError):
    """A file with more than one name: a hard link may be a file outside the skill."""

    def __init__(self, count: int) -> None:
        super().__init__(errno.EMLINK, f"it is a hard link ({count} names)")
        self.count = count


def open_regular(path: Path) -> int:
    """An fd open for reading on a regular file with one name; ``OSError`` otherwise.

    A FIFO never blocks; a file with several hard links raises :class:`HardLink` (a
    hard link under ``references/`` could be any file of the same filesystem, so it
    is refused the way a symbolic link pointing outside is).
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        mode = info.st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "Not a regular file")
        if info.st_nlink > 1:
            raise HardLink(info.st_nlink)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_header(path: Path) -> Header:
    """Read ``path`` in small chunks until :func:`scan_header` decides; raises ``OSError``."""
    fd = open_regular(path)
    try:
        buffer = b""
        while True:
            chunk = os.read(fd, _CHUNK)
            buffer += chunk
            verdict = scan_header(buffer, complete=not chunk)
            if verdict is not None:
                return verdict
    finally:
        os.close(fd)


def read_all(path: Path, limit: int | None = None) -> bytes:
    """The whole regular file; ``OSError`` when it cannot be read, ``ValueError`` when over ``limit``."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if limit is not None and size > limit:
            raise ValueError(size)
        parts = []
        while True:
            chunk = os.read(fd, max(size, 65536))
            if not chunk:
                break
            parts.append(chunk)
        return b"".join(parts)
    finally:
        os.close(fd)


def fsync_dir(directory: Path) -> None:
    """Flush a directory's entries (POSIX); silently skipped where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically and durably (module docstring); raises ``OSError``."""
    directory = path.parent
    created = _make_dirs(directory)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = 0o644
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}{TEMP_MARK}")
    except BaseException:
        _remove_dirs(created)
        raise
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            sync_file(handle.fileno())  # F_FULLFSYNC on macOS
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        _remove_dirs(created)  # a failed write leaves no empty support directory behind
        raise
    fsync_dir(directory)


def _make_dirs(directory: Path) -> list[Path]:
    """``mkdir -p directory``; the directories it created, deepest last."""
    missing: list[Path] = []
    current = directory
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    created: list[Path] = []
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            continue
        except BaseException:
            _remove_dirs(created)
            raise
        created.append(path)
    return created


def _remove_dirs(created: list[Path]) -> None:
    """Remove the directories :func:`_make_dirs` created, deepest first, if still empty."""
    for path in reversed(created):
        with contextlib.suppress(OSError):
            path.rmdir()


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[int]:
    """Hold an exclusive ``flock`` on ``directory`` (opened read-only) for the ``with`` block.

    Yields the directory's fd, so the caller can check (``os.fstat``) that the
    directory it locked is still the one at that path. Raises ``OSError``.
    """
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl = flock_module()
        if fcntl is not None:  # not POSIX (Windows): atomic replace only (docs/skills.md)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)
