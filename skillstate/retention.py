"""Retention: durations and dates as users write them, and which runs ``skillstate gc`` removes.

``skillstate gc`` deletes runs (record and journal) that match every criterion given:
``--closed-before DATE`` — finished (status ``closed`` or ``completed``) and last
written before DATE; ``--older-than 30d`` — last written more than that long ago.
Sessions idle past ``session_idle_ttl`` are *closed* by the session runtime
(:mod:`skillstate.runtime.sessions`), never deleted: removing them is gc's job.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from skillstate.errors import InvalidInput

if TYPE_CHECKING:
    from skillstate.records import RunSummary

__all__ = ["FINISHED", "matches", "parse_date", "parse_duration", "parse_timestamp"]

FINISHED = ("closed", "completed")

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(s|m|h|d|w)?")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, None: 1}


def parse_duration(text: str, what: str = "duration") -> float:
    """Seconds in ``30d``, ``12h``, ``90m``, ``45s``, ``2w`` or a bare number of seconds.

    ``0`` is zero (callers use it for "off"). :class:`InvalidInput` otherwise.
    """
    found = _DURATION.fullmatch(text.strip().lower()) if isinstance(text, str) else None
    if found is None:
        raise InvalidInput(
            f"{what} must be a number with a unit s, m, h, d or w (e.g. 30d, 12h), got {text!r}"
        )
    return float(found.group(1)) * _UNITS[found.group(2)]


def parse_timestamp(text: str) -> datetime | None:
    """A record's ``created``/``updated`` (ISO 8601, ``Z``) as an aware datetime; ``None`` if not one."""
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def parse_date(text: str, what: str = "date") -> datetime:
    """``2026-09-01`` (midnight UTC) or an ISO 8601 time (``2026-09-01T12:00:00Z``)."""
    value = parse_timestamp(text)
    if value is None:
        raise InvalidInput(
            f"{what} must be a date like 2026-09-01 or a time like 2026-09-01T12:00:00Z, "
            f"got {text!r}"
        )
    return value


def matches(
    summary: RunSummary,
    *,
    closed_before: datetime | None,
    older_than: timedelta | None,
    now: datetime,
    statuses: Sequence[str] = FINISHED,
) -> bool:
    """Whether ``summary`` is a run ``gc`` removes (every given criterion holds).

    A run whose last write time cannot be read is never removed.
    """
    updated = parse_timestamp(summary.updated)
    if updated is None:
        return False
    if closed_before is not None and (summary.status not in statuses or updated >= closed_before):
        return False
    return older_than is None or updated < now - older_than
