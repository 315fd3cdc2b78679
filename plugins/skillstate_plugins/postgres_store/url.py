"""The ``postgresql:`` store's URLs: the libpq URI and the store's own query options.

URLs are libpq URIs (``postgresql://user:pw@host:5432/db`` or ``postgres://…``) with
the store's own query options, removed before connecting:

- ``schema=NAME`` — the PostgreSQL schema holding the tables (default ``public``;
  created if missing), so several stores or test runs can share one database;
- ``pool_max=N`` (default 8) and ``pool_min=N`` (default 1) — connections per store;
- ``pool_timeout=SECONDS`` (default 10) — how long to wait to connect or for a free
  connection before failing with :class:`~skillstate.plugin.StoreError`;
- ``durability=full|process`` (default: the ``durability`` setting; read by
  :func:`skillstate.plugin.durability`) — ``process`` sets ``synchronous_commit = off``
  on the store's connections.

Other options (``sslmode``, ``connect_timeout``, ``application_name``…) go to libpq.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from skillstate.plugin import StoreError, durability, mask_url

__all__ = [
    "OUR_OPTIONS",
    "SCHEMA_NAME",
    "bad_url",
    "check_libpq_values",
    "parse_postgres_url",
    "redact",
]


def bad_url(message: str) -> StoreError:
    """A malformed URL or option: the caller's input (exit 2), not a failed store (3)."""
    return StoreError(message, kind="usage")


SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
OUR_OPTIONS = ("schema", "pool_min", "pool_max", "pool_timeout")


def parse_postgres_url(url: str) -> tuple[str, dict[str, Any]]:
    """Split a store URL into the libpq URI and the store's own options (validated)."""
    bare, level = durability(url)
    try:
        parts = urlsplit(bare)
    except ValueError as exc:  # "Invalid IPv6 URL": a '[' without its ']'
        raise bad_url(f"bad PostgreSQL URL: {exc}") from None
    if parts.scheme.lower() not in ("postgresql", "postgres"):
        raise bad_url(f"bad PostgreSQL URL: expected postgresql://..., got scheme '{parts.scheme}'")
    ours: dict[str, str] = {}
    theirs: list[tuple[str, str]] = []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        (ours.__setitem__(key, value) if key in OUR_OPTIONS else theirs.append((key, value)))
    schema = ours.get("schema", "public")
    if not SCHEMA_NAME.fullmatch(schema):
        raise bad_url(
            f"bad PostgreSQL URL: schema '{schema}' must be letters, digits and _ "
            "(not starting with a digit), at most 63 characters"
        )
    options: dict[str, Any] = {"schema": schema, "durability": level}
    for key, default, kind in (
        ("pool_min", 1, int),
        ("pool_max", 8, int),
        ("pool_timeout", 10.0, float),
    ):
        raw = ours.get(key)
        try:
            number: float = kind(raw) if raw is not None else default
        except ValueError:
            raise bad_url(f"bad PostgreSQL URL: {key} must be a number, got '{raw}'") from None
        if not number >= (0 if key == "pool_min" else 1e-3) or number > 86_400:  # NaN too
            raise bad_url(
                f"bad PostgreSQL URL: {key} must be a positive number up to 86400, got '{raw}'"
            )
        options[key] = number
    if options["pool_min"] > options["pool_max"]:
        raise bad_url("bad PostgreSQL URL: pool_min is larger than pool_max")
    if not any(k == "application_name" for k, _ in theirs):
        theirs.append(("application_name", "skillstate"))
    # %20, not '+': libpq decodes %XX in a URI but takes '+' literally (options=-c x=y)
    # written out, not urlunsplit: that drops the '//' of a URL without a host
    # (postgresql:///db, the local socket), which libpq then reads as key=value text
    query = urlencode(theirs, quote_via=quote)
    conninfo = f"{parts.scheme}://{parts.netloc}{parts.path}" + (f"?{query}" if query else "")
    return conninfo, options


# libpq's options whose values it checks only when it connects (a bad one would be
# "cannot connect", exit 3, although the caller wrote it): the values its manual allows
LIBPQ_CHOICES = {
    "sslmode": ("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
    "gssencmode": ("disable", "prefer", "require"),
    "channel_binding": ("disable", "prefer", "require"),
    "target_session_attrs": (
        "any", "read-write", "read-only", "primary", "standby", "prefer-standby",
    ),
    "load_balance_hosts": ("disable", "random"),
}  # fmt: skip
LIBPQ_INTEGERS = ("connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
                  "keepalives_count", "tcp_user_timeout")  # fmt: skip


def check_libpq_values(params: dict[str, str], url: str) -> None:
    """Refuse, as the caller's mistake, a libpq value that could never connect: a port
    that is not a number from 1 to 65535 (each of a multi-host URL's, empty allowed), a
    non-integer timeout, or a mode its manual does not list. ``params`` is
    ``psycopg.conninfo.conninfo_to_dict``'s reading of the URI."""
    for port in params.get("port", "").split(","):
        if port.strip() and not (port.strip().isdigit() and 1 <= int(port) <= 65535):
            raise bad_url(
                f"bad PostgreSQL URL '{redact(url)}': port must be a number from 1 to 65535, "
                f"got '{port}'"
            )
    for key in LIBPQ_INTEGERS:
        value = params.get(key)
        if value is not None and not (
            re.fullmatch(r"-?\d{1,10}", value.strip()) and abs(int(value)) < 2**31
        ):
            raise bad_url(
                f"bad PostgreSQL URL '{redact(url)}': {key} must be a whole number, got '{value}'"
            )
    for key, choices in LIBPQ_CHOICES.items():
        value = params.get(key)
        if value is not None and value not in choices:
            raise bad_url(
                f"bad PostgreSQL URL '{redact(url)}': {key} must be one of "
                f"{', '.join(choices)}, got '{value}'"
            )


def redact(url: str) -> str:
    """``url`` without its credentials, for messages (``user:pw@`` and ``?password=``)."""
    return mask_url(url)
