"""A merge function has one name in the core: ``Merge`` (``skillstate.journal``). Every
``merge=`` parameter of the core is annotated with it, not a spelled-out
``Callable[[Any, Any], Any]``."""

from __future__ import annotations

import ast
from pathlib import Path

from support import ROOT

ROOTS = (ROOT / "skillstate",)
ELSEWHERE: set[str] = set()  # files allowed to spell it out (none)


def _merge_annotations(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
                if arg.arg == "merge" and arg.annotation is not None:
                    found.append((arg.lineno, ast.unparse(arg.annotation)))
    return found


def test_every_merge_parameter_is_annotated_with_the_alias() -> None:
    files = sorted(p for root in ROOTS for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    annotated, wrong = 0, []
    for path in files:
        where = path.relative_to(ROOT).as_posix()
        for line, annotation in _merge_annotations(path):
            annotated += 1
            if annotation not in ("Merge", "Merge | None") and where not in ELSEWHERE:
                wrong.append(f"{where}:{line}: merge: {annotation}")
    assert annotated >= 3
    assert wrong == [], "\n".join(wrong)
