"""The skill store: SKILL.md directories under a project root and a user root.

Three levels of disclosure, each costing only what it opens:

- :meth:`SkillStore.list` — name, description and source of every skill, read
  from the frontmatter alone (at most the first 8 KiB of each SKILL.md, in 1 KiB
  chunks, stopping at the closing fence);
- :meth:`SkillStore.view` — one SKILL.md (body, frontmatter, sha256) and the
  names of its support files;
- :meth:`SkillStore.read` — one support file.

Writes (:mod:`.writes`) go to the project root only; :meth:`SkillStore.session_spec`
is what the runtime starts a session from. Every method returns a result record or a
:class:`~.results.SkillError` and never raises for bad input or a failing disk: the
skill store contract of ``docs/skills.md``, which another store may implement instead.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Protocol

from . import writes
from .frontmatter import ENVIRONMENT_KEY, SKILL_KEY, parse_frontmatter
from .fsio import HardLink, read_all, read_header, scan_header
from .paths import (
    MAX_FILE_BYTES,
    MAX_SKILL_CHARS,
    SUPPORT_DIRS,
    check_name,
    check_read_path,
    confine_read,
    is_valid_name,
    read_path,
)
from .reading import (
    SYMLINKED_SKILL,
    Probe,
    body_links,
    check_stored,
    describe_header,
    full_description,
    os_message,
    skill_files,
    string_value,
)
from .results import (
    BrokenSkill,
    SkillError,
    SkillFile,
    SkillListing,
    SkillMeta,
    SkillView,
    WriteResult,
)
from .session import SessionSpec

__all__ = ["MAX_FILE_BYTES", "MAX_SKILL_CHARS", "MAX_SKILL_READ_BYTES", "SkillStore"]

MAX_SKILL_READ_BYTES = 1_048_576
"""``view`` refuses a (hand-written) SKILL.md larger than this many bytes."""

SKILL_FILE = "SKILL.md"


class Config(Protocol):
    """What :meth:`SkillStore.from_config` reads of the configuration the host passes."""

    @property
    def root(self) -> Path: ...

    def get(self, key: str) -> Any: ...


class SkillStore:
    """Skills kept as directories: ``<root>/<name>/SKILL.md`` plus optional support directories.

    ``project`` is searched first and receives every write; ``user`` (optional) is
    searched second and is read-only through this class. ``use_yaml`` chooses the
    read-path parser: ``None`` tries PyYAML when installed, ``False`` always uses the
    flat parser.
    """

    def __init__(
        self,
        project: Path | str,
        user: Path | str | None = None,
        *,
        use_yaml: bool | None = None,
    ) -> None:
        self.project = Path(os.path.abspath(project))
        self.user = Path(os.path.abspath(user)) if user is not None else None
        self.use_yaml = use_yaml
        roots = [("project", self.project)]
        if self.user is not None and self.user != self.project:
            roots.append(("user", self.user))
        self.roots: tuple[tuple[str, Path], ...] = tuple(roots)

    @classmethod
    def from_config(cls, config: Config | None = None) -> SkillStore:
        """The store for the configuration's ``skills_path`` and ``user_skills_path``.

        Relative paths are taken from the configuration's project directory; ``~`` is
        expanded; an empty ``user_skills_path`` means no user root.
        """
        if config is None:
            from skillstate.plugin.cli import load_config

            config = load_config()

        def resolve(value: object) -> Path | None:
            text = str(value or "").strip()
            if not text:
                return None
            path = Path(os.path.expanduser(text))
            return path if path.is_absolute() else config.root / path

        project = resolve(config.get("skills_path")) or config.root / ".skillstate/skills"
        return cls(project, resolve(config.get("user_skills_path")))

    def __repr__(self) -> str:
        return f"SkillStore(project={str(self.project)!r}, user={str(self.user)!r})"

    # -- locating -------------------------------------------------------------------

    def probe(self, name: str) -> Probe:
        """The first root holding ``<name>/SKILL.md`` (even a broken one), or why none does.

        A skill directory that is a symbolic link is an ``error``: it would let reads and
        writes reach outside the skills root (:data:`SYMLINKED_SKILL`).
        """
        for source, root in self.roots:
            if os.path.islink(root / name):
                return Probe("error", source, root, SYMLINKED_SKILL)
            skill_md = root / name / SKILL_FILE
            try:
                os.stat(skill_md)
            except (FileNotFoundError, NotADirectoryError):
                if os.path.lexists(skill_md):
                    return Probe("error", source, root, "it is a dangling symlink")
                continue
            except OSError as exc:
                return Probe("error", source, root, os_message(exc))
            return Probe("found", source, root)
        return Probe("absent")

    def not_found(self, name: str, suffix: str = "") -> SkillError:
        """The reference's "not found" error, with up to 20 available names."""
        listing = self.list()
        names = [skill.name for skill in listing.skills][:20]
        return SkillError(
            "not-found",
            f"Skill '{name}' not found.{suffix}",
            {"available_skills": names, "hint": "Use skills_list to see all available skills"},
        )

    # -- level 1 --------------------------------------------------------------------

    def list(self) -> SkillListing:
        """Every readable skill's name, description and source, sorted by name, and the broken ones.

        Reads only frontmatter. Directories without a SKILL.md and hidden or badly named
        directories are skipped. A skill whose SKILL.md cannot be read or is broken (a
        symlinked directory, an unreadable file, broken frontmatter, a ``name`` that is
        not the directory's) is listed under ``broken`` with the reason ``view`` gives.
        A name found in the project root hides the same name in the user root, even when
        the project one is broken.
        """
        seen: set[str] = set()
        found: list[SkillMeta] = []
        broken: list[BrokenSkill] = []
        for source, root in self.roots:
            try:
                entries = sorted(os.listdir(root))
            except OSError:
                continue
            for entry in entries:
                if entry in seen or not is_valid_name(entry):
                    continue
                skill_dir = root / entry
                checked = self._list_one(entry, skill_dir)
                if checked is None:
                    continue
                seen.add(entry)
                if isinstance(checked, str):
                    broken.append(BrokenSkill(entry, source, str(skill_dir), checked))
                    continue
                text, chars = checked
                found.append(SkillMeta(entry, text, source, str(skill_dir), chars))
        found.sort(key=lambda meta: meta.name)
        broken.sort(key=lambda skill: skill.name)
        return SkillListing(tuple(found), tuple(broken))

    def _list_one(self, name: str, skill_dir: Path) -> tuple[str, int] | str | None:
        """``(listed description, its full length)``, the reason it is broken, or ``None``
        when the directory holds no SKILL.md."""
        if os.path.islink(skill_dir):  # refused (SYMLINKED_SKILL); it hides a user one
            return f"Skill '{name}' {SYMLINKED_SKILL}."
        try:
            header = read_header(skill_dir / SKILL_FILE)
        except (FileNotFoundError, NotADirectoryError):
            if os.path.lexists(skill_dir / SKILL_FILE):
                return f"SKILL.md of skill '{name}' cannot be read: it is a dangling symlink."
            return None
        except OSError as exc:
            return f"SKILL.md of skill '{name}' cannot be read: {os_message(exc)}."
        message = describe_header(name, header)
        if message is not None:
            return message
        checked = check_stored(name, header.source, self.use_yaml)
        if isinstance(checked, str):
            return checked
        return checked[1], len(full_description(checked[0]))

    # -- level 2 --------------------------------------------------------------------

    def view(self, name: str) -> SkillView | SkillError:
        """One skill: its SKILL.md body and frontmatter, their sha256, and its support files."""
        problem = check_name(name)
        if problem is not None:
            return SkillError("invalid-name", problem)
        where = self.probe(name)
        if where.status == "absent" or where.root is None:
            return self.not_found(name)
        skill_dir = where.root / name
        if where.status == "error" and where.message == SYMLINKED_SKILL:
            return SkillError("broken", f"Skill '{name}' {SYMLINKED_SKILL}.")
        if where.status == "error":
            return SkillError(
                "broken", f"SKILL.md of skill '{name}' cannot be read: {where.message}."
            )
        try:
            data = read_all(skill_dir / SKILL_FILE, MAX_SKILL_READ_BYTES)
        except ValueError as exc:
            return SkillError(
                "broken",
                f"SKILL.md of skill '{name}' is {exc.args[0]:,} bytes; "
                f"the limit for reading is {MAX_SKILL_READ_BYTES:,} bytes.",
            )
        except OSError as exc:
            return SkillError(
                "broken", f"SKILL.md of skill '{name}' cannot be read: {os_message(exc)}."
            )
        header = scan_header(data, complete=True)
        message = describe_header(name, header) if header is not None else None
        if header is None or message is not None:
            return SkillError("broken", message or f"SKILL.md of skill '{name}' is empty.")
        checked = check_stored(name, header.source, self.use_yaml)
        if isinstance(checked, str):
            return SkillError("broken", checked)
        fields, description = checked
        content = data.decode("utf-8-sig", errors="replace")
        _, body = parse_frontmatter(content, use_yaml=False)
        files, truncated = skill_files(skill_dir)
        support = {path for path in files if path.split("/", 1)[0] in SUPPORT_DIRS}
        return SkillView(
            name=name,
            description=description,
            source=where.source,
            path=str(skill_dir),
            frontmatter=fields,
            body=body,
            content=content,
            sha256=hashlib.sha256(data).hexdigest(),
            linked_files=tuple(sorted(support.union(body_links(body, files)))),
            skill_definition=string_value(fields, SKILL_KEY),
            environment=string_value(fields, ENVIRONMENT_KEY),
            files=files,
            files_truncated=truncated,
        )

    # -- level 3 --------------------------------------------------------------------

    def read(self, name: str, file_path: str) -> SkillFile | SkillError:
        """Any regular file inside the skill directory (the read path rules of ``docs/skills.md``)."""
        problem = check_name(name)
        if problem is not None:
            return SkillError("invalid-name", problem)
        if isinstance(file_path, str):  # an MCP client may send anything: checked below
            file_path = read_path(file_path)
        problem = check_read_path(file_path)
        if problem is not None:
            return SkillError("invalid-path", problem)
        where = self.probe(name)
        if where.status == "error" and where.message == SYMLINKED_SKILL:
            return SkillError("invalid-path", f"Skill '{name}' {SYMLINKED_SKILL}.")
        if where.status != "found" or where.root is None:
            return self.not_found(name)
        skill_dir = where.root / name
        target, escape = confine_read(skill_dir, file_path)
        if escape is not None:
            return SkillError("invalid-path", escape)
        try:
            data = read_all(target, MAX_FILE_BYTES)
        except ValueError as exc:
            return SkillError(
                "too-large",
                f"File '{file_path}' is {exc.args[0]:,} bytes "
                f"(limit: {MAX_FILE_BYTES:,} bytes / 1 MiB).",
            )
        except HardLink as link:
            return SkillError(
                "invalid-path",
                f"File '{file_path}' of skill '{name}' is a hard link ({link.count} names): "
                "only files the skill owns are read.",
            )
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return SkillError(
                "not-found",
                f"File '{file_path}' not found in skill '{name}'.",
                {
                    "available_files": list(skill_files(skill_dir)[0]),
                    "hint": "Use one of the available file paths listed above",
                },
            )
        except OSError as exc:
            return SkillError(
                "io", f"File '{file_path}' of skill '{name}' cannot be read: {os_message(exc)}."
            )
        digest = hashlib.sha256(data).hexdigest()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            label = file_path.rsplit("/", 1)[-1]
            placeholder = f"[Binary file: {label}, size: {len(data)} bytes]"
            return SkillFile(name, file_path, placeholder, len(data), digest, is_binary=True)
        return SkillFile(name, file_path, text, len(data), digest)

    # -- a session's spec P ----------------------------------------------------------

    def session_spec(self, name: str) -> SessionSpec | SkillError:
        """What a session started from the stored skill ``name`` freezes (or ``view``'s error)."""
        view = self.view(name)
        if isinstance(view, SkillError):
            return view
        return SessionSpec.from_view(view)

    # -- writes (project root only) ---------------------------------------------------

    def create(self, name: str, content: str) -> WriteResult | SkillError:
        """A new skill from a full SKILL.md text (frontmatter + body), validated strictly."""
        return writes.create(self, name, content)

    def edit(self, name: str, body: str) -> WriteResult | SkillError:
        """Replace the SKILL.md body, keeping its frontmatter lines as they are."""
        return writes.edit(self, name, body)

    def patch(
        self,
        name: str,
        find: str,
        replace: str,
        path: str | None = None,
        *,
        replace_all: bool = False,
    ) -> WriteResult | SkillError:
        """Replace the one exact occurrence of ``find`` in SKILL.md (or a support file)."""
        return writes.patch(self, name, find, replace, path, replace_all=replace_all)

    def delete(self, name: str) -> WriteResult | SkillError:
        """Remove a skill directory and everything in it."""
        return writes.delete(self, name)

    def write_file(
        self, name: str, file_path: str, content: str | bytes
    ) -> WriteResult | SkillError:
        """Create or replace one support file (at most 1 MiB)."""
        return writes.write_file(self, name, file_path, content)

    def remove_file(self, name: str, file_path: str) -> WriteResult | SkillError:
        """Remove one support file, then its directories if they are left empty."""
        return writes.remove_file(self, name, file_path)
