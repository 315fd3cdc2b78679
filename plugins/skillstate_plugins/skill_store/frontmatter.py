"""SKILL.md frontmatter: read leniently, write strictly.

Read path (:func:`parse_frontmatter`), the Hermes rules:

1. one leading BOM (``\\ufeff``) is dropped;
2. no opening ``---`` → ``({}, text)``, the whole (BOM-stripped) text is the body;
3. the closing fence is the first ``\\n---\\s*\\n`` after the opening three dashes;
   none → ``({}, text)`` ("unclosed"); blank lines right after the fence are consumed;
4. the frontmatter source is parsed with PyYAML's safe loader (PyYAML is a dependency
   of skillstate, so every install reads a SKILL.md the same way: ``description: >``
   is the folded text, ``metadata:`` a mapping); a parse *exception* (broken YAML)
   falls back to step 5, as the source does; a result that is not a mapping gives ``{}``;
   an alias (``*name``) is refused before anything is built, as are maps and lists
   nested more than :data:`MAX_DEPTH` deep (:class:`HeaderProblem`: the skill is broken);
5. the flat parser: lines without ``:`` are skipped, each other line is split at its
   first ``:``, both halves stripped, a later key wins, every value stays a string
   (quotes are kept, ``[a, b]`` stays text, a ``: x`` line gives the key ``""``).

Write path (:func:`check_content`): the same fence rules, then every unindented
non-blank line must be a ``key: value`` pair with a plain key, keys must be unique,
``name`` and ``description`` must be present. Indented lines continue the key above
them (a nested ``metadata:`` map, a list, a ``>`` or ``|`` block scalar, as the Agent
Skills specification allows); the frontmatter must then be valid YAML, and its values
are YAML's.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

__all__ = [
    "BOM",
    "CLOSING_FENCE",
    "ENVIRONMENT_KEY",
    "SKILL_KEY",
    "HeaderProblem",
    "check_content",
    "parse_flat",
    "parse_frontmatter",
    "parse_source",
    "split_frontmatter",
    "yaml_available",
]

BOM = "\ufeff"
CLOSING_FENCE = re.compile(r"\n---\s*\n")
"""The closing fence, searched in ``text[3:]``: a newline, three dashes, optional blanks, a newline."""

SKILL_KEY = "skillstate-skill"
"""Frontmatter key naming the skillstate skill definition (schema, guards) a session uses."""

ENVIRONMENT_KEY = "skillstate-environment"
"""Frontmatter key naming the skillstate environment a session uses."""

_KEY_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@cache
def _yaml_loader() -> tuple[Any, Any] | None:
    """``(yaml, its safe loader)``, imported on first use; ``None`` without PyYAML.

    PyYAML is a dependency (pyproject.toml); a broken install falls back to the flat
    parser. It is imported here, not at module import, so a process that never reads
    a SKILL.md (``skillstate mcp`` until a skill tool is called) does not load it
    (~0.7 MiB of resident memory).
    """
    try:
        yaml = importlib.import_module("yaml")
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    return yaml, getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


class HeaderProblem(ValueError):
    """A write-path frontmatter error; ``str(exc)`` is the user-facing message."""


def yaml_available() -> bool:
    """Whether PyYAML is importable (the read path then tries it first)."""
    return _yaml_loader() is not None


def split_frontmatter(text: str) -> tuple[str, str, int] | None:
    """``(source, body, header_end)`` of a BOM-stripped text, or ``None`` when unfenced or unclosed.

    ``source`` is the text between the fences, ``body`` everything after the closing
    fence (and the blank lines it consumes), ``header_end`` the index where the body starts.
    """
    if not text.startswith("---"):
        return None
    match = CLOSING_FENCE.search(text, 3)
    if match is None:
        return None
    return text[3 : match.start()], text[match.end() :], match.end()


def parse_flat(source: str) -> dict[str, str]:
    """The flat ``key: value`` parser (Hermes' scalar fallback), exactly."""
    result: dict[str, str] = {}
    for line in source.strip().split("\n"):
        if ":" not in line:
            continue
        key, _, value = line.partition(":")
        result[key.strip()] = value.strip()
    return result


MAX_DEPTH = 32
"""The deepest nesting of maps and lists a frontmatter value may have (``metadata:`` is 2)."""

ALIAS_PROBLEM = (
    "uses a YAML alias ('*name'); SKILL.md frontmatter may not use aliases: write the value out"
)
"""Why a frontmatter with an alias is refused (after ``Frontmatter line N ``)."""

DEPTH_PROBLEM = f"Frontmatter nests maps and lists more than {MAX_DEPTH} levels deep."


def _refuse_aliases(yaml: Any, loader: Any, source: str) -> None:
    """:class:`HeaderProblem` when ``source`` uses a YAML alias, found in PyYAML's event
    stream (``yaml.parse``) before anything is constructed: an alias can expand a few
    hundred bytes into gigabytes (nested aliases, "billion laughs") or into a cycle
    (``x: &a [*a]``). Published skills use none. Broken YAML is left to the loader."""
    if "*" not in source:  # every alias is written '*name'
        return
    try:
        for event in yaml.parse(source, Loader=loader):
            if isinstance(event, yaml.AliasEvent):
                line = event.start_mark.line + 1 if event.start_mark is not None else 1
                raise HeaderProblem(f"Frontmatter line {line} {ALIAS_PROBLEM}.")
    except yaml.YAMLError:
        return


def _jsonable(value: Any, depth: int = 0) -> Any:
    """A YAML value made JSON-compatible (dates and other scalars become strings);
    :class:`HeaderProblem` past :data:`MAX_DEPTH` levels of maps and lists."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping | list | tuple) and depth >= MAX_DEPTH:
        raise HeaderProblem(DEPTH_PROBLEM)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v, depth + 1) for v in value]
    return str(value)


def _load(yaml: Any, loader: Any, source: str) -> Any:
    """``source`` read by the safe loader, aliases refused first (:func:`_refuse_aliases`)."""
    _refuse_aliases(yaml, loader, source)
    return yaml.load(source, Loader=loader)  # a safe loader (CSafeLoader or SafeLoader)


def parse_source(source: str, *, use_yaml: bool | None = None) -> dict[str, Any]:
    """Parse the text between the fences: PyYAML first when installed (and not ``use_yaml=False``).

    Raises :class:`HeaderProblem` for valid YAML skillstate refuses to read: an alias
    (``*name``), or maps and lists nested more than :data:`MAX_DEPTH` levels deep.
    """
    found = _yaml_loader() if use_yaml is not False else None
    if found is not None:
        yaml, loader = found
        try:
            loaded = _load(yaml, loader, source)
        except HeaderProblem:
            raise
        except Exception:
            return parse_flat(source)
        if isinstance(loaded, Mapping):
            return {str(k): _jsonable(v) for k, v in loaded.items()}
        return {}
    return parse_flat(source)


def parse_frontmatter(text: str, *, use_yaml: bool | None = None) -> tuple[dict[str, Any], str]:
    """``(frontmatter, body)`` by the lenient read rules (module docstring).

    ``use_yaml=None`` tries PyYAML when it is installed; ``False`` forces the flat
    parser (whose results are always strings); ``True`` without PyYAML is the flat parser too.
    Frontmatter YAML that skillstate refuses (an alias, too deep) raises :class:`HeaderProblem`.
    """
    if text.startswith(BOM):
        text = text[1:]
    parts = split_frontmatter(text)
    if parts is None:
        return {}, text
    source, body, _ = parts
    return parse_source(source, use_yaml=use_yaml), body


def _nested_fields(source: str) -> dict[str, Any]:
    """The YAML reading of a frontmatter with nested values (indented lines), or a problem."""
    found = _yaml_loader()
    if found is None:  # pragma: no cover - PyYAML is a dependency; a broken install
        raise HeaderProblem("Frontmatter with indented lines needs PyYAML, which is not installed.")
    yaml, loader = found
    try:
        loaded = _load(yaml, loader, source)
    except HeaderProblem:
        raise
    except Exception as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())[:200]
        if mark is not None:  # the source starts after the opening '---' (line 1)
            raise HeaderProblem(
                f"Frontmatter line {mark.line + 1} is not a 'key: value' pair (YAML: {problem})."
            ) from None
        raise HeaderProblem(f"YAML frontmatter parse error: {problem}") from None
    if not isinstance(loaded, Mapping):
        raise HeaderProblem("Frontmatter must be a YAML mapping (key: value pairs).")
    return {str(k): _jsonable(v) for k, v in loaded.items()}


def check_content(content: str) -> tuple[dict[str, Any], str]:
    """Validate a SKILL.md text for writing; ``(frontmatter, body)`` or :class:`HeaderProblem`.

    Messages, in order: empty content, no opening fence, unclosed, a line that is not a
    ``key: value`` pair (line numbers count the opening fence as line 1), a repeated key,
    missing ``name`` / ``description``, a description over 1,024 characters, an empty body.
    The name/directory and size checks belong to the store.
    """
    if not content.strip():
        raise HeaderProblem("Content cannot be empty.")
    text = content[1:] if content.startswith(BOM) else content
    if not text.startswith("---"):
        raise HeaderProblem(
            "SKILL.md must start with YAML frontmatter (---). See existing skills for format."
        )
    parts = split_frontmatter(text)
    if parts is None:
        raise HeaderProblem(
            "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line."
        )
    source, body, _ = parts
    fields: dict[str, Any] = {}
    lines = source.split("\n")
    if lines[0].strip():
        raise HeaderProblem("The opening '---' line of SKILL.md must contain nothing else.")
    nested = False
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        if line[0].isspace() and fields:  # continues the key above (checked as YAML below)
            nested = True
            continue
        key, colon, value = line.partition(":")
        if not colon or line[0].isspace() or not _KEY_RE.match(key.rstrip()):
            raise HeaderProblem(f"Frontmatter line {number} is not a 'key: value' pair.")
        key = key.rstrip()
        if key in fields:
            raise HeaderProblem(f"Frontmatter key '{key}' appears more than once.")
        fields[key] = value.strip()
    if nested:
        fields = _nested_fields(source)
    for required in ("name", "description"):
        if required not in fields:
            raise HeaderProblem(f"Frontmatter must include '{required}' field.")
    if nested and not all(isinstance(fields[k], str) for k in ("name", "description")):
        raise HeaderProblem("Frontmatter 'name' and 'description' must be text.")
    fields["description"] = str(fields["description"]).strip() if nested else fields["description"]
    if not fields["description"]:
        raise HeaderProblem(
            "Frontmatter 'description' must not be empty: say what the skill does and when to use it."
        )
    if len(fields["description"]) > 1024:
        raise HeaderProblem("Description exceeds 1024 characters.")
    if not body.strip():
        raise HeaderProblem(
            "SKILL.md must have content after the frontmatter (instructions, procedures, etc.)."
        )
    return fields, body
