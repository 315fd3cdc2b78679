"""What the inspector's pages show, read from the store and history API only.

Every function here is synchronous and read-only: it takes the :class:`Host` and
:class:`Store` and returns plain data (dicts, lists, strings) for a template or a JSON
answer. Nothing here knows HTTP or HTML. Escaping is the templates' job (Jinja2 with
autoescape on); values stay as the agent wrote them.

No reasoning is ever read: no record or journal entry holds it, and metadata keys
naming it are dropped all the same (:func:`shown_meta`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from skillstate.plugin import SkillstateError, compact, pretty
from skillstate.plugin.history import (
    export_chunks,
    log_rows,
    state_changes,
)

from .listing import Listing, skill_keys, summaries_of

if TYPE_CHECKING:
    from skillstate.plugin import Host, RunRecord, Store

__all__ = [
    "LIST_PAGE",
    "TIMELINE_PAGE",
    "NoSuchVersion",
    "diff_view",
    "export_stream",
    "list_view",
    "run_view",
    "shown_meta",
    "state_view",
    "timeline",
    "versions_after",
]

LIST_PAGE = 50
"""Runs per page of the list."""
TIMELINE_PAGE = 50
"""Versions per page of a run's timeline."""
STATUSES = ("active", "completed", "closed")


class NoSuchVersion(SkillstateError):
    """A page names a version the run does not have (404)."""

    kind = "usage"

    def __init__(self, run_id: str, version: int, head: int) -> None:
        super().__init__(
            f"run '{run_id}' has no version {version}: its versions are 1 to {head} "
            "(1 is the creation, each accepted write adds one)"
        )


def _head(store: Store, run_id: str, *versions: int) -> int:
    """The run's current version, once each of ``versions`` is known to be one it has."""
    head = store.get(run_id).version
    for version in versions:
        if not 1 <= version <= head:
            raise NoSuchVersion(run_id, version, head)
    return head


def _page_number(value: int, pages: int) -> int:
    return min(max(1, value), max(1, pages))


def list_view(
    host: Host,
    store: Store,
    *,
    skill: str | None = None,
    status: str | None = None,
    query: str | None = None,
    page: int = 1,
    per_page: int = LIST_PAGE,
    listing: Listing | None = None,
) -> dict[str, Any]:
    """One page of runs, newest update first, filtered by skill, status and an id substring.

    Only the runs on the page are read whole (for the session step); the filter and
    the order use the store's listing (``listing``'s, when given: see :class:`Listing`).
    """
    if listing is not None:
        summaries, skipped, when = listing.get(host, store)
    else:
        summaries, skipped = summaries_of(host, store)
        when = time.time()
    skills_known = sorted({s.skill for s in summaries} | ({skill} if skill else set()))
    if skill:
        summaries = [s for s in summaries if s.skill == skill]
    if status:
        summaries = [s for s in summaries if s.status == status]
    if query:
        needle = query.lower()
        summaries = [s for s in summaries if needle in s.id.lower()]
    # a sorted copy: the listing is shared by every page built at the same time, and a
    # list sorted in place looks empty to the other threads while it is sorted
    summaries = sorted(summaries, key=lambda s: (s.updated or "", s.id), reverse=True)
    total = len(summaries)
    pages = max(1, math.ceil(total / per_page))
    page = _page_number(page, pages)
    shown = summaries[(page - 1) * per_page : page * per_page]
    keys_of, _ = skill_keys(host)
    rows = []
    for summary in shown:
        phase_key, next_key = keys_of.get(summary.skill, ("", None))
        rows.append(
            {
                "id": summary.id,
                "skill": summary.skill,
                "status": summary.status,
                "phase": summary.fields.get(phase_key, "") if phase_key else "",
                "next_action": summary.fields.get(next_key, "") if next_key else "",
                "updated": summary.updated,
                "version": summary.version,
                "step": _step_of(store, summary.id),
            }
        )
    return {
        "rows": rows,
        "total": total,
        "page": page,
        "pages": pages,
        "skills": skills_known,
        "statuses": STATUSES,
        "skipped": skipped,
        "listed": time.strftime("%H:%M:%S", time.localtime(when)),
        "filters": {"skill": skill or "", "status": status or "", "q": query or ""},
    }


def _step_of(store: Store, run_id: str) -> int | None:
    try:
        return store.get(run_id).step
    except SkillstateError:
        return None


def is_session(record: RunRecord) -> bool:
    """Whether a run is a SKILL.state session: a run with a P (its ``spec``)."""
    return record.spec is not None


