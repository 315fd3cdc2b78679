"""Durability levels: the names, where a store's level comes from, and what it says.

Durability levels (``docs/reliability.md`` states each store's promise exactly):

- ``full`` (the default): a write is acknowledged once it is on stable storage; it
  survives a crash of any process, an OS crash and a power loss.
- ``process``: a write is acknowledged once something outside the writing process
  holds it (the operating system, the database server); it survives a crash or
  ``SIGKILL`` of any process, and an OS crash or a power loss may lose the last
  writes (each store says how many: the ``file`` store at most a second of them).

A store learns its level with :func:`durability` (``skillstate.plugin.durability``):
its URL's ``?durability=`` or, failing that, :func:`configured_level` (the
``durability`` configuration key while :meth:`Host.open_store
<skillstate.host.Host.open_store>` opens it, else ``SKILLSTATE_DURABILITY``, else
``full``). How a store makes its writes durable is the store's own business: the core
syncs nothing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from urllib.parse import unquote_plus

__all__ = [
    "DEFAULT_LEVEL",
    "ENV_VAR",
    "LEVELS",
    "check_level",
    "configured_level",
    "durability",
    "durability_of",
    "effective_level",
    "using_level",
]

LEVELS = ("full", "process")
"""The durability levels, strongest first."""
DEFAULT_LEVEL = "full"
ENV_VAR = "SKILLSTATE_DURABILITY"

_configured: ContextVar[str | None] = ContextVar("skillstate_durability", default=None)


def check_level(value: object, where: str, error: type[Exception] | None = None) -> str:
    """``value`` as a durability level (``full`` or ``process``), else one clear error.

    The error (a :class:`~skillstate.errors.ConfigError` unless ``error`` names another
    class) is of kind ``usage`` (exit 2) and names ``where`` the value came from.
    """
    if isinstance(value, str) and value.strip().lower() in LEVELS:
        return value.strip().lower()
    from skillstate.display import excerpt
    from skillstate.errors import ConfigError

    exc = (error or ConfigError)(
        f"{where}: durability must be 'full' or 'process', got {excerpt(repr(value), 40)}"
    )
    exc.kind = "usage"  # type: ignore[attr-defined]
    raise exc


def configured_level() -> str:
    """The level a store gets when its URL names none.

    Inside :func:`using_level` (the host opening a store: the ``durability`` key of its
    configuration) that level; elsewhere ``SKILLSTATE_DURABILITY``, else ``full``.
    """
    level = _configured.get()
    if level is not None:
        return level
    raw = os.environ.get(ENV_VAR)
    if raw is None or not raw.strip():
        return DEFAULT_LEVEL
    return check_level(raw, f"environment variable {ENV_VAR}")


@contextlib.contextmanager
def using_level(level: str) -> Iterator[None]:
    """Within the block, :func:`configured_level` is ``level`` (checked)."""
    token = _configured.set(check_level(level, "durability"))
    try:
        yield
    finally:
        _configured.reset(token)


def _split(url: str) -> tuple[str, str | None]:
    """``url`` without its ``durability=`` options, and the last one's value (unchecked)."""
    base, question, query = url.partition("?")
    if not question or "durability" not in query:
        return url, None
    kept, named = [], None
    for part in query.split("&"):
        key, _, value = part.partition("=")
        if unquote_plus(key) == "durability":
            named = unquote_plus(value)
        else:
            kept.append(part)
    if named is None:
        return url, None
    return (f"{base}?{'&'.join(kept)}" if kept else base), named


def durability(url: str) -> tuple[str, str]:
    """A store's durability level, and its URL without the ``durability`` option.

    What a store's factory calls first: ``url, level = durability(url)``. The level is
    the URL's ``?durability=full|process`` when it names one (the last, if several),
    else the configured one (the ``durability`` key of the configuration while the host
    opens the store, else ``SKILLSTATE_DURABILITY``, else ``full``). The URL comes back
    with that option taken out and every other one exactly as it was, so the store
    parses only its own options. The store then does what the level promises
    (``docs/reliability.md``) and says so in its ``durability`` attribute.

    Raises :class:`~skillstate.errors.StoreError` of kind ``usage`` (exit 2) naming the
    URL (its password masked) for any other value::

        durability("sqlite:///runs.db?timeout=5&durability=process")
        # ('sqlite:///runs.db?timeout=5', 'process')
    """
    rest, named = _split(url)
    if named is None:
        return url, configured_level()
    from skillstate.errors import StoreError
    from skillstate.masking import mask_url

    scheme = url.split(":", 1)[0]
    return rest, check_level(named, f"{scheme} store URL '{mask_url(url)}'", StoreError)


def effective_level(url: str, configured: str, source: str) -> tuple[str, str]:
    """The level a store opened from ``url`` gets and where it comes from, without opening it.

    A store that keeps nothing past its process (``memory:``) says ``none`` once open.
    """
    named = _split(url)[1]
    if named is not None:
        return check_level(named, "the store URL"), "the store URL"
    return configured, source


def durability_of(store: object) -> str:
    """What a store says of itself: ``full``, ``process``, ``none`` or ``unstated``."""
    return str(getattr(store, "durability", "unstated"))
