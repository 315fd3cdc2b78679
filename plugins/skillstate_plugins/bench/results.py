"""The results file: one JSON line per finished episode, written as it finishes.

Each line holds every setting of the episode (benchmark, runtime, policy, model and
endpoint without secrets, seed, T, noise, drift, retries, parse and summary modes,
sampling options, skillstate version) and its measurements (score, calls, prompt
sizes in characters, our tokenizer's estimate and the endpoint's reported usage,
failures by category and kind, repairs, recovery, the prompt size of every call).

**Which episodes are the same experiment.** :data:`KEY_FIELDS` are the settings that
make two episodes the same; the two that only one runtime reads
(:data:`RUNTIME_ONLY`: ``window_chars`` for the sliding window, ``memory_summary`` for
Memory) count only for that runtime. :func:`episode_key` (``--resume`` skips a line
with the same key) and the report's and plot's settings (:func:`setting_of`: the key
without the seed) are this one definition.

**Reading.** :func:`load_results` checks every line — JSON, an object, the fields an
episode must have with the types they must have (:func:`episode_problem`), no episode
twice — and names the line of the first problem (:class:`ResultsError`). A last line
without its newline is kept when it is a whole episode (the process died after writing
it, before the newline) and otherwise reported as torn (``torn_bytes``), never read.

**Writing.** :meth:`ResultsFile.open_for_append` takes an exclusive lock on the file
for the whole sweep (a second writer is refused with one line), cuts a torn last line
off (:attr:`ResultsFile.cut_bytes` says how much) or ends a whole last episode with
its newline. A line is written with one ``write`` and flushed to disk before the next
episode is reported, so an interrupted run loses at most the episodes still running.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import attrs

__all__ = [
    "KEY_FIELDS",
    "RUNTIME_ONLY",
    "SETTING_FIELDS",
    "LoadedResults",
    "ResultsError",
    "ResultsFile",
    "effective_settings",
    "episode_key",
    "episode_problem",
    "load_results",
    "read_results",
    "setting_of",
]

KEY_FIELDS = (
    "benchmark",
    "runtime",
    "policy",
    "horizon",
    "seed",
    "noise",
    "noise_seed",
    "scenario",
    "drift_at",
    "retries",
    "env_retries",
    "window_chars",
    "strict_parse",
    "memory_summary",
    "endpoint",
    "temperature",
    "top_p",
    "max_tokens",
)
"""The settings that make two episodes the same experiment (``--resume`` matches on them)."""

SETTING_FIELDS = tuple(k for k in KEY_FIELDS if k != "seed")
"""An experiment's setting: the key without the seed (the report's groups)."""

RUNTIME_ONLY = {"window_chars": "window", "memory_summary": "memory"}
"""Settings only one runtime reads: for the others they are not part of the experiment."""


class ResultsError(Exception):
    """A results file that cannot be read or written (the message names the file and line)."""


def effective_settings(line: Mapping[str, Any]) -> dict[str, Any]:
    """The :data:`KEY_FIELDS` of ``line``, with :data:`RUNTIME_ONLY` ones ``None`` where unread."""
    runtime = line.get("runtime")
    return {
        k: None if k in RUNTIME_ONLY and runtime != RUNTIME_ONLY[k] else line.get(k)
        for k in KEY_FIELDS
    }


def episode_key(settings: Mapping[str, Any]) -> str:
    """The episode's identity: its effective :data:`KEY_FIELDS`, as canonical JSON."""
    found = effective_settings(settings)
    return json.dumps([found[k] for k in KEY_FIELDS], separators=(",", ":"))


def setting_of(line: Mapping[str, Any]) -> dict[str, Any]:
    """The experiment ``line`` belongs to: its effective settings without the seed."""
    found = effective_settings(line)
    return {k: found[k] for k in SETTING_FIELDS}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_CHECKS: dict[str, tuple[str, Any]] = {
    "text": ("a string", lambda v: isinstance(v, str)),
    "integer": ("an integer", _integer),
    "number": ("a number", _number),
    "boolean": ("true or false", lambda v: isinstance(v, bool)),
    "object": ("an object", lambda v: isinstance(v, dict)),
    "counts": (
        "an object of integer counts",
        lambda v: isinstance(v, dict) and all(_integer(n) for n in v.values()),
    ),
    "numbers": (
        "a list of numbers",
        lambda v: isinstance(v, list) and all(_number(n) for n in v),
    ),
}

_REQUIRED = {
    "benchmark": "text",
    "runtime": "text",
    "policy": "text",
    "horizon": "integer",
    "seed": "integer",
    "noise": "integer",
    "score": "number",
}
"""What every episode line has (``bench report`` and ``bench plot`` read them all)."""

