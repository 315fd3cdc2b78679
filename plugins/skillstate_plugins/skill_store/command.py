"""``skillstate skills list|view|read|create|edit|patch|delete|write-file|remove-file``.

The skill store (this package) from the command line. Texts come from
``--file PATH`` or standard input. A failed operation prints ``skillstate: <message>``
on stderr and exits 1 (with ``--json`` the error envelope is also printed on stdout),
or 3 when the disk failed (an ``io`` error); a usage error exits 2. The plain ``view``
prints SKILL.md, then (when there are any) the names of the skill's other files, as
the JSON's ``files``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from skillstate.plugin.cli import CliContext, ExitCode

from .paths import MAX_FILE_BYTES, MAX_SKILL_CHARS

if TYPE_CHECKING:
    from .results import Result, SkillError
    from .store import SkillStore

__all__ = ["configure", "run"]


class _Usage(Exception):
    """A usage problem found after parsing (exit 2)."""


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the JSON result envelope")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--skills-path", metavar="DIR", help="project skills directory (overrides skills_path)"
    )
    parser.add_argument(
        "--user-skills-path",
        metavar="DIR",
        help="user skills directory, searched second (overrides user_skills_path; '' for none)",
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    _common(sub.add_parser("list", help="level 1: name, description and source of every skill"))
    view = sub.add_parser(
        "view", help="level 2: print a skill's SKILL.md (--json: body, hash, files)"
    )
    view.add_argument("name")
    _common(view)
    read = sub.add_parser("read", help="level 3: print one file of a skill")
    read.add_argument("name")
    read.add_argument("path", help="relative to the skill directory, e.g. forms.md")
    _common(read)

    create = sub.add_parser("create", help="create a skill from a full SKILL.md text")
    create.add_argument("name")
    create.add_argument("--file", metavar="PATH", help="read SKILL.md from PATH (default: stdin)")
    _common(create)
    edit = sub.add_parser("edit", help="replace the SKILL.md body, keeping its frontmatter")
    edit.add_argument("name")
    edit.add_argument("--file", metavar="PATH", help="read the body from PATH (default: stdin)")
    _common(edit)
    patch = sub.add_parser("patch", help="replace the one exact occurrence of a text")
    patch.add_argument("name")
    patch.add_argument("--find", required=True, metavar="TEXT", help="exact text to find")
    patch.add_argument("--replace", required=True, metavar="TEXT", help="its replacement")
    patch.add_argument("--path", metavar="FILE", help="a support file instead of SKILL.md")
    patch.add_argument(
        "--replace-all", action="store_true", help="replace every occurrence instead"
    )
    _common(patch)
    delete = sub.add_parser("delete", help="remove a skill directory")
    delete.add_argument("name")
    _common(delete)
    write = sub.add_parser("write-file", help="create or replace a support file")
    write.add_argument("name")
    write.add_argument("path", help="e.g. references/api.md")
    write.add_argument("--file", metavar="SRC", help="read the content from SRC (default: stdin)")
    _common(write)
    remove = sub.add_parser("remove-file", help="remove a support file")
    remove.add_argument("name")
    remove.add_argument("path")
    _common(remove)


def _store(ctx: CliContext) -> SkillStore:
    from pathlib import Path

    from . import SkillStore

    store = SkillStore.from_config(ctx.config)
    project = ctx.args.skills_path
    user = ctx.args.user_skills_path
    if project is None and user is None:
        return store
    project_path = Path(project) if project else store.project
    if user is None:
        user_path = store.user
    else:
        user_path = Path(user) if user else None
    return SkillStore(project_path, user_path)


class _Refused(Exception):
    """An input over its limit, refused as the store refuses it (exit 1)."""

    def __init__(self, error: SkillError) -> None:
        super().__init__(error.message)
        self.error = error


TEXT_INPUT_BYTES = 4 * MAX_SKILL_CHARS
"""The most bytes ``create`` and ``edit`` read: 100,000 characters take at most 4 bytes each."""


def _input_bytes(ctx: CliContext, what: str, limit: int) -> bytes:
    """The input (``--file`` or standard input), having read at most ``limit + 1`` bytes:
    more is refused (:class:`_Refused`) without reading the rest (``/dev/zero``)."""
    source = ctx.args.file
    if source and source != "-":
        try:
            with open(source, "rb") as handle:
                data = handle.read(limit + 1)
        except OSError as exc:
            raise _Usage(f"cannot read --file {source}: {exc.strerror or exc}") from None
    elif sys.stdin is None or sys.stdin.isatty():
        raise _Usage(f"give the {what} with --file PATH or on standard input")
    else:
        raw = getattr(sys.stdin, "buffer", None)  # none when a program set a text stream
        data = (
            raw.read(limit + 1)
            if raw is not None
            else sys.stdin.read(limit + 1).encode("utf-8", "surrogatepass")
        )
    if len(data) > limit:
        raise _Refused(_over(what, limit))
    return data


def _over(what: str, limit: int) -> SkillError:
    from .results import SkillError

    if limit == MAX_FILE_BYTES:
        return SkillError(
            "too-large",
            f"File content is over {limit:,} bytes (limit: 1,048,576 bytes / 1 MiB); "
            "refused unread past the limit. Consider splitting into smaller files.",
        )
    return SkillError(
        "too-large",
        f"The {what} is over {limit:,} bytes, so over the {MAX_SKILL_CHARS:,}-character "
        "limit of SKILL.md; refused unread past that. Consider splitting into a smaller "
        "SKILL.md with supporting files in references/ or templates/.",
    )


def _input_text(ctx: CliContext, what: str) -> str:
    data = _input_bytes(ctx, what, TEXT_INPUT_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Usage(f"the {what} is not UTF-8 text (byte {exc.start})") from None


def _one_line(text: str) -> str:
    """``text`` on one line of a listing: a newline (a ``description: |`` block) is a space,
    control characters are escaped (``\\x1b``, ``\\x0d``), as every message prints them."""
    from skillstate.plugin import excerpt

    return excerpt(" ".join(text.split("\n")), MAX_SKILL_CHARS)


def _print_listing(ctx: CliContext, result: Any) -> None:
    if not result.skills and not result.broken:
        print("no skills", file=ctx.out)
        return
    width = max(len(skill.name) for skill in (*result.skills, *result.broken))
    for skill in result.skills:
        line = f"{skill.name:<{width}}  [{skill.source}]  {skill.description}"
        print(_one_line(line), file=ctx.out)
    for skill in result.broken:
        print(
            _one_line(f"{skill.name:<{width}}  [{skill.source}]  BROKEN: {skill.reason}"),
            file=ctx.out,
        )


def _dispatch(ctx: CliContext, store: SkillStore) -> Result:
    args = ctx.args
    action = args.action
    if action == "list":
        return store.list()
    if action == "view":
        return store.view(args.name)
    if action == "read":
        return store.read(args.name, args.path)
    if action == "create":
        return store.create(args.name, _input_text(ctx, "SKILL.md text"))
    if action == "edit":
        return store.edit(args.name, _input_text(ctx, "new body"))
    if action == "patch":
        return store.patch(
            args.name, args.find, args.replace, args.path, replace_all=args.replace_all
        )
    if action == "delete":
        return store.delete(args.name)
    if action == "write-file":
        return store.write_file(
            args.name, args.path, _input_bytes(ctx, "file content", MAX_FILE_BYTES)
        )
    return store.remove_file(args.name, args.path)


def run(ctx: CliContext) -> int:
    from .results import SkillError, SkillFile, SkillListing, SkillView

    result: Result
    try:
        result = _dispatch(ctx, _store(ctx))
    except _Usage as exc:
        ctx.error(str(exc))
        return ExitCode.USAGE
    except _Refused as exc:
        result = exc.error
    if ctx.args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2), file=ctx.out)
    if isinstance(result, SkillError):
        ctx.error(result.message)
        return ExitCode.ERROR if result.code == "io" else ExitCode.REJECTED
    if ctx.args.json:
        return ExitCode.OK
    if isinstance(result, SkillListing):
        _print_listing(ctx, result)
    elif isinstance(result, SkillView | SkillFile):
        ctx.out.write(result.content)
        if result.content and not result.content.endswith("\n"):
            ctx.out.write("\n")
        if isinstance(result, SkillView) and result.files:
            print(f"\nSupport files (skillstate skills read {result.name} PATH):", file=ctx.out)
            for path in result.files:
                print(f"  {path}", file=ctx.out)
    else:
        print(result.message, file=ctx.out)
    return ExitCode.OK
