"""A closed session's id used again: the closed run is moved aside first, whole.

The TypeScript skill-state MCP server (Derzkiyboomchik/skill-state-mcp-server) forgets
a session at ``close_session``, so its clients initialize the same id again (its demo
does on a second run). Here a closed session is kept for audit, so ``initialize_skill``
with the id of a *closed* session first moves that run, its whole journal with it, to
``<id>.closed-<n>`` (the first free ``n``; the id shortened to fit 80 characters):

1. **copy** — ``store.import_run`` of the record and every journal entry under the
   archive id (a copy an earlier, interrupted move left is recognised and kept);
2. **freeze** — a compare-and-swap write on the original (``meta.archived_as``), after
   which the pipeline refuses every write to it; a write that came between the read
   and this one (a forced ``rewind_session``) makes it fail, and the move starts again
   from that newer version;
3. **remove** the original.

A crash after step 2 leaves the frozen original beside its complete archive; the next
``initialize_skill`` of that id finishes the move. So every version the closed session
was acknowledged at is in the archive, readable as any closed session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate.changes import Change
from skillstate.errors import RunExists, RunNotFound, VersionConflict
from skillstate.pipeline import ARCHIVED_AS, transition

if TYPE_CHECKING:
    from skillstate.host import Host
    from skillstate.journal import Merge
    from skillstate.records import RunRecord
    from skillstate.store import Store

__all__ = ["archive_closed", "archive_name"]

_ATTEMPTS = 20


def archive_name(session_id: str, n: int) -> str:
    """``<id>.closed-<n>``, the id shortened (never ending in ``.``) to fit 80 characters."""
    suffix = f".closed-{n}"
    return session_id[: 80 - len(suffix)].rstrip(".") + suffix


def _same_run(copy: RunRecord, record: RunRecord) -> bool:
    return (copy.created, copy.version, copy.updated, copy.spec, copy.state) == (
        record.created,
        record.version,
        record.updated,
        record.spec,
        record.state,
    )


def _copy(store: Store, record: RunRecord, merge: Merge) -> str:
    """Import ``record`` and its journal under the first free archive id; that id."""
    import attrs

    entries = store.journal(record.id)
    n = 1
    while True:
        name = archive_name(record.id, n)
        try:
            existing = store.get(name)
        except RunNotFound:
            try:
                store.import_run(attrs.evolve(record, id=name), entries, merge=merge)
            except RunExists:
                continue  # taken meanwhile: look at it again
            return name
        if _same_run(existing, record):
            return name  # an interrupted move's copy
        n += 1


def archive_closed(
    host: Host,
    store: Store,
    session_id: str,
) -> str | None:
    """Move the closed session ``session_id`` to its archive; the archive's id.

    ``None`` when there is nothing to move (the run is gone, or it is not closed: the
    caller refuses the id then).
    """
    for _ in range(_ATTEMPTS):
        try:
            record = store.get(session_id)
        except RunNotFound:
            return None
        if record.status != "closed":
            return None
        frozen = record.meta.get(ARCHIVED_AS)
        if isinstance(frozen, str) and store.exists(frozen):
            store.delete(session_id)
            return frozen
        name = _copy(store, record, host.merge)
        if frozen is None:
            change = Change(keep_state=True, label="archive", meta={ARCHIVED_AS: name})
            try:
                accepted = transition(
                    host,
                    store,
                    session_id,
                    change,
                    skill=host.run_skill(record),
                    expected_version=record.version,
                    current=record,
                ).accepted
            except (VersionConflict, RunNotFound):
                accepted = False
            if not accepted:
                store.delete(name)  # the original moved on: copy its newer version
                continue
        store.delete(session_id)
        return name
    return None
