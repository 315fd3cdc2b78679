"""Text fit for a message: bounded excerpts of what a caller sent, URLs without credentials.

Two rules every surface (the CLIs, the Python API's exceptions, the runtime, the MCP
server) follows when it prints or raises something that quotes input or configuration:

- **Bounded echo.** A message quotes a caller's value (a key, a path, a run id, a
  rejected value) through :func:`excerpt`: at most :data:`MAX_ECHO` characters, then
  ``…`` and the full length, so a 50 MB key gives a line of a few hundred bytes, not
  52 MB on stderr. Lone surrogates and control characters are shown escaped
  (``\\ud800``, ``\\x07``), so a message is always printable and encodable as UTF-8.
- **No credentials.** A URL is shown through :func:`mask_url`: the password of
  ``user:password@host`` and the value of every credential-like query option
  (``?password=``, ``sslpassword``, ``token``...) become ``***``.
"""

from __future__ import annotations

import re

__all__ = [
    "MASK",
    "MAX_ECHO",
    "SECRET_OPTIONS",
    "excerpt",
    "mask_url",
    "printable",
    "scrub",
    "secrets_of",
]

MAX_ECHO = 200
"""The most characters of one quoted value a message holds (rig-state's messages quote
values of at most 500 characters only when they break the 500-character limit, which
the length message already says)."""

MASK = "***"

SECRET_OPTIONS = frozenset(
    {"password", "passwd", "pwd", "sslpassword", "secret", "token", "access_token", "api_key"}
)
"""Query options whose value is a credential (compared case-insensitively)."""

_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\u{code:04x}" if code > 0xFF else f"\\x{code:02x}"


def printable(text: str) -> str:
    """``text`` with control characters (but tab and newline) and lone surrogates escaped."""
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text


def excerpt(value: object, limit: int = MAX_ECHO) -> str:
    """``value`` (a ``str``, else its ``str()``) for quoting in a message, at most ``limit`` characters.

    A longer value is cut and says how long it was: ``'aaaa…' (52428800 characters)``
    is written ``aaaa… (52,428,800 characters)``. The result is :func:`printable`.
    """
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return printable(text)
    return f"{printable(text[:limit])}… ({len(text):,} characters)"


def mask_url(url: str) -> str:
    """``url`` fit for display: any password (``user:pw@`` or a credential option) as ``***``.

    ``postgresql://u:pw@db/x?password=pw&sslmode=require`` is shown as
    ``postgresql://u:***@db/x?password=***&sslmode=require``. A URL that cannot be
    parsed is shown as its scheme and ``:…``. The result is :func:`printable`.
    """
    from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return printable(url.split(":", 1)[0][:40]) + ":…"
    netloc = parts.netloc
    if password is not None:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{MASK}@{host}"
    query = parts.query
    if query and any(
        key.lower() in SECRET_OPTIONS for key, _ in parse_qsl(query, keep_blank_values=True)
    ):
        query = "&".join(
            f"{quote(key, safe='')}={MASK if key.lower() in SECRET_OPTIONS else quote(value, safe='')}"
            for key, value in parse_qsl(query, keep_blank_values=True)
        )
    if netloc == parts.netloc and query == parts.query:
        return printable(url)
    return printable(urlunsplit(parts._replace(netloc=netloc, query=query)))


def secrets_of(url: str) -> tuple[str, ...]:
    """The credentials written in ``url``: its password and every credential option's value."""
    from urllib.parse import parse_qsl, urlsplit

    try:
        parts = urlsplit(url)
        found = [parts.password] if parts.password else []
    except ValueError:
        return ()
    found += [
        value
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if key.lower() in SECRET_OPTIONS and value
    ]
    return tuple(found)


def scrub(text: str, secrets: tuple[str, ...] | list[str]) -> str:
    """``text`` with every occurrence of each secret (and its URL-quoted form) as ``***``.

    For messages that may quote a URL or a driver's error about it: the command lines
    pass every message they print through it with the configured store's secrets.
    """
    if not secrets:
        return text
    from urllib.parse import quote

    for secret in secrets:
        if len(secret) < 3:  # too short to tell from ordinary text; the URL form is masked
            continue
        for form in {secret, quote(secret, safe="")}:
            text = text.replace(form, MASK)
    return text
