"""Each disclosure level costs only what it opens: listing 1,000 skills never reads a body.

The cost is measured from outside the store: Linux counts every byte a process
gets from read(2) in /proc/self/io (``rchar``). The bodies are sparse 900 KB tails,
so reading them would cost ~900 MB; the listing must stay within a few KB per skill.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .. import SkillStore, SkillView
from .skills_support import skill_text

SKILLS = 1000
TAIL = 900_000
PROC_IO = Path("/proc/self/io")


def bytes_read() -> int:
    for line in PROC_IO.read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> SkillStore:
    root = tmp_path_factory.mktemp("disclosure") / "project"
    for index in range(SKILLS):
        name = f"skill-{index:04d}"
        directory = root / name
        directory.mkdir(parents=True)
        with open(directory / "SKILL.md", "wb") as handle:
            handle.write(skill_text(name, f"Skill number {index}", "# Body\n").encode())
            handle.truncate(handle.tell() + TAIL)  # a sparse body: costs no disk, but reads
    return SkillStore(root, use_yaml=False)


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not PROC_IO.exists(), reason="needs Linux /proc/self/io"
)
def test_listing_reads_frontmatter_only(big_store: SkillStore) -> None:
    before = bytes_read()
    listing = big_store.list()
    cost = bytes_read() - before
    assert len(listing.skills) == SKILLS
    assert listing.skills[7].description == "Skill number 7"
    # Each SKILL.md is read in one 1 KiB chunk; reading the bodies would cost ~900 MB.
    assert cost < SKILLS * 4096, cost
    # The meter does see reads: viewing three skills costs their whole files.
    before = bytes_read()
    for name in ("skill-0001", "skill-0500", "skill-0999"):
        assert isinstance(big_store.view(name), SkillView)
    assert bytes_read() - before >= 3 * TAIL


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not PROC_IO.exists(), reason="needs Linux /proc/self/io"
)
def test_view_does_not_open_support_files(big_store: SkillStore) -> None:
    directory = big_store.project / "skill-0002"
    (directory / "assets").mkdir()
    with open(directory / "assets" / "huge.bin", "wb") as handle:
        handle.truncate(50_000_000)
    before = bytes_read()
    result = big_store.view("skill-0002")
    cost = bytes_read() - before
    assert isinstance(result, SkillView) and result.linked_files == ("assets/huge.bin",)
    assert cost < TAIL + 100_000, cost
