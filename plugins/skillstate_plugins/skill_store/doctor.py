"""``skillstate doctor`` findings of the skill store: broken skills and cut descriptions.

A broken skill (``SkillListing.broken``) is a ``warn``: it is not offered to a model.
A description over the Agent Skills format's 1,024 characters is a ``nit``: the
listing shows its first 1,021 characters and ``...``.
"""

from __future__ import annotations

from pathlib import Path

from skillstate.plugin import DoctorFinding

from .reading import MAX_LISTED_DESCRIPTION

__all__ = ["skill_findings"]


def skill_findings(root: Path) -> list[DoctorFinding]:
    """The findings for the skill store of the project at ``root``."""
    from skillstate.plugin.cli import load_config

    from .store import SkillStore

    listing = SkillStore.from_config(load_config(root)).list()
    findings = [
        DoctorFinding(
            "skills",
            "warn",
            f"skill '{skill.name}' ({skill.source}) is broken, so it cannot be used: {skill.reason}",
            f"fix its SKILL.md ({skill.path}/SKILL.md), then check with `skillstate skills "
            f"view {skill.name}`",
        )
        for skill in listing.broken
    ]
    findings.extend(
        DoctorFinding(
            "skills",
            "nit",
            f"skill '{skill.name}' ({skill.source}): its description is "
            f"{skill.description_chars:,} characters; listings show the first "
            f"{MAX_LISTED_DESCRIPTION - 3:,} and '...' (the Agent Skills limit is "
            f"{MAX_LISTED_DESCRIPTION:,})",
            f"shorten the description in {skill.path}/SKILL.md to {MAX_LISTED_DESCRIPTION:,} "
            "characters",
        )
        for skill in listing.skills
        if skill.description_chars > MAX_LISTED_DESCRIPTION
    )
    return findings
