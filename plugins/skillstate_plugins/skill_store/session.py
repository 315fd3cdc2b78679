"""From a stored skill to a session's frozen spec P.

:func:`session_spec` reads one skill (level 2) and freezes what a session needs:
the SKILL.md body as P, the sha256 of SKILL.md's bytes (recorded in the session so
anyone can tell which version of the skill it ran), and the frontmatter's
``skillstate-skill`` / ``skillstate-environment`` names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from skillstate_plugins.skill_store.results import SkillError

if TYPE_CHECKING:
    from skillstate.config import Config
    from skillstate_plugins.skill_store.store import SkillStore

__all__ = ["SessionSpec", "session_spec"]


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

    def meta(self) -> dict[str, Any]:
        """The provenance a session records: ``{"skill_store": {name, sha256, source, path}}``."""
        return {
            "skill_store": {
                "name": self.name,
                "sha256": self.sha256,
                "source": self.source,
                "path": self.path,
            }
        }


def session_spec(
    name: str, store: SkillStore | None = None, config: Config | None = None
) -> SessionSpec | SkillError:
    """The spec P of a session started from the stored skill ``name`` (or the store's error).

    ``store`` defaults to :meth:`SkillStore.from_config` of ``config`` (default: the
    current directory's configuration).
    """
    if store is None:
        from skillstate_plugins.skill_store.store import SkillStore

        store = SkillStore.from_config(config)
    view = store.view(name)
    if isinstance(view, SkillError):
        return view
    return SessionSpec(
        name=view.name,
        body=view.body,
        sha256=view.sha256,
        frontmatter=dict(view.frontmatter),
        source=view.source,
        path=view.path,
        skill_definition=view.skill_definition,
        environment=view.environment,
    )
