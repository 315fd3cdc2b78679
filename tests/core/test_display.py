"""skillstate.display: bounded excerpts and credential masking (one module for every surface)."""

from __future__ import annotations

import pytest

from skillstate.display import MAX_ECHO, excerpt, mask_url, printable, scrub, secrets_of
from skillstate.records import MAX_MESSAGE, Problem


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:pw@db:5432/x", "postgresql://u:***@db:5432/x"),
        (
            "postgresql://u@db/x?password=s3cr%26t&sslmode=require",
            "postgresql://u@db/x?password=***&sslmode=require",
        ),
        (
            "postgresql://u:pw@db/x?PassWord=two&schema=s",
            "postgresql://u:***@db/x?PassWord=***&schema=s",
        ),
        ("postgresql://u:p@ss@db/x", "postgresql://u:***@db/x"),
        ("postgresql://db/x?sslpassword=k", "postgresql://db/x?sslpassword=***"),
        ("file:/srv/state", "file:/srv/state"),
        ("sqlite:///tmp/x.db?timeout=3", "sqlite:///tmp/x.db?timeout=3"),
        ("memory:", "memory:"),
        ("http://[::1", "http:…"),
    ],
)
def test_mask_url_hides_both_forms_of_password(url: str, shown: str) -> None:
    assert mask_url(url) == shown


def test_secrets_of_and_scrub_remove_a_password_from_any_text() -> None:
    url = "postgresql://u:hunter22@db/x?password=sw0rdfish"
    assert secrets_of(url) == ("hunter22", "sw0rdfish")
    text = f"cannot connect to {url}: password hunter22 refused"
    assert "hunter22" not in scrub(text, secrets_of(url))
    assert "sw0rdfish" not in scrub(text, secrets_of(url))
    assert scrub("nothing to hide", ()) == "nothing to hide"


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
