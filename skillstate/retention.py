"""Durations and times as users and records write them (``30d``; ``2026-09-01T12:00:00Z``).

The configuration's ``session_idle_ttl``, the session limits and ``skillstate gc`` (the
maintenance plugin) read them. Sessions idle past ``session_idle_ttl`` are *closed* by
the session runtime, never deleted: removing them is gc's job.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from skillstate.errors import InvalidInput

__all__ = ["parse_duration", "parse_timestamp"]

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(s|m|h|d|w)?")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, None: 1}


def parse_duration(text: str, what: str = "duration", *, bare: bool = True) -> float:
    """Seconds in ``30d``, ``12h``, ``90m``, ``45s``, ``2w`` or a bare number of seconds.

    ``0`` is zero (callers use it for "off"). With ``bare=False`` a number without a unit
    is refused (``gc --older-than 30``: thirty seconds is rarely what was meant, and it
    would delete nearly every run). :class:`InvalidInput` otherwise.
    """
    from skillstate.display import excerpt

    found = _DURATION.fullmatch(text.strip().lower()) if isinstance(text, str) else None
    if found is not None and found.group(2) is None and not bare:
        raise InvalidInput(
            f"{what} needs a unit s, m, h, d or w (e.g. {excerpt(found.group(1))}d): "
            "a bare number is not taken as seconds"
        )
    if found is None:
        raise InvalidInput(
            f"{what} must be a number with a unit s, m, h, d or w (e.g. 30d, 12h), "
            f"got {excerpt(repr(text))}"
        )
    seconds = float(found.group(1)) * _UNITS[found.group(2)]
    try:
        timedelta(seconds=seconds)  # what a duration is used as
    except OverflowError:
        raise InvalidInput(
            f"{what} is too long: at most 999999999d, got {excerpt(repr(text))}"
        ) from None
    return seconds


def parse_timestamp(text: str) -> datetime | None:
    """A record's ``created``/``updated`` (ISO 8601, ``Z``) as an aware datetime; ``None`` if not one."""
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