def shown_meta(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata to show: any key naming reasoning left out (none should exist)."""
    return {k: v for k, v in meta.items() if "reasoning" not in str(k).lower()}


def _spec_source(record: RunRecord) -> dict[str, Any]:
    meta = record.meta
    provenance = meta.get("skill_store")
    out: dict[str, Any] = {
        "format": meta.get("spec_format"),
        "sha256": meta.get("spec_sha256"),
    }
    if isinstance(provenance, Mapping):
        out["from"] = "skill store"
        out["skill"] = provenance.get("name")
        out["source"] = provenance.get("source")
    else:
        out["from"] = "given inline (initialize_skill)"
    return {k: v for k, v in out.items() if v is not None}


def _scalar(value: Any) -> str:
    """A non-empty string as it is; anything else (``""`` included) as JSON."""
    return value if isinstance(value, str) and value else compact(value)


def _state_keys(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Σ's top-level keys, each with its value as pretty JSON (for one <details> each)."""
    rows = []
    for key, value in state.items():
        nested = isinstance(value, (Mapping, list)) and bool(value)
        rows.append(
            {
                "key": key,
                "nested": nested,
                "text": pretty(value) if nested else _scalar(value),
                "size": len(value) if nested else 0,
            }
        )
    return rows


def _phase(host: Host, record: RunRecord) -> str:
    """The run's phase (its skill's ``phase_key``), ``""`` when it has none."""
    try:
        skill = host.skill(record.skill)
    except Exception:  # a skill that is not installed here: no phase to read
        return ""
    value = record.state.get(skill.phase_key)
    return value if isinstance(value, str) else ""


def run_view(host: Host, store: Store, run_id: str) -> dict[str, Any]:
    """The run's page: record fields, Σ (whole and by key), P for a session, meta, environment."""
    record = store.get(run_id)
    session = is_session(record)
    phase = _phase(host, record)
    environment = record.environment
    first = store.journal_range(run_id, after=0, before=2)
    return {
        "id": record.id,
        "forked_from": fork_of(first[0].origin) if first else None,
        "skill": record.skill,
        "status": record.status,
        "phase": phase,
        "version": record.version,
        "step": record.step,
        "created": record.created,
        "updated": record.updated,
        "session": session,
        "state_text": pretty(record.state),
        "state_keys": _state_keys(record.state),
        "spec": record.spec if session else None,
        "spec_source": _spec_source(record) if session else None,
        "observation": record.observation,
        "environment_name": environment.get("name") if environment else None,
        "environment_text": pretty(environment) if environment else None,
        "meta_text": pretty(shown_meta(record.meta)) if record.meta else None,
        "schema_text": pretty(record.schema) if record.schema else None,
    }


def _outcome(row: Mapping[str, Any], record: RunRecord) -> str:
    """The current step's action outcome, as the runtime reports it (``ok``, ``completed``,
    or what a retry-safe call recorded); ``""`` without an action or for a rollback."""
    if row["action"] is None or row["rollback"]:
        return ""
    marker = record.meta.get("last_call")
    if isinstance(marker, Mapping) and marker.get("version") == row["version"]:
        recorded = marker.get("action_status")
        if isinstance(recorded, str) and recorded:
            return recorded
    return "completed" if row["status"] == "completed" else "ok"


def _shown_action(action: Any) -> str:
    return "" if action is None else (action if isinstance(action, str) else compact(action))


def rejection_of(label: str, origin: Any) -> dict[str, Any] | None:
    """A rolled-back step's ``{"kind", "action", "reasons"}`` from its journal entry (its
    ``origin``, ``{"op": "rollback", ...}``); ``None`` for any other version. A rollback
    journaled before entries said why has ``reasons`` ``None``."""
    if not label.startswith("rollback:"):  # the runtime's label of a rolled-back step
        return None
    kind = label.split(":", 1)[1] or "unknown"
    if not isinstance(origin, Mapping) or origin.get("op") != "rollback":
        return {"kind": kind, "action": "", "reasons": None}
    problems = origin.get("problems")
    reasons = [str(p.get("message", "")) for p in problems or () if isinstance(p, Mapping)]
    return {
        "kind": str(origin.get("rejection") or kind),
        "action": _shown_action(origin.get("action")),
        "reasons": reasons,
    }


def fork_of(origin: Any) -> dict[str, Any] | None:
    """A fork's parent ``{"run", "version"}`` from its first entry's ``origin`` (``version``
    ``None`` unless it is a whole number)."""
    if isinstance(origin, Mapping) and origin.get("op") == "fork":
        version = origin.get("version")
        return {
            "run": str(origin.get("run", "")),
            "version": version if type(version) is int and version >= 1 else None,
        }
    return None


def _row(row: Mapping[str, Any], head: int, record: RunRecord) -> dict[str, Any]:
    """A timeline row; the current version's also has the observation text (the record's;
    an older row gives the digest, and its prompt page the text the entry kept)."""
    action = row["action"]
    current = row["version"] == head
    out = {
        "version": row["version"],
        "ts": row["ts"] or "",
        "label": row["label"] or "",
        "keys": list(row["keys"]),
        "action": _shown_action(action),
        "rejection": rejection_of(row["label"] or "", row["origin"]),
        "fork": fork_of(row["origin"]),
        "status": row["status"],
        "step": row["step"],
        "rollback": row["rollback"] or "",
        "note": row["note"] or "",
        "observation_sha256": row["observation_sha256"] or "",
        "observation": record.observation if current else None,
        "action_status": _outcome(row, record) if current else "",
    }
    return out


def timeline(
    host: Host, store: Store, run_id: str, *, page: int = 1, per_page: int = TIMELINE_PAGE
) -> dict[str, Any]:
    """One page of versions, newest first: page 1 is the last ``per_page`` versions."""
    record = store.get(run_id)
    head = record.version
    pages = max(1, math.ceil(head / per_page))
    page = _page_number(page, pages)
    high = head - (page - 1) * per_page
    low = max(1, high - per_page + 1)
    rows = log_rows(store, run_id, since=low - 1, limit=high - low + 1, merge=host.merge)
    shown = [_row(r, head, record) for r in reversed(rows)]
    return {"rows": shown, "page": page, "pages": pages, "head": head, "status": record.status}


def versions_after(
    host: Host, store: Store, run_id: str, after: int, limit: int = 200
) -> dict[str, Any]:
    """The live poll's answer: the run's head and the rows of the versions after ``after``."""
    record = store.get(run_id)
    head = record.version
    rows: list[dict[str, Any]] = []
    if 0 <= after < head:
        start = max(after, head - limit)
        found = log_rows(store, run_id, since=start, limit=head - start, merge=host.merge)
        rows = [_row(r, head, record) for r in found]
    return {
        "head": head,
        "status": record.status,
        "phase": _phase(host, record),
        "step": record.step,
        "updated": record.updated,
        "rows": rows,
    }


def state_view(host: Host, store: Store, run_id: str, version: int) -> dict[str, Any]:
    """Σ at ``version`` (:class:`NoSuchVersion` if the run lacks it)."""
    head = _head(store, run_id, version)
    item = store.state_at(run_id, version, merge=host.merge)
    return {
        "id": run_id,
        "version": version,
        "head": head,
        "ts": item.entry.ts,
        "label": item.entry.step,
        "status": item.status,
        "step": item.step,
        "state_text": pretty(item.state),
        "state_keys": _state_keys(item.state),
    }


def diff_view(host: Host, store: Store, run_id: str, old: int, new: int) -> dict[str, Any]:
    """What changed between two versions: one row per change, and the RFC 6902 patch."""
    import jsonpatch

    head = _head(store, run_id, old, new)
    before = store.state_at(run_id, old, merge=host.merge)
    after = store.state_at(run_id, new, merge=host.merge)
    changes = [
        {
            "op": op,
            "path": path,
            "old": None if op == "+" else compact(was),
            "new": None if op == "-" else compact(now),
        }
        for op, path, was, now in state_changes(before.state, after.state)
    ]
    patch = jsonpatch.make_patch(dict(before.state), dict(after.state))
    return {
        "id": run_id,
        "old": old,
        "new": new,
        "head": head,
        "old_label": before.entry.step,
        "new_label": after.entry.step,
        "old_ts": before.entry.ts,
        "new_ts": after.entry.ts,
        "changes": changes,
        "rejection": rejection_of(after.entry.step, after.entry.origin),
        "patch_text": pretty(list(patch)),
    }


def export_stream(host: Host, store: Store, run_id: str, now: str) -> Iterator[bytes]:
    """The run's export file, as ``skillstate export`` writes it, in pieces of a page of
    the journal each (:func:`skillstate.plugin.history.export_chunks`).

    The first piece is read here, so a journal that does not replay to the record
    raises :class:`~skillstate.plugin.StoreError` before anything is sent; the rest is
    read as the client takes it.
    """
    pieces = export_chunks(store, store.get(run_id), now, host.merge)
    first = next(pieces)

    def encoded() -> Iterator[bytes]:
        yield first.encode("utf-8")
        for piece in pieces:
            yield piece.encode("utf-8")

    return encoded()
