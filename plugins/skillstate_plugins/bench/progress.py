"""Progress of a run on stderr: calls done, rate and ETA.

On a terminal it is one line redrawn in place (at most five times a second); anywhere
else (a log file, CI, a pipe) it degrades to one plain line per finished episode, so
nothing depends on carriage returns. ``off`` prints nothing. The ETA extrapolates the
call rate so far over the calls still expected (each remaining event costs at least
one call).
"""

from __future__ import annotations

import threading
import time
from typing import TextIO

__all__ = ["Progress", "format_duration"]


def format_duration(seconds: float) -> str:
    """``1:02:03``, ``4:05``, or ``?`` when unknown."""
    if seconds != seconds or seconds == float("inf") or seconds < 0:
        return "?"
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Counts calls and episodes; draws a bar (``mode="bar"``), plain lines (``"lines"``) or nothing."""

    def __init__(
        self, episodes: int, events: int, stream: TextIO, *, mode: str, clock: float | None = None
    ) -> None:
        self.episodes, self.events, self.stream, self.mode = episodes, max(events, 1), stream, mode
        self.started = time.monotonic() if clock is None else clock
        self.calls = self.done_episodes = self.done_events = 0
        self._open_events = 0  # events handled in episodes still running
        self._lock = threading.Lock()
        self._drawn = 0.0

    def _status(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.calls / elapsed
        handled = self.done_events + self._open_events
        left = max(self.events - handled, 0)
        per_event = self.calls / handled if handled else 1.0
        eta = left * per_event / rate if rate > 0 else float("nan")
        return (
            f"{self.done_episodes}/{self.episodes} episodes, {self.calls:,} calls, "
            f"{rate:,.1f} calls/s, ETA {format_duration(eta)}"
        )

    def call(self, advanced_event: bool) -> None:
        """One policy call finished (``advanced_event``: its event is done)."""
        with self._lock:
            self.calls += 1
            self._open_events += 1 if advanced_event else 0
            if self.mode == "bar" and time.monotonic() - self._drawn >= 0.2:
                self._draw()

    def _draw(self) -> None:
        self._drawn = time.monotonic()
        filled = int(30 * min(self.done_events + self._open_events, self.events) / self.events)
        bar = "#" * filled + "." * (30 - filled)
        self.stream.write(f"\r[{bar}] {self._status()}  ")
        self.stream.flush()

    def episode(self, events: int, handled: int, label: str) -> None:
        """An episode of ``events`` events finished (``handled`` of them counted by :meth:`call`)."""
        with self._lock:
            self.done_episodes += 1
            self.done_events += events
            self._open_events = max(self._open_events - handled, 0)
            if self.mode == "bar":
                self._draw()
            elif self.mode == "lines":
                self.stream.write(f"[bench] {self._status()} — {label}\n")
                self.stream.flush()

    def finish(self) -> None:
        if self.mode == "bar":
            with self._lock:
                self._draw()
                self.stream.write("\n")
                self.stream.flush()
