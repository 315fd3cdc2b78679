"""The ``redis:`` store's URLs: redis-py's URL and the store's own query options.

``redis://[[user]:password@]host[:port][/db]`` and ``rediss://…`` (TLS), as redis-py's
``Redis.from_url`` reads them, with the store's own options, taken out before
connecting:

- ``prefix=TEXT`` — the text every key of the store starts with (default
  ``skillstate:``), so several projects or test runs share one server and database;
- ``durability=full|process`` (default: the ``durability`` setting; read by
  :func:`skillstate.plugin.durability`);
- ``check_aof=yes|no`` (default ``yes``) — at ``full``, whether to check with
  ``CONFIG GET`` that the server runs ``appendonly yes`` with ``appendfsync always``;
  ``no`` is for a server that refuses ``CONFIG`` (a managed one) and that you know
  fsyncs each write: the store then takes your word for it.

Other options go to redis-py (``socket_timeout``, ``ssl_cert_reqs``…); the store sets
``socket_connect_timeout`` and ``socket_timeout`` to 10 seconds unless the URL does.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from skillstate.plugin import StoreError, durability, mask_url

__all__ = ["DEFAULT_PREFIX", "PREFIX", "bad_url", "parse_redis_url"]


def bad_url(message: str) -> StoreError:
    """A malformed URL or option: the caller's input (exit 2), not a failed store (3)."""
    return StoreError(message, kind="usage")


DEFAULT_PREFIX = "skillstate:"
PREFIX = re.compile(r"[A-Za-z0-9._:/{}-]{1,100}")
"""What a key prefix may hold: letters, digits and ``. _ : / { } -``, at most 100."""
TIMEOUTS = ("socket_connect_timeout", "socket_timeout")


def parse_redis_url(url: str) -> tuple[str, dict[str, Any]]:
    """Split a store URL into redis-py's URL and the store's options (validated)."""
    bare, level = durability(url)
    shown = mask_url(url)
    try:
        parts = urlsplit(bare)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError as exc:  # "Invalid IPv6 URL", "Port could not be cast…"
        raise bad_url(f"bad Redis URL '{shown}': {exc}") from None
    if parts.scheme.lower() not in ("redis", "rediss"):
        raise bad_url(
            f"bad Redis URL '{shown}': expected redis://... or rediss://..., "
            f"got scheme '{parts.scheme}'"
        )
    if not parts.hostname:
        raise bad_url(f"bad Redis URL '{shown}': it names no host (redis://HOST:PORT/DB)")
    database = parts.path.strip("/")
    if database and not database.isdigit():
        raise bad_url(
            f"bad Redis URL '{shown}': the database must be a number (/0), got '/{database}'"
        )
    prefix, check = DEFAULT_PREFIX, "yes"
    theirs: list[tuple[str, str]] = []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key == "prefix":
            prefix = value
        elif key == "check_aof":
            check = value.lower()
        else:
            theirs.append((key, value))
    if not PREFIX.fullmatch(prefix):
        raise bad_url(
            f"bad Redis URL '{shown}': prefix must be 1 to 100 letters, digits or . _ : / {{ }} -"
        )
    if check not in ("yes", "no"):
        raise bad_url(f"bad Redis URL '{shown}': check_aof must be yes or no, got '{check}'")
    for key in TIMEOUTS:
        if not any(k == key for k, _ in theirs):
            theirs.append((key, "10"))
    client_url = urlunsplit(parts._replace(query=urlencode(theirs, quote_via=quote)))
    return client_url, {"prefix": prefix, "durability": level, "check_aof": check == "yes"}
