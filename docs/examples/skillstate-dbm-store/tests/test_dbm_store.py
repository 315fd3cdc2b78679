"""The dbm store passes skillstate's store conformance suite, unchanged."""

from __future__ import annotations

import pytest
from skillstate_dbm_store import parse_dbm_url
from skillstate_testing import StoreConformance, make_host

from skillstate.plugin import StoreError


class TestDbmStore(StoreConformance):
    """Every guarantee of the store contract, run against ``dbm:``."""

    @pytest.fixture
    def store_url(self, tmp_path):
        return f"dbm:{tmp_path}/runs"  # a fresh, empty database per test


def test_the_scheme_is_registered_by_the_installed_plugin():
    host = make_host()
    assert host.stores.get("dbm").description.startswith("one standard-library dbm")
    host.close()


@pytest.mark.parametrize("url", ["dbm:", "dbm://", "dbm:/tmp/dir/"])
def test_a_url_without_a_file_name_is_refused(url):
    with pytest.raises(StoreError, match="expected dbm:/path/to/database"):
        parse_dbm_url(url)


def test_runs_survive_reopening(tmp_path):
    from skillstate_testing import sample_skill

    from skillstate.plugin import Change, create_run, transition

    url = f"dbm://{tmp_path}/runs"
    host = make_host(url)
    store = host.open_store()
    skill = sample_skill()
    assert create_run(host, store, skill, "r1", {"counter": 1}).accepted
    assert transition(host, store, "r1", Change(patch={"counter": 2}), skill=skill).accepted
    host.close()

    again = make_host(url)
    record = again.open_store().get("r1")
    assert (record.version, record.state["counter"]) == (2, 2)
    again.close()
