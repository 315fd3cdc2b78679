"""The run export file: one self-contained JSON document (record + journal) with a format version.

``skillstate export RUN`` writes it for bug reports and for moving a run between
machines or stores; ``skillstate import FILE`` reads it back, and checks all of it
before anything is written (both are commands of the ``maintenance`` plugin)::

    {"format":"skillstate-run","format_version":1,"skillstate":"0.1.0","exported":"…Z",
    "run":{…the RunRecord…},
    "journal":[
    {…entry 1…},
    {…entry n…}
    ],
    "sha256":"…"}

One journal entry per line, so the file diffs and greps well. ``sha256`` is the
SHA-256 of the compact JSON of ``{"run": …, "journal": […]}``: an edit, or a file cut
short, is caught before the journal is even replayed.

The core writes the format, so every surface can hand out an export (the inspector
streams one, :func:`export_chunks`); the ``maintenance`` plugin's ``export`` and
``import`` commands write and read the file (``docs/history.md``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from skillstate.jsondoc import compact
from skillstate.records import JournalEntry, RunRecord

if TYPE_CHECKING:
    from skillstate.journal import Merge
    from skillstate.store import Store

__all__ = [
    "EXPORT_PAGE",
    "FORMAT",
    "FORMAT_VERSION",
    "dump_export",
    "export_chunks",
]

_SURROGATE = re.compile("[\ud800-\udfff]")

FORMAT = "skillstate-run"
FORMAT_VERSION = 1


def _utf8(text: str) -> str:
    # A lone surrogate (legal in a Python str, not in UTF-8) can only be inside a JSON
    # string: written as its \\uXXXX escape, the file is UTF-8 and reads back the same.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _export_chunks(
    record: RunRecord, pages: Iterable[Sequence[JournalEntry]], now: str
) -> Iterator[str]:
    """The export's text in pieces: the head and the record, one piece per page of
    entries, then the digest, computed as the pages go by (:func:`_digest`'s)."""
    from skillstate._version import __version__

    run_text = compact(record.to_dict())
    head = compact(
        {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "skillstate": __version__,
            "exported": now,
        }
    )
    digest = hashlib.sha256(f'{{"run":{run_text},"journal":['.encode("utf-8", "surrogatepass"))
    yield _utf8(f'{head[:-1]},\n"run":{run_text},\n"journal":[\n')
    first = True
    for page in pages:
        texts = [compact(entry.to_dict()) for entry in page]
        if not texts:
            continue
        sep = "" if first else ","
        digest.update((sep + ",".join(texts)).encode("utf-8", "surrogatepass"))
        yield _utf8(("" if first else ",\n") + ",\n".join(texts))
        first = False
    digest.update(b"]}")
    yield f'\n],\n"sha256":"{digest.hexdigest()}"}}\n'


def dump_export(record: RunRecord, entries: Sequence[JournalEntry], now: str) -> str:
    """The text of an export of ``record`` with its whole journal ``entries``."""
    return "".join(_export_chunks(record, [entries], now))


EXPORT_PAGE = 256
"""Journal entries read and written at a time by :func:`export_chunks`."""


def _pages(store: Store, record: RunRecord, page: int) -> Iterator[list[JournalEntry]]:
    """Entries 1..``record.version`` of the run's journal, ``page`` at a time, checked to
    be exactly those versions (:class:`StoreError` otherwise)."""
    from skillstate.errors import StoreError

    done = 0
    while done < record.version:
        upto = min(done + page, record.version)
        entries = store.journal_range(record.id, after=done, before=upto + 1)
        if [entry.version for entry in entries] != list(range(done + 1, upto + 1)):
            raise StoreError(
                f"run '{record.id}': its journal does not hold versions {done + 1} to {upto}; "
                f"run 'skillstate verify {record.id}'"
            )
        yield entries
        done = upto


def export_chunks(
    store: Store,
    record: RunRecord,
    now: str,
    merge: Merge | None = None,
    *,
    page: int = EXPORT_PAGE,
) -> Iterator[str]:
    """The export of ``record`` (byte for byte what :func:`dump_export` writes), read
    from ``store``'s journal ``page`` entries at a time: its memory is a page, not the
    journal, however long the run.

    Nothing is yielded before the journal was read once and replayed to the record
    (with ``merge``, ``host.merge``), a page at a time; then it is read again, as it
    is written. Entries up to ``record.version`` never change, so a commit landing
    meanwhile changes nothing of it. Raises
    :class:`~skillstate.errors.StoreError` when the journal does not replay to the
    record, before the first piece (or, when the run was deleted meanwhile, where
    its journal stops).
    """
    from skillstate.errors import StoreError
    from skillstate.journal import replay
    from skillstate.merge import merge_patch

    state: Any = {}
    status: str | None = None
    turn: int | None = None
    for entries in _pages(store, record, page):
        result = replay(entries, merge or merge_patch, start=state)
        state = result.state
        status = result.status if result.status is not None else status
        turn = result.turn if result.turn is not None else turn
    if (
        compact(state) != compact(record.state)
        or (status is not None and status != record.status)
        or (turn is not None and turn != record.step)
    ):
        raise StoreError(
            f"run '{record.id}' does not replay to its record; run 'skillstate verify {record.id}'"
        )
    yield from _export_chunks(record, _pages(store, record, page), now)
