"""``export_chunks``: ``skillstate export``'s bytes read a page of the journal at a time,
and nothing at all for a record its journal does not replay to."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from skillstate_testing import make_host

from skillstate.errors import StoreError
from skillstate.exports import dump_export, export_chunks
from skillstate.pipeline import Change, create_run, transition


@pytest.mark.parametrize("kind", ["memory", "file"])
def test_the_pieces_are_dump_export_and_a_bad_record_gets_none(tmp_path: Path, kind: str) -> None:
    host = make_host("memory:" if kind == "memory" else f"file:{tmp_path}/state")
    store = host.open_store()
    rig = host.skill("rig-task")
    create_run(host, store, rig, "r1", {})
    for n in range(2, 30):
        outcome = transition(host, store, "r1", Change(patch={"tests": {"pass": n}}), skill=rig)
        assert outcome.accepted, outcome.problems
    record = store.get("r1")
    whole = dump_export(record, store.journal("r1"), "NOW")
    for page in (1, 7, 29, 256):
        pieces = list(export_chunks(store, record, "NOW", host.merge, page=page))
        assert "".join(pieces) == whole and len(pieces) == 2 + -(-29 // page)
    forged = attrs.evolve(record, state={**record.state, "tests": {"pass": -1}})
    with pytest.raises(StoreError, match="does not replay to its record"):
        next(export_chunks(store, forged, "NOW", host.merge))
    ahead = attrs.evolve(record, version=record.version + 1)
    with pytest.raises(StoreError, match="does not hold versions"):
        next(export_chunks(store, ahead, "NOW", host.merge))
    host.close()
