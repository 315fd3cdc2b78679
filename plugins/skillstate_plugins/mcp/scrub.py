"""Error text fit for an MCP client: no absolute server path, no store credential, bounded.

Every error the server sends to a client (a tool's ``isError`` text, a resource or
prompt error) passes through :func:`scrub`:

- the server's own directories (the store, the skills roots, the working directory,
  the home directory, the Python installation) become ``<store>``, ``<skills>``,
  ``<server>``; any other absolute path becomes ``<path>``;
- the configured store's credentials (``user:pw@``, ``?password=``) become ``***``
  (:mod:`skillstate.masking`);
- the message is cut to :data:`MAX_MESSAGE` characters (:func:`skillstate.display.excerpt`).

The full message, path included, stays in the server's log (stderr).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from skillstate.display import excerpt
from skillstate.masking import mask_secrets, url_secrets

__all__ = ["MAX_MESSAGE", "configure", "scrub", "store_path"]

MAX_MESSAGE = 2000
"""The most characters of one error message sent to a client."""

_ABSOLUTE = re.compile(r"(?<![\w.~:/>-])/(?:[^\s/'\"`<>()\[\]{},;]+/)+[^\s/'\"`<>()\[\]{},;:]+")
"""An absolute POSIX path (``/srv/x/y.json``) not inside a URL or a relative path."""

_roots: list[tuple[str, str]] = []
_secrets: tuple[str, ...] = ()


def store_path(url: str) -> str | None:
    """The filesystem path in a ``file:`` or ``sqlite:`` store URL, if it has one."""
    scheme, sep, rest = url.partition(":")
    if not sep or scheme not in ("file", "sqlite"):
        return None
    rest = rest.split("?", 1)[0]
    if rest.startswith("//"):
        rest = rest[2:]
    return rest or None


def _default_roots() -> list[tuple[str, str]]:
    roots = []
    for place in (sys.prefix, sys.base_prefix, tempfile.gettempdir(), os.getcwd()):
        roots.append((place, "<server>"))
    home = os.path.expanduser("~")
    if home not in ("", "/"):
        roots.append((home, "<server>"))
    return roots


def configure(
    store_url: str | None = None, skills_roots: Iterable[Path | str] = (), extra: Iterable[str] = ()
) -> None:
    """Name the server's store and skills roots, so their paths are replaced by name."""
    global _secrets
    roots: list[tuple[str, str]] = []
    if store_url:
        path = store_path(store_url)
        if path:
            roots.append((str(Path(path).resolve()), "<store>"))
            roots.append((path, "<store>"))
        _secrets = url_secrets(store_url)
    for root in skills_roots:
        roots.append((str(Path(root).resolve()), "<skills>"))
        roots.append((str(root), "<skills>"))
    for place in extra:
        roots.append((place, "<server>"))
    roots.extend(_default_roots())
    cleaned = [(place.rstrip("/"), name) for place, name in roots if len(place.rstrip("/")) > 1]
    _roots[:] = sorted(dict.fromkeys(cleaned), key=lambda pair: len(pair[0]), reverse=True)


def scrub(text: str) -> str:
    """``text`` without absolute server paths or store credentials, at most :data:`MAX_MESSAGE`."""
    if not _roots:
        configure()
    if _secrets:
        text = mask_secrets(text, _secrets)
    for place, name in _roots:
        if place in text:
            text = text.replace(place, name)
    text = _ABSOLUTE.sub("<path>", text)
    return excerpt(text, MAX_MESSAGE) if len(text) > MAX_MESSAGE else text
