"""Text fit for a message: bounded, printable excerpts of what a caller sent.

Every surface (the CLIs, the Python API's exceptions, the runtime) quotes a caller's
value (a key, a path, a run id, a rejected value) through :func:`excerpt`: at most
:data:`MAX_ECHO` characters, then ``…`` and the full length, so a 50 MB key gives a
line of a few hundred bytes, not 52 MB on stderr. Lone surrogates, control
characters (C0 and C1: ESC, BEL, CSI) and the bidirectional embeddings, overrides
and isolates (U+202E RIGHT-TO-LEFT OVERRIDE and its kin) are shown escaped (``\\ud800``,
``\\x07``, ``\\x9b``, ``\\u202e``), so a message is always printable and encodable
as UTF-8, and cannot retitle a terminal, move its cursor or reorder the text after it. (URLs are shown through :mod:`skillstate.masking`,
which masks their credentials.)
"""

from __future__ import annotations

import re

__all__ = ["MAX_ECHO", "excerpt", "one_line", "printable", "printable_json"]

MAX_ECHO = 4096
"""The most characters of one quoted value a message holds: far above the longest value
rig-state's goldens quote whole (a 501-character phase in an enum rejection), so the
same rejection reads the same, and still a bound (a 50 MB key gives a 4 KiB quote)."""


_UNPRINTABLE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
"""Compiled on first use (by ``re``'s cache): start-up does not pay for it."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\u{code:04x}" if code > 0xFF else f"\\x{code:02x}"


def printable(text: str) -> str:
    """``text`` with control characters (C0 but tab and newline, DEL, C1), the bidirectional
    embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069: they reorder the text
    after them; the marks U+200E/U+200F do not and are kept) and lone surrogates escaped:
    what every terminal surface prints of text a caller wrote."""
    if text.isprintable():  # the usual case, without the regex (surrogates are not printable)
        return text
    return re.sub(_UNPRINTABLE, _escape, text)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def printable_json(text: str) -> str:
    """JSON text with the characters :func:`printable` escapes written as JSON escapes
    (``\\u009b``, ``\\u202e``): the same JSON value, safe to print on a terminal."""
    return re.sub(_UNPRINTABLE, _json_escape, text)


def excerpt(value: object, limit: int = MAX_ECHO) -> str:
    """``value`` (a ``str``, else its ``str()``) for quoting in a message, at most ``limit`` characters.

    A longer value is cut and says how long it was: ``'aaaa…' (52428800 characters)``
    is written ``aaaa… (52,428,800 characters)``. The result is :func:`printable`.
    """
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return printable(text)
    return f"{printable(text[:limit])}… ({len(text):,} characters)"


def one_line(text: str, tabs: bool = False) -> str:
    """``text`` with its line breaks written ``\\n`` / ``\\r`` (and, with ``tabs``, its
    tabs ``\\t``): a value that stays on its line, so it cannot pass for a line, or a
    column, of its own in a line-oriented output (a message, ``show``, ``list``)."""
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text.replace("\t", "\\t") if tabs else text
