"""skillstate.masking: store URLs shown without their passwords, secrets taken out of texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillstate.masking import mask_secrets, mask_url, url_secrets


@pytest.mark.parametrize(
    ("url", "shown", "secrets"),
    [
        ("file:/srv/state", "file:/srv/state", ()),
        ("sqlite:/x.db?timeout=3", "sqlite:/x.db?timeout=3", ()),
        ("postgresql://app:s3cret@db/app", "postgresql://app:***@db/app", ("s3cret",)),
        (
            "postgresql://app@db/app?sslmode=require&password=s3cret",
            "postgresql://app@db/app?sslmode=require&password=***",
            ("s3cret",),
        ),
        (
            "postgres://u:p%40ss@h:5432/d?PassWord=x%2By&token=t",
            "postgres://u:***@h:5432/d?PassWord=***&token=***",
            ("p%40ss", "p@ss", "x%2By", "x+y", "t"),
        ),
        ("postgresql://u:p@ss@h/d", "postgresql://u:***@h/d", ("p@ss", "ss")),
        # found by a new user's walk: a password with an unescaped # ? or /, and no //
        ("postgresql://u:sec#ret@h:1/db", "postgresql://u:***@h:1/db", ("sec#ret", "sec", "ret")),
        ("postgresql://u:a?b/c@h/db", "postgresql://u:***@h/db", ("a?b/c",)),
        ("postgres:u:secret@h:1/db", "postgres:u:***@h:1/db", ("secret",)),
        ("postgresql://h:5432/db?email=a@b", "postgresql://h:5432/db?email=a@b", ()),
        ("postgresql://[::1]:5432/d?password=z", "postgresql://[::1]:5432/d?password=***", ("z",)),
        ("host=h password='a b' dbname=x", "host=h password=*** dbname=x", ("a b",)),
        ("postgresql://u:@h/d", "postgresql://u:@h/d", ()),
    ],
)
def test_mask_url(url: str, shown: str, secrets: tuple[str, ...]) -> None:
    assert mask_url(url) == shown
    assert set(url_secrets(url)) == set(secrets)


def test_mask_secrets_long_everywhere_short_only_alone() -> None:
    assert mask_secrets("x hunter22secret y hunter22secretz", ["hunter22secret"]) == "x *** y ***z"
    assert mask_secrets("pw: pw, upwards", ["pw"]) == "***: ***, upwards"
    assert mask_secrets("nothing", []) == "nothing"


def test_a_long_argument_is_searched_once_and_a_long_store_url_fails_in_one_line(
    tmp_path: Path,
) -> None:
    """The option search tries each run of name characters once: a 1,000,000-character
    text without ``=`` is one pass (it took minutes when every position was a start).
    Through the CLI, a long ``--store`` is one error line, at once."""
    import subprocess
    import sys

    text = "x1" * 500_000
    assert url_secrets(text) == () and mask_url(text) == text
    assert url_secrets("1token=t .secret=z xpassword=q") == ("t", "z")  # as before the change
    done = subprocess.run(
        [str(Path(sys.executable).parent / "skillstate"), "--store", "x" * 120_000, "list"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=30,  # a hang guard, not a measurement: before, this took about 45 s
        check=False,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_masked_url_quoted_in_a_message_keeps_its_closing_quote() -> None:
    """The word's trailing ``':`` was taken for part of the password and masked with it
    (``'sqlite:///x.db?password=*** unknown option``), a new user's walk."""
    from skillstate.masking import mask_written_urls

    text = "bad SQLite URL 'sqlite:///x.db?password=pw': unknown option 'password'"
    assert mask_written_urls(text) == (
        "bad SQLite URL 'sqlite:///x.db?password=***': unknown option 'password'"
    )
