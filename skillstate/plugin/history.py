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

from skillstate._lazy import lazy_exports

if TYPE_CHECKING:
    from skillstate.exports import dump_export as dump_export, export_chunks as export_chunks
    from skillstate.history import log_rows as log_rows, state_changes as state_changes
    from skillstate.journal import replay_history as replay_history, verify_record as verify_record

_WHERE = {
    "skillstate.exports": ("dump_export", "export_chunks"),
    "skillstate.history": ("log_rows", "state_changes"),
    "skillstate.journal": ("replay_history", "verify_record"),
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
