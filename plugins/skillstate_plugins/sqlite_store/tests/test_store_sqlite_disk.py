"""The SQLite store on a real full disk and a real read-only filesystem (a small tmpfs).

Before issue 16, a full disk was reported as "cannot open … disk I/O error", and a
database on a read-only filesystem (or a full disk) could not even be read.
"""

from __future__ import annotations

from typing import Any

import pytest
from skillstate_testing import SmallFilesystem, make_host, run_command

from skillstate.plugin import StoreError, create_run


def _store_with_a_run(fs: SmallFilesystem) -> str:
    url = f"sqlite:///{fs.path}/db/runs.db"
    host = make_host(url)
    skill = host.skill("rig-task")
    assert create_run(host, host.open_store(), skill, "r1", {"nextAction": "one"}).accepted
    host.close()
    return url


def _reopened(url: str) -> Any:
    return make_host(url).open_store()


def test_a_full_disk_is_said_and_the_runs_stay_readable(small_fs: SmallFilesystem) -> None:
    url = _store_with_a_run(small_fs)
    small_fs.fill()
    store = _reopened(url)
    assert store.get("r1").state["nextAction"] == "one"
    assert [s.id for s in store.list()] == ["r1"]
    record = store.get("r1")
    with pytest.raises(StoreError, match=r"the disk is full") as caught:
        store.commit(record, store.journal("r1")[0], expected_version=1)
    assert "nothing was changed" in str(caught.value)
    store.close()
    small_fs.free()
    assert _reopened(url).get("r1").version == 1


def test_a_new_database_on_a_full_disk_says_disk_full(small_fs: SmallFilesystem) -> None:
    small_fs.fill()
    with pytest.raises(StoreError, match=r"^cannot open SQLite database .*: the disk is full"):
        _reopened(f"sqlite:///{small_fs.path}/fresh/runs.db").list()


def test_a_read_only_database_can_be_read_and_refuses_writes(small_fs: SmallFilesystem) -> None:
    url = _store_with_a_run(small_fs)
    small_fs.read_only()
    try:
        listed = run_command("skillstate", "--store", url, "list")
        assert listed.returncode == 0 and listed.stdout.startswith("r1\trig-task"), listed.stderr
        shown = run_command("skillstate", "--store", url, "get", "r1", "--field", "nextAction")
        assert (shown.returncode, shown.stdout) == (0, "one\n")
        patched = run_command(
            "skillstate", "--store", url, "patch", "r1", "--json", '{"nextAction":"two"}'
        )
        assert patched.returncode == 3 and "Traceback" not in patched.stderr
        assert patched.stderr.startswith("skillstate: cannot write SQLite database ")
    finally:
        small_fs.writable()
    assert _reopened(url).get("r1").state["nextAction"] == "one"
