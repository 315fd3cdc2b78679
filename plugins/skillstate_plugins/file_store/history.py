"""Reading part of a ``file`` store journal: entries between two versions, and snapshots.

A journal has one line per version, in version order, so the line of a version is
found by bisection over the file's bytes (each probe parses one line), and reading
versions 101..150 of a long run parses those 50 lines only. The state at a version is
replayed from the nearest earlier line that carries a ``snapshot`` (written by the
commit of every ``SNAPSHOT_INTERVAL``-th version), found by searching backwards for
the key. The journal is not read whole: it is read in blocks at the offsets the
search visits (``os.pread``, no memory map, so another process truncating the file
meanwhile gives a short read and a clean :class:`StoreError`, never a ``SIGBUS``).
Whatever its length, a read costs a few dozen line parses and block reads plus at
most ``SNAPSHOT_INTERVAL`` entries replayed. A journal
that does not begin with one of our lines (rig-state's) or whose lines are not one
per version (changed by hand) makes the store read it whole instead.
See ``docs/storage-format.md``, "Snapshots".
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from skillstate.plugin import JournalEntry, StoreError

from .fileio import store_error
from .format import SNAPSHOT_KEY, parse_line

if TYPE_CHECKING:
    from skillstate.plugin import Snapshot

__all__ = ["JournalView"]

_MARK = b'"' + SNAPSHOT_KEY.encode() + b'":'
_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


BLOCK = 64 * 1024


class _Blocks:
    """The bytes of an open file, read in blocks with ``os.pread`` (no memory map).

    The length is the file's size when it was opened; a block that comes back short
    (the file was truncated meanwhile) raises :class:`StoreError`, so a reader sees a
    consistent prefix or a clean error, never a crash.
    """

    def __init__(self, fd: int, size: int, path: str) -> None:
        self.fd, self.size, self.path = fd, size, path
        self._cache: dict[int, bytes] = {}

    def __len__(self) -> int:
        return self.size

    def _block(self, index: int) -> bytes:
        block = self._cache.get(index)
        if block is None:
            start = index * BLOCK
            want = min(BLOCK, self.size - start)
            try:
                block = os.pread(self.fd, want, start)
            except OSError as exc:
                raise store_error(exc, "read", self.path) from None
            if len(block) != want:
                raise StoreError(
                    f"journal {self.path} became shorter while it was read (truncated "
                    "by another process?); read it again"
                )
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[index] = block
        return block

    def read(self, start: int, end: int) -> bytes:
        """The bytes ``start:end`` (clamped to the file)."""
        start, end = max(0, start), min(end, self.size)
        if start >= end:
            return b""
        return b"".join(
            self._block(i)[max(start - i * BLOCK, 0) : end - i * BLOCK]
            for i in range(start // BLOCK, (end - 1) // BLOCK + 1)
        )

    def find(self, sub: bytes, start: int) -> int:
        """The first offset ``>= start`` of ``sub``, or -1 (searched in the cached blocks,
        without copying them)."""
        position, width = max(0, start), len(sub)
        while position < self.size:
            base = (position // BLOCK) * BLOCK
            block = self._block(position // BLOCK)
            found = block.find(sub, position - base)
            if found >= 0:
                return base + found
            edge = base + len(block)
            if width > 1 and edge < self.size:  # a match across the next block's start
                low = max(position, edge - width + 1)
                found = self.read(low, edge + width - 1).find(sub)
                if found >= 0:
                    return low + found
            position = edge
        return -1

    def rfind(self, sub: bytes, low: int, end: int) -> int:
        """The last offset of ``sub`` lying wholly within ``low:end``, or -1."""
        end, width = min(end, self.size), len(sub)
        while end - low >= width:
            base = ((end - 1) // BLOCK) * BLOCK
            block = self._block((end - 1) // BLOCK)
            found = block.rfind(sub, max(low, base) - base, end - base)
            if found >= 0:
                return base + found
            if base <= low:
                break
            if width > 1:  # a match across this block's start
                start = max(low, base - width + 1)
                found = self.read(start, min(end, base + width - 1)).rfind(sub)
                if found >= 0:
                    return start + found
            end = base
        return -1


class JournalView:
    """A journal file opened for reading by offset (use as a context manager)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd = -1
        self._map = _Blocks(-1, 0, path)
        try:
            fd = os.open(path, _FLAGS)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise store_error(exc, "read", path) from None
        try:
            size = os.fstat(fd).st_size
        except OSError as exc:
            os.close(fd)
            raise store_error(exc, "read", path) from None
        self._fd = fd
        self._map = _Blocks(fd, size, path)

    def __enter__(self) -> JournalView:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    # -- lines -------------------------------------------------------------------
    def _line(self, start: int) -> tuple[Any, int]:
        """The parsed line starting at ``start`` and the offset after its newline; a
        torn last line (no newline) is ``(None, -1)``."""
        end = self._map.find(b"\n", start)
        if end < 0:
            return None, -1
        try:
            return parse_line(self._map.read(start, end)), end + 1
        except ValueError as exc:
            raise StoreError(f"journal {self.path} has a damaged line: {exc}") from None

    def is_ours(self) -> bool:
        """Whether the journal begins with one of our lines (it has a ``version``)."""
        if not len(self._map):
            return True
        first, _ = self._line(0)
        return isinstance(first, dict) and "version" in first

    def offset_of(self, version: int) -> int:
        """Where the first line of a version >= ``version`` starts (the end if none)."""
        low, high = 0, len(self._map)
        while low < high:
            start = self._map.rfind(b"\n", 0, (low + high) // 2) + 1
            line, after = self._line(start)
            if line is None:
                high = start
            elif _version(line) < version:
                low = after
            else:
                high = start
        return low

    # -- what the store asks for --------------------------------------------------
    def entries(self, after: int, before: int | None) -> list[JournalEntry] | None:
        """The entries ``after < version < before``; ``None`` if the lines are not one
        per version from ``after + 1`` on (the caller reads the whole journal then)."""
        position = self.offset_of(after + 1)
        out: list[JournalEntry] = []
        expected = after + 1
        while position < len(self._map) and (before is None or expected < before):
            line, position = self._line(position)
            if line is None:
                break
            try:
                entry = JournalEntry.from_dict(line)
            except (TypeError, ValueError) as exc:
                raise StoreError(f"journal {self.path} has a damaged line: {exc}") from None
            if entry.version != expected:
                return None
            out.append(entry)
            expected += 1
        return out

    def snapshot(self, version: int) -> Snapshot | None:
        """The snapshot on the line of the latest version at or before ``version``."""
        end = self.offset_of(version + 1)
        while True:
            found = self._map.rfind(_MARK, 0, end)
            if found < 0:
                return None
            start = self._map.rfind(b"\n", 0, found) + 1
            snapshot = self._snapshot_at(start)
            if snapshot is not None and snapshot.version <= version:
                return snapshot
            end = start  # a key inside a value, or a later version: look further back

    def snapshots(self) -> list[Snapshot]:
        """Every snapshot in the journal, in version order."""
        found, end = [], len(self._map)
        while (mark := self._map.rfind(_MARK, 0, end)) >= 0:
            start = self._map.rfind(b"\n", 0, mark) + 1
            snapshot = self._snapshot_at(start)
            if snapshot is not None:
                found.append(snapshot)
            end = start
        return found[::-1]

    def _snapshot_at(self, start: int) -> Snapshot | None:
        line, _ = self._line(start)
        if not isinstance(line, dict) or SNAPSHOT_KEY not in line:
            return None
        try:
            from skillstate.plugin import Snapshot  # built on first use

            return Snapshot.from_dict(_version(line), line[SNAPSHOT_KEY])
        except ValueError as exc:
            raise StoreError(f"journal {self.path} has a damaged snapshot: {exc}") from None


def _version(line: Any) -> int:
    version = line.get("version") if isinstance(line, dict) else None
    if type(version) is not int:
        raise StoreError("a journal line without a version among the store's own lines")
    return version
