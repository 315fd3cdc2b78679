"""From a stored skill to a session's frozen spec P.

:meth:`SkillStore.session_spec <skillstate_plugins.skill_store.store.SkillStore.session_spec>`
reads one skill (level 2) and freezes what a session needs: the SKILL.md body as P, the
sha256 of SKILL.md's bytes (recorded in the session so anyone can tell which version of
the skill it ran), and the frontmatter's ``skillstate-skill`` / ``skillstate-environment``
names. The runtime reads it through :meth:`SessionSpec.to_dict` only (``docs/skills.md``,
"The skill store contract"), so another store may return any record with that envelope.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .results import SkillView

__all__ = ["SessionSpec"]


@attrs.frozen
class SessionSpec:
    """What a session takes from a stored skill (all of it frozen at the moment of reading)."""

    name: str
    body: str
    sha256: str
    frontmatter: Mapping[str, Any]
    source: str
    path: str
    skill_definition: str | None = None
    environment: str | None = None

    @classmethod
    def from_view(cls, view: SkillView) -> SessionSpec:
        """The spec of the skill ``view`` shows."""
        return cls(
            name=view.name,
            body=view.body,
            sha256=view.sha256,
            frontmatter=dict(view.frontmatter),
            source=view.source,
            path=view.path,
            skill_definition=view.skill_definition,
            environment=view.environment,
        )

    def provenance(self) -> dict[str, Any]:
        """What a session records as ``meta["skill_store"]``: name, sha256, source, path."""
        return {"name": self.name, "sha256": self.sha256, "source": self.source, "path": self.path}

    def to_dict(self) -> dict[str, Any]:
        """The contract's envelope: ``success``, ``body`` (P), ``skill_definition``,
        ``environment``, ``provenance`` (and ``frontmatter``)."""
        return {
            "success": True,
            "body": self.body,
            "skill_definition": self.skill_definition,
            "environment": self.environment,
            "provenance": self.provenance(),
            "frontmatter": dict(self.frontmatter),
        }