_OPTIONAL = {
    "noise_seed": "integer",
    "scenario": "text",
    "drift_at": "integer",
    "retries": "integer",
    "env_retries": "integer",
    "window_chars": "integer",
    "strict_parse": "boolean",
    "memory_summary": "text",
    "endpoint": "text",
    "temperature": "number",
    "top_p": "number",
    "max_tokens": "integer",
    "successes": "integer",
    "total": "integer",
    "calls": "integer",
    "avg_prompt_chars": "number",
    "max_prompt_chars": "number",
    "total_prompt_chars": "number",
    "avg_prompt_tokens_est": "number",
    "max_prompt_tokens_est": "number",
    "total_prompt_tokens_est": "number",
    "usage_prompt_tokens": "number",
    "summary_calls": "integer",
    "summary_prompt_chars": "number",
    "summary_prompt_tokens_est": "number",
    "rejections": "counts",
    "repairs": "counts",
    "prompt_chars_per_call": "numbers",
    "recovery": "object",
}
"""What an episode line may have (``null`` or of this type)."""


def episode_problem(value: Any) -> str | None:
    """Why ``value`` is not an episode line (the first problem), or ``None``."""
    if not isinstance(value, dict):
        return "not a skillstate bench episode (not a JSON object)"
    for key, kind in _REQUIRED.items():
        if key not in value:
            return f"not a skillstate bench episode (no {key})"
        what, check = _CHECKS[kind]
        if not check(value[key]):
            return f"{key} must be {what}, got {json.dumps(value[key])[:60]}"
    for key, kind in _OPTIONAL.items():
        found = value.get(key)
        what, check = _CHECKS[kind]
        if found is not None and not check(found):
            return f"{key} must be {what} or null, got {json.dumps(found)[:60]}"
    recovery = value.get("recovery")
    if recovery is not None and not (
        isinstance(recovery.get("recovered"), bool)
        and (recovery.get("lag") is None or _integer(recovery.get("lag")))
        and _integer(recovery.get("stale_turns"))
    ):
        return "recovery must hold recovered (true/false), lag and stale_turns"
    return None


@attrs.frozen
class LoadedResults:
    """The episodes of a results file; ``torn_bytes`` — the size of a torn last line not read;
    ``needs_newline`` — the last episode is whole but its newline is missing."""

    runs: list[dict[str, Any]]
    torn_bytes: int = 0
    needs_newline: bool = False


def _parse(data: bytes, path: Path) -> LoadedResults:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResultsError(f"cannot read {path}: not UTF-8 text ({exc})") from None
    lines = text.split("\n")
    tail = lines.pop()  # empty when the file ends with its newline
    torn, needs_newline = 0, False
    if tail.strip():
        try:
            whole = episode_problem(json.loads(tail)) is None
        except ValueError:
            whole = False
        if whole:
            lines.append(tail)
            needs_newline = True
        else:
            torn = len(tail.encode("utf-8"))
    runs: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise ResultsError(f"{path}, line {number}: not a JSON line ({exc})") from None
        problem = episode_problem(value)
        if problem:
            raise ResultsError(f"{path}, line {number}: {problem}")
        key = episode_key(value)
        if key in seen:
            raise ResultsError(
                f"{path}, line {number}: the same episode (settings and seed) as line "
                f"{seen[key]}; a results file holds each episode once"
            )
        seen[key] = number
        runs.append(value)
    return LoadedResults(runs, torn, needs_newline)


def load_results(path: Path) -> LoadedResults:
    """Every episode of ``path``, checked line by line (see the module docstring)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ResultsError(f"no results file {path}") from None
    except OSError as exc:
        raise ResultsError(f"cannot read {path}: {exc.strerror or exc}") from None
    return _parse(data, path)


def read_results(path: Path) -> list[dict[str, Any]]:
    """The episodes of ``path`` (:func:`load_results` without the torn-line report)."""
    return load_results(path).runs


def _lock(handle: IO[bytes], path: Path) -> None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ResultsError(
            f"{path} is being written by another skillstate bench run; let it finish, "
            "or choose another --out"
        ) from None


class ResultsFile:
    """Append-only JSONL results, one line per episode, durable before the next is reported."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cut_bytes = 0
        self._handle: IO[bytes] | None = None

    def exists(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0

    def open_for_append(self) -> list[dict[str, Any]]:
        """Lock the file, mend its end, open it for appending; return the episodes already there.

        Raises :class:`ResultsError` when another run holds the lock, when the file
        cannot be read (naming the line) or opened.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle = self.path.open("a+b")
        except OSError as exc:
            raise ResultsError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        try:
            _lock(handle, self.path)
            handle.seek(0)
            data = handle.read()
            loaded = _parse(data, self.path)
            if loaded.torn_bytes:
                handle.truncate(len(data) - loaded.torn_bytes)
                self.cut_bytes = loaded.torn_bytes
            elif loaded.needs_newline:
                handle.write(b"\n")
            handle.flush()
        except BaseException:
            handle.close()
            raise
        self._handle = handle
        return loaded.runs

    def append(self, record: Mapping[str, Any]) -> None:
        assert self._handle is not None, "open_for_append first"
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._handle.write(text.encode("utf-8"))
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()  # releases the lock
            self._handle = None
