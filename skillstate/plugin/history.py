"""For plugins that show a run's past: its versions as rows, diffs, exports, checks.

- :func:`log_rows` — one row per version (time, label, keys changed, action, status),
  as ``skillstate log`` prints them;
- :func:`state_changes` — what changed between two states, path by path (``diff``);
- :func:`dump_export` — a run (record and journal) as one self-contained export file
  (``skillstate export``'s format, ``docs/history.md``); :func:`export_chunks` — the
  same bytes in pieces, read from the store a page of the journal at a time (a server
  streaming an export holds a page, not the journal);
- :func:`verify_record` — whether a record is what its journal replays to (``verify``);
- :func:`replay_history` — the run at each version of a journal, replayed from the
  creation (what :meth:`Store.history <skillstate.plugin.Store.history>` must equal).

The versions themselves come from the store: :meth:`Store.history
<skillstate.plugin.Store.history>` and :meth:`~skillstate.plugin.Store.state_at`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_getattr

if TYPE_CHECKING:
    from skillstate.exports import dump_export, export_chunks
    from skillstate.history import log_rows, state_changes
    from skillstate.journal import replay_history, verify_record

__all__ = [
    "dump_export",
    "export_chunks",
    "log_rows",
    "replay_history",
    "state_changes",
    "verify_record",
]

_LAZY = {
    "dump_export": "skillstate.exports",
    "export_chunks": "skillstate.exports",
    "log_rows": "skillstate.history",
    "replay_history": "skillstate.journal",
    "state_changes": "skillstate.history",
    "verify_record": "skillstate.journal",
}

__getattr__ = lazy_getattr("skillstate.plugin.history", _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
