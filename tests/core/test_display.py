"""skillstate.display: bounded, printable excerpts (credential masking: test_masking.py)."""

from __future__ import annotations

from skillstate.display import MAX_ECHO, excerpt, printable
from skillstate.records import MAX_MESSAGE, Problem


def test_excerpt_bounds_and_escapes() -> None:
    huge = "k" * 50_000_000
    shown = excerpt(huge)
    assert len(shown) < MAX_ECHO + 40 and shown.endswith("… (50,000,000 characters)")
    assert excerpt("a\ud800b\x07") == "a\\ud800b\\x07"
    assert printable("tab\tand\nnewline") == "tab\tand\nnewline"
    excerpt("x\udcff").encode("utf-8")  # always encodable


def test_problems_are_bounded_whoever_builds_them() -> None:
    problem = Problem("guard", "m" * 10 * MAX_MESSAGE, "p" * 10_000 + "\ud800")
    assert len(problem.message) < MAX_MESSAGE + 40
    assert len(problem.path) < 250
    problem.path.encode("utf-8")


def test_c1_controls_and_bidi_overrides_are_escaped_marks_kept() -> None:
    assert printable("a\x9b31m\x85b\u202ec\u2066d") == "a\\x9b31m\\x85b\\u202ec\\u2066d"
    assert printable("שלום\u200fabc é→😀") == "שלום\u200fabc é→😀"  # a mark reorders nothing
    assert excerpt("\x1b]0;title\x07") == "\\x1b]0;title\\x07"
