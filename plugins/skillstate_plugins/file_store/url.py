"""The ``file`` store's URLs: ``file:PATH``, ``file:///abs/path``, ``file:`` alone.

A relative ``PATH`` is taken from the current directory when the store is opened;
``file:`` alone is :data:`DEFAULT_ROOT`. The one query option is
``?durability=full|process`` (:func:`skillstate.plugin.durability`); any other is a
:class:`~skillstate.plugin.StoreError` naming the URL.
"""

from __future__ import annotations

import os
import urllib.parse

from skillstate.plugin import StoreError, durability

__all__ = ["DEFAULT_ROOT", "bad_url", "parse_file_url", "root_from_url"]


def bad_url(message: str) -> StoreError:
    """A malformed URL or option: the caller's input (exit 2), not a failed store (3)."""
    return StoreError(message, kind="usage")


DEFAULT_ROOT = ".skillstate/state"


def root_from_url(url: str) -> str:
    """The absolute root directory named by a ``file:`` URL."""
    return parse_file_url(url)[0]


def parse_file_url(url: str) -> tuple[str, str]:
    """The absolute root directory of a ``file:`` URL and its durability level."""
    if not url.lower().startswith("file:"):
        raise bad_url(f"'{url}' is not a file store URL (file:PATH or file:///abs/path)")
    bare, level = durability(url)
    rest, question, query = bare[5:].partition("?")
    if question and query:
        key = query.split("=", 1)[0]
        raise bad_url(
            f"file store URL '{url}': unknown option '{key}' (the one option is durability)"
        )
    if rest.startswith("//"):
        try:
            parts = urllib.parse.urlsplit("file:" + rest)
        except ValueError as exc:  # "Invalid IPv6 URL": a '[' without its ']'
            raise bad_url(f"file store URL '{url}': {exc}") from None
        if parts.netloc not in ("", "localhost"):
            raise bad_url(
                f"file store URL '{url}' names the host '{parts.netloc}'; "
                "use file:///abs/path or file:relative/path"
            )
        path = urllib.parse.unquote(parts.path)
    else:
        path = rest or DEFAULT_ROOT
    if "\x00" in path:
        raise bad_url(f"file store URL {url!r} contains a NUL byte")
    return os.path.abspath(os.path.expanduser(path)), level
