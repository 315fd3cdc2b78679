"""skillstate.masking: store URLs shown without their passwords, secrets taken out of texts."""

from __future__ import annotations

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
        ("postgresql://u:p@ss@h/d", "postgresql://u:***@h/d", ("p@ss",)),
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
