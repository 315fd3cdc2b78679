"""Credentials kept out of what is printed: store URLs with their passwords masked.

A store URL can carry a password in two places, and both are masked as ``***``:

- the user information: ``postgresql://user:pw@host/db`` → ``postgresql://user:***@host/db``;
- a query option naming a secret: ``postgresql://host/db?password=pw`` →
  ``postgresql://host/db?password=***`` (also ``sslpassword``, ``token``, ``secret``,
  ``api_key`` and the other names in :data:`SECRET_OPTIONS`, in any case; ``key=value``
  pairs of a libpq connection string, ``host=h password=pw``, are masked the same way).

:func:`mask_url` is for showing a URL; :func:`url_secrets` lists the secrets in a
URL (as written and percent-decoded) so that :func:`mask_secrets` can take them out
of any other text, e.g. a driver's error message that quotes them.

>>> mask_url("postgresql://app:s3cret@db.example/app?password=s3cret&sslmode=require")
'postgresql://app:***@db.example/app?password=***&sslmode=require'
>>> mask_secrets("auth failed for s3cret", url_secrets("postgresql://u:s3cret@h/d"))
'auth failed for ***'
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable

__all__ = ["MASK", "SECRET_OPTIONS", "mask_secrets", "mask_url", "url_secrets"]

MASK = "***"

SECRET_OPTIONS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "pass",
        "sslpassword",
        "secret",
        "client_secret",
        "token",
        "access_token",
        "auth_token",
        "api_key",
        "apikey",
    }
)
"""Option names (compared without case) whose values are secrets."""

_OPTION = (
    r"(?<![A-Za-z0-9_.-])[0-9.-]*"  # from where a run of name characters starts, once:
    r"(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)=(?P<value>'(?:[^'\\]|\\.)*'|[^&;#\s]*)"
)
"""Compiled on first use (``re``'s cache): only a message or a URL to mask needs it. A
search tries each run of name characters once, so a long text without ``=`` costs one
pass, not one pass per character (a 64,000-character argument took 13 s)."""


_SCHEME = r"[A-Za-z][A-Za-z0-9+.-]*:"


def _userinfo_password(url: str) -> tuple[int, int] | None:
    """Where the password of ``scheme://user:password@host`` is in ``url`` (start, end).

    Also ``scheme:user:password@host`` (no ``//``), and a password holding an unescaped
    ``/``, ``?`` or ``#`` (``u:sec#ret@h``): up to the last ``@`` when no ``=`` comes
    before it (a query's ``?email=a@b`` is no password). Masking too much is safe."""
    scheme_end = url.find("://")
    if scheme_end >= 0:
        start = scheme_end + 3
    else:
        scheme = re.match(_SCHEME, url)
        if scheme is None:
            return None
        start = scheme.end()
    end = len(url)
    for stop in "/?#":
        found = url.find(stop, start)
        if found >= 0:
            end = min(end, found)
    at = url.rfind("@", start, end)
    if at < 0:
        at = url.rfind("@", start)
        if at < 0 or "=" in url[start:at]:
            return None
    colon = url.find(":", start, at)
    if colon < 0:
        return None
    return colon + 1, at


def _secret_options(text: str) -> list[tuple[int, int]]:
    """Where the values of secret ``key=value`` options are in ``text``."""
    spans = []
    for option in re.finditer(_OPTION, text):
        if option.group("key").lower() in SECRET_OPTIONS and option.group("value"):
            spans.append(option.span("value"))
    return spans


def _spans(url: str) -> list[tuple[int, int]]:
    spans = _secret_options(url)
    password = _userinfo_password(url)
    if password is not None and password[1] > password[0]:
        spans.append(password)
    return sorted(spans)


def mask_url(url: str) -> str:
    """``url`` fit for display: every password and secret option value replaced by ``***``."""
    out = []
    kept = 0
    for start, end in _spans(url):
        if start < kept:
            continue
        out.append(url[kept:start])
        out.append(MASK)
        kept = end
    out.append(url[kept:])
    return "".join(out)


def url_secrets(url: str) -> tuple[str, ...]:
    """The secrets written in ``url``: each as written and percent-decoded (unquoted).

    A password holding ``@``, ``/``, ``?`` or ``#`` unescaped is also listed in the
    pieces those split it into: a driver that reads the URL its own way quotes a piece
    back (``failed to resolve host 'cret@h'`` for ``u:se@cret@h``).
    """
    found: list[str] = []
    password = _userinfo_password(url)
    for start, end in _spans(url):
        value = url[start:end]
        if len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1]
        forms = [value, urllib.parse.unquote(value), urllib.parse.unquote_plus(value)]
        if (start, end) == password:
            forms += [piece for piece in re.split(r"[@/?#]", value) if len(piece) >= 2]
        for form in forms:
            if form and form not in found:
                found.append(form)
    return tuple(found)


_WHOLE_BELOW = 8  # a shorter secret is masked only where it is not part of a longer word


def mask_secrets(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret replaced by ``***`` (longest first).

    A secret shorter than 8 characters is replaced only where it stands alone (not
    inside a longer run of letters and digits), so that a password such as ``pw``
    does not turn every "pw" of a message into ``***``.
    """
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        if len(secret) >= _WHOLE_BELOW:
            text = text.replace(secret, MASK)
        else:
            alone = rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])"
            text = re.sub(alone, MASK, text)
    return text


def mask_written_urls(text: str) -> str:
    """``text`` with the secrets of every URL written in it masked (a word such as
    ``'postgresql://u:pw@h/db'`` an error quotes back): for messages that echo what a
    caller typed, whichever option it was."""
    if "://" not in text and "@" not in text:
        return text
    words = (word.strip("'\"(),;:.") for word in text.split())
    return mask_secrets(text, [s for word in words if ":" in word for s in url_secrets(word)])
