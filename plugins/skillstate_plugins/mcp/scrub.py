"""Error text fit for an MCP client: no absolute server path, no store credential, bounded.

Every error the server sends to a client (a tool's ``isError`` text, a resource or
prompt error) passes through :func:`scrub`:

- the server's own directories (the store, the skills roots, the working directory,
  the home directory, the Python installation) become ``<store>``, ``<skills>``,
  ``<server>``; any other absolute path becomes ``<path>``;
- the configured store's credentials (``user:pw@``, ``?password=``) become ``***``
  wherever a message quotes them (:func:`url_secrets`);
- the message is cut to :data:`MAX_MESSAGE` characters (:func:`skillstate.plugin.excerpt`).

The full message, path included, stays in the server's log (stderr).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import urllib.parse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from skillstate.plugin import excerpt

__all__ = [
    "MAX_MESSAGE",
    "configure",
    "mask_secrets",
    "public_envelope",
    "public_path",
    "public_session",
    "public_store_url",
    "scrub",
    "store_path",
    "url_secrets",
]

MAX_MESSAGE = 2000
"""The most characters of one error message sent to a client."""

_ABSOLUTE = re.compile(r"(?<![\w.~:/>-])/(?:[^\s/'\"`<>()\[\]{},;]+/)+[^\s/'\"`<>()\[\]{},;:]+")
"""An absolute POSIX path (``/srv/x/y.json``) not inside a URL or a relative path."""

_roots: list[tuple[str, str]] = []
_secrets: tuple[str, ...] = ()
_skills_roots: list[str] = []


MASK = "***"
SECRET_OPTIONS = frozenset(
    {"password", "passwd", "pwd", "pass", "sslpassword", "secret", "client_secret", "token",
     "access_token", "auth_token", "api_key", "apikey"}
)  # fmt: skip
"""Option names (compared without case) whose values are secrets."""

_OPTION = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)=('(?:[^'\\]|\\.)*'|[^&;#\s]*)")
_WHOLE_BELOW = 8  # a shorter secret is masked only where it is not part of a longer word


def url_secrets(url: str) -> tuple[str, ...]:
    """The secrets written in a store URL: the password of ``user:password@`` and the
    values of secret options (``?password=``, ``sslpassword=``...), each as written and
    percent-decoded."""
    found: list[str] = []
    values = [m.group(2) for m in _OPTION.finditer(url) if m.group(1).lower() in SECRET_OPTIONS]
    _, sep, rest = url.partition("://")
    if sep:
        authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
        userinfo, at, _ = authority.rpartition("@")
        if at and ":" in userinfo:
            values.append(userinfo.split(":", 1)[1])
    for value in values:
        if len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1]
        for form in (value, urllib.parse.unquote(value), urllib.parse.unquote_plus(value)):
            if form and form not in found:
                found.append(form)
    return tuple(found)


def mask_secrets(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret replaced by ``***`` (longest first); a secret shorter than
    8 characters only where it stands alone (so that ``pw`` does not mask every "pw")."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        if len(secret) >= _WHOLE_BELOW:
            text = text.replace(secret, MASK)
        else:
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", MASK, text)
    return text


def store_path(url: str) -> str | None:
    """The filesystem path in a ``file:`` or ``sqlite:`` store URL, if it has one."""
    scheme, sep, rest = url.partition(":")
    if not sep or scheme not in ("file", "sqlite"):
        return None
    rest = rest.split("?", 1)[0]
    if rest.startswith("//"):
        rest = rest[2:]
    return rest or None


def public_store_url(url: str) -> str:
    """``url`` (credentials already masked) fit for a client: a ``file:`` or ``sqlite:``
    store's path is ``<store>`` (``file:<store>?durability=process``), as in error
    messages; any other absolute path in it (a socket directory) is ``<path>``."""
    if store_path(url):
        scheme = url.partition(":")[0]
        query = url.partition("?")[2]
        return f"{scheme}:<store>" + (f"?{query}" if query else "")
    return _ABSOLUTE.sub("<path>", url)


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
    _skills_roots[:] = []
    if store_url:
        path = store_path(store_url)
        if path:
            roots.append((str(Path(path).resolve()), "<store>"))
            roots.append((path, "<store>"))
        _secrets = url_secrets(store_url)
    for root in skills_roots:
        roots.append((str(Path(root).resolve()), "<skills>"))
        roots.append((str(root), "<skills>"))
        _skills_roots.extend(dict.fromkeys((str(Path(root).resolve()), str(root))))
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


def public_path(path: object, roots: Iterable[Path | str] = ()) -> str | None:
    """A path a skill store answered with, fit for a client: relative to the skills root
    it is in (``demo-sk``, ``demo-sk/references/api.md``), ``None`` (left out) when it is
    absolute but in no skills root (``roots``, or the ones :func:`configure` named)."""
    if not isinstance(path, str) or not os.path.isabs(path):
        return path if isinstance(path, str) else None
    for root in (*(str(r) for r in roots), *_skills_roots):
        try:
            relative = os.path.relpath(path, root)
        except ValueError:  # pragma: no cover - another drive (Windows)
            continue
        if relative != ".." and not relative.startswith(("../", "..\\")):
            return Path(relative).as_posix()
    return None


def _set_path(holder: dict[str, Any], roots: Iterable[Path | str]) -> None:
    if "path" in holder:
        public = public_path(holder["path"], roots)
        if public is None:
            del holder["path"]
        else:
            holder["path"] = public


def public_session(payload: Any) -> Any:
    """A session payload (``get_session``'s) with ``metadata.skillSource.path`` made
    :func:`public_path` (a session's provenance records the skill's directory)."""
    metadata = payload.get("metadata") if isinstance(payload, dict) else None
    if isinstance(metadata, dict) and isinstance(metadata.get("skillSource"), dict):
        source = metadata["skillSource"] = dict(metadata["skillSource"])
        _set_path(source, ())
    return payload


def public_envelope(data: dict[str, Any], roots: Iterable[Path | str] = ()) -> dict[str, Any]:
    """A skill store's envelope fit for a client: on success its ``path`` and the
    ``path`` of each ``skills[]`` / ``broken[]`` entry made :func:`public_path`; on
    failure every text in it :func:`scrub`-bed (an error may quote an absolute path)."""
    roots = tuple(roots)
    if data.get("success") is False:
        scrubbed: dict[str, Any] = _scrub_values(data)
        return scrubbed
    data = dict(data)
    _set_path(data, roots)
    for key in ("skills", "broken"):
        entries = data.get(key)
        if isinstance(entries, list):
            data[key] = entries = [dict(e) if isinstance(e, dict) else e for e in entries]
            for entry in entries:
                if isinstance(entry, dict):
                    _set_path(entry, roots)
    return data


def _scrub_values(value: Any) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: _scrub_values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_values(v) for v in value]
    return value
