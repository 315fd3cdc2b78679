"""The results file: one JSON line per finished episode, written as it finishes.

Each line holds every setting of the episode (benchmark, runtime, policy, model and
endpoint without secrets, seed, T, noise, drift, retries, parse and summary modes,
sampling options, skillstate version) and its measurements (score, calls, prompt
sizes in characters, our tokenizer's estimate and the endpoint's reported usage,
failures by category and kind, repairs, recovery, the prompt size of every call).

A line is written with one ``write`` and flushed to disk before the next episode is
reported, so an interrupted run loses at most the episodes still running. A last line
without its newline (the process died while writing it) is not an episode: reading
ignores it and :meth:`ResultsFile.open_for_append` cuts it off before appending.
:func:`episode_key` says which finished line an episode of a new run would repeat
(``--resume`` skips those).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

__all__ = ["KEY_FIELDS", "ResultsError", "ResultsFile", "episode_key", "read_results"]

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


class ResultsError(Exception):
    """A results file that cannot be read (the message names the file and line)."""


def episode_key(settings: Mapping[str, Any]) -> str:
    """The episode's identity: its :data:`KEY_FIELDS`, as canonical JSON."""
    return json.dumps([settings.get(k) for k in KEY_FIELDS], separators=(",", ":"))


def read_results(path: Path) -> list[dict[str, Any]]:
    """Every complete line of ``path`` (a torn last line is ignored)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(f"no results file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultsError(f"cannot read {path}: {exc}") from None
    lines = text.split("\n")
    complete = lines[:-1]  # the part after the last newline is empty or torn
    runs = []
    for number, line in enumerate(complete, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise ResultsError(f"{path}, line {number}: not a JSON line ({exc})") from None
        if not isinstance(value, dict) or "runtime" not in value or "score" not in value:
            raise ResultsError(f"{path}, line {number}: not a skillstate bench episode")
        runs.append(value)
    return runs


class ResultsFile:
    """Append-only JSONL results, one line per episode, durable before the next is reported."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: TextIO | None = None

    def exists(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0

    def open_for_append(self) -> list[dict[str, Any]]:
        """Open for appending; return the episodes already there (a torn last line is cut off)."""
        done: list[dict[str, Any]] = []
        if self.path.exists():
            done = read_results(self.path)
            data = self.path.read_bytes()
            keep = data.rfind(b"\n") + 1
            if keep < len(data):
                with self.path.open("r+b") as handle:
                    handle.truncate(keep)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = self.path.open("a", encoding="utf-8")
        return done

    def append(self, record: Mapping[str, Any]) -> None:
        assert self._handle is not None, "open_for_append first"
        self._handle.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
