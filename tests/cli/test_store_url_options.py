"""A store URL with a bad option is the caller's input: exit 2 and one line naming the
option, the same on every bundled store (``redis:``'s twin is in its own distribution's
tests). PostgreSQL is skipped when its server is missing, failed instead under CI=true."""

from __future__ import annotations

from pathlib import Path

import pytest
from skillstate_testing import STORE_KINDS, temporary_store_url
from support import run_skillstate as run


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_a_bad_store_url_option_is_a_usage_error(kind: str, tmp_path: Path) -> None:
    with temporary_store_url(kind, tmp_path) as url:
        joiner = "&" if "?" in url else "?"
        for option in ("durability=bogus", "bogus=1"):
            done = run("--store", f"{url}{joiner}{option}", "init", "rig-task", "r1", cwd=tmp_path)
            assert done.returncode == 2, (option, done.stderr)
            (line,) = done.stderr.splitlines()
            assert line.startswith("skillstate: ") and "bogus" in line, line
        assert not (tmp_path / "state").exists() and not (tmp_path / "runs.db").exists()
        good = run("--store", url, "init", "rig-task", "r1", cwd=tmp_path)  # the URL itself is fine
        assert good.returncode == 0, good.stderr
