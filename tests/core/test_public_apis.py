"""Public APIs only: no private name of another library, no assignment to a class not ours.

Every Python file of the project (the core, the plugins, the benchmarks, the docs'
examples; the tests too, but for the probes a test may build) is scanned:

- a single-underscore name of pluggy, mcp, mcp_types, pydantic, starlette, uvicorn,
  anyio, json, argparse or redis — imported (``from pluggy._hooks import …``,
  ``from json.encoder import _x``), or read or assigned as an attribute
  (``ServerRunner._serialize``, ``pm._inner_hookexec``, ``parser._actions``, and the
  same as a string: ``getattr(pm, "_x")``, ``vars(pm)["_x"]``, ``pm.__dict__["_x"]``)
  — fails; an attribute access ``x._name`` counts as the project's own only when the
  project itself defines ``_name`` somewhere (a method, a class attribute,
  ``self._name = …``), and ``self._name`` in a subclass of one of those libraries'
  classes only when that class itself defines it;
- an assignment to an attribute of something that is not the project's own — a class
  or module imported from elsewhere (``ServerRunner.x = …``, ``json.encoder.y = …``),
  or an attribute name the project never defines (``impl.function = …`` on pluggy's
  ``HookImpl``) — fails, with ``setattr``/``object.__setattr__`` calls on such targets;
  pluggy's ``HookImpl`` attributes (``plugin``, ``opts``, …) fail on any object but
  ``self`` even where the project spells a name of its own the same.

An expression's root is followed through calls and subscripts, so
``anyio.Event()._cache`` is a private name of anyio's.

The one module attribute replaced on purpose is ``warnings.showwarning``, which the
standard library documents as replaceable.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = (
    "pluggy",
    "mcp",
    "mcp_types",
    "pydantic",
    "starlette",
    "uvicorn",
    "anyio",
    "json",
    "argparse",
    "redis",
)
DOCUMENTED_REPLACEABLE = {("warnings", "showwarning")}
DOCUMENTED_ATTRIBUTES = {
    "argtypes",  # ctypes: a foreign function's argument and result types are set so
    "restype",
    "daemon_threads",  # socketserver: documented as set on the server
    "socket",  # socketserver: a TLS server wraps its socket in place (ssl's docs)
}
"""Attributes of other libraries' objects that their documentation says to assign."""
HOOKIMPL_ATTRIBUTES = {
    "function",
    "plugin",
    "plugin_name",
    "opts",
    "argnames",
    "kwargnames",
    "hookwrapper",
    "wrapper",
    "optionalhook",
    "tryfirst",
    "trylast",
}
"""pluggy's ``HookImpl`` attributes (``Final`` there): never assigned on another object, even
where the project has a name of its own that is spelled the same (``plugin``, ``opts``)."""
PUBLIC_UNDERSCORE = {"_replace", "_asdict", "_fields", "_make", "_exit", "_getframe"}
"""Names that start with an underscore and are public all the same (namedtuple's
methods, ``os._exit``, ``sys._getframe``)."""
SCANNED = ("skillstate", "plugins", "benchmarks", "docs/examples", "tests")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _files() -> list[Path]:
    out: list[Path] = []
    for part in SCANNED:
        out += [
            p
            for p in (ROOT / part).rglob("*.py")
            if ".venv" not in p.parts and "node_modules" not in p.parts
        ]
    return sorted(out)


def _own_names(trees: list[ast.AST]) -> set[str]:
    """Every attribute name the project defines: functions and classes, what a class or a
    module body assigns, and what ``self.name = …`` assigns (not locals or parameters)."""
    names: set[str] = set()

    def targets_of(node: ast.stmt) -> list[ast.expr]:
        if isinstance(node, ast.Assign):
            return node.targets
        if isinstance(node, ast.AnnAssign | ast.AugAssign):
            return [node.target]
        return []

    for tree in trees:
        bodies: list[list[ast.stmt]] = [getattr(tree, "body", [])]
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            if isinstance(node, ast.ClassDef):
                bodies.append(node.body)
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "set_defaults":
                names.update(k.arg for k in node.keywords if k.arg)  # argparse namespace keys
            for target in targets_of(node) if isinstance(node, ast.stmt) else ():
                for sub in ast.walk(target):
                    if (
                        isinstance(sub, ast.Attribute)
                        and isinstance(sub.value, ast.Name)
                        and sub.value.id in ("self", "cls")
                    ):
                        names.add(sub.attr)
        for body in bodies:  # module and class bodies: their names are attributes
            for stmt in body:
                for target in targets_of(stmt):
                    for sub in ast.walk(target):
                        if isinstance(sub, ast.Name):
                            names.add(sub.id)
    return names


def _imported(tree: ast.AST) -> dict[str, str]:
    """Local name → the module or object it was imported from (``json``, ``pluggy.HookImpl``)."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def _root(node: ast.expr) -> str:
    """The name an expression starts from, through attributes, calls and subscripts:
    ``anyio.Event()._cache`` and ``pm.hook.x[0]._y`` start from ``anyio`` and ``pm``."""
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _subclass_names(tree: ast.AST, library: Callable[[str], bool]) -> dict[int, set[str]]:
    """For each node inside a class with a base from LIBRARIES (``class P(ArgumentParser)``),
    what that class itself defines: there, ``self._x`` and ``super()._x`` are its own only
    when the class defines ``_x`` (else they are the library's private names)."""
    inside: dict[int, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(library(_root(b)) for b in node.bases):
            local = _own_names([ast.Module(body=node.body, type_ignores=[])])
            for sub in ast.walk(node):
                inside[id(sub)] = local
    return inside


def _named_access(node: ast.AST) -> tuple[ast.expr, str] | None:
    """``getattr(x, "_n")``, ``setattr(x, "_n", v)``, ``vars(x)["_n"]`` and
    ``x.__dict__["_n"]``: the object and the (constant) name, as ``x._n`` would be."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("getattr", "hasattr"):
        if len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            if isinstance(node.args[1].value, str):
                return node.args[0], node.args[1].value
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        name, base = node.slice.value, node.value
        if not isinstance(name, str):
            return None
        if isinstance(base, ast.Call) and getattr(base.func, "id", None) == "vars" and base.args:
            return base.args[0], name
        if isinstance(base, ast.Attribute) and base.attr == "__dict__":
            return base.value, name
    return None


def scan(sources: dict[str, str], own: set[str] | None = None) -> list[str]:
    """The violations in ``sources`` (path → code); ``own``: the project's names."""
    trees = {path: ast.parse(code) for path, code in sources.items()}
    if own is None:
        own = _own_names(list(trees.values()))
    problems: list[str] = []
    for path, tree in trees.items():
        imported = _imported(tree)
        ours = ("skillstate", "skillstate_plugins", "skillstate_repo", "skillstate_redis", ".")
        foreign = {n: o for n, o in imported.items() if not o.startswith(ours)}

        def library(name: str, foreign: dict[str, str] = foreign) -> bool:
            """A name imported from one of LIBRARIES."""
            return foreign.get(name, "").split(".")[0] in LIBRARIES

        subclass = _subclass_names(tree, library)
        for node in ast.walk(tree):  # getattr(x, "_n"), vars(x)["_n"]: as x._n
            access = _named_access(node)
            if access and _private(access[1]) and access[1] not in PUBLIC_UNDERSCORE:
                root = _root(access[0])
                if library(root) or access[1] not in subclass.get(id(node), own):
                    problems.append(
                        f"{path}:{getattr(node, 'lineno', 0)}: reads or writes the private "
                        f"name .{access[1]}"
                    )
            if (
                isinstance(node, ast.Assign)
                and any(_named_access(t) for t in node.targets)
                and not any(
                    (a := _named_access(t)) and _root(a[0]) in ("self", "cls") for t in node.targets
                )
            ):
                for target in node.targets:
                    access = _named_access(target)
                    if access and access[1] not in own:
                        problems.append(
                            f"{path}:{node.lineno}: assigns .{access[1]} through its "
                            "__dict__, an attribute the project never defines"
                        )

        def foreign_class(name: str, foreign: dict[str, str] = foreign) -> bool:
            """A class imported from elsewhere."""
            origin = foreign.get(name, "")
            return "." in origin and origin.rsplit(".", 1)[1][:1].isupper()

        for node in ast.walk(tree):
            where = f"{path}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module.split(".")[0] in LIBRARIES:
                    if any(_private(part) for part in node.module.split(".")):
                        problems.append(f"{where}: imports the private module {node.module}")
                    for alias in node.names:
                        if _private(alias.name):
                            problems.append(f"{where}: imports {node.module}.{alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] in LIBRARIES and any(_private(p) for p in parts):
                        problems.append(f"{where}: imports the private module {alias.name}")
            elif isinstance(node, ast.Attribute) and _private(node.attr):
                root = _root(node.value)
                direct = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
                if direct or (  # self._x, super()._x; not self.pm._x (another object's)
                    isinstance(node.value, ast.Call)
                    and getattr(node.value.func, "id", "") == "super"
                ):
                    local = subclass.get(id(node))
                    if local is not None and node.attr not in local:
                        problems.append(
                            f"{where}: reads or writes .{node.attr}, a private name of the "
                            "library class it subclasses"
                        )
                    continue
                if node.attr in PUBLIC_UNDERSCORE:
                    continue
                if library(root) or (node.attr not in own and root not in foreign):
                    problems.append(f"{where}: reads or writes the private name .{node.attr}")
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if not isinstance(target, ast.Attribute) or target.attr.startswith("__"):
                        continue
                    root = _root(target.value)
                    if root in ("self", "cls") or (root, target.attr) in DOCUMENTED_REPLACEABLE:
                        continue
                    if library(root) or foreign_class(root):
                        problems.append(
                            f"{where}: assigns .{target.attr} on {root}, which the project "
                            "did not define"
                        )
                    elif target.attr in HOOKIMPL_ATTRIBUTES:
                        problems.append(
                            f"{where}: assigns .{target.attr}, an attribute of pluggy's "
                            "HookImpl, on an object that is not self"
                        )
                    elif (
                        root not in foreign
                        and target.attr not in own
                        and target.attr not in DOCUMENTED_ATTRIBUTES
                    ):
                        problems.append(
                            f"{where}: assigns .{target.attr}, an attribute the project never "
                            "defines (another library's object?)"
                        )
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if _root(node.func) == "monkeypatch":  # pytest's, undone after the test
                    continue
                if name == "set_defaults":  # argparse: the namespace's attributes are ours
                    continue
                if name in ("setattr", "__setattr__") and len(node.args) >= 2:
                    root = _root(node.args[0])
                    attr = node.args[1]
                    if root in ("self", "cls"):
                        continue
                    if library(root) or foreign_class(root):
                        problems.append(f"{where}: setattr on {root}, not the project's")
                    elif (
                        isinstance(attr, ast.Constant)
                        and isinstance(attr.value, str)
                        and (attr.value not in own or attr.value in HOOKIMPL_ATTRIBUTES)
                    ):
                        problems.append(f"{where}: setattr of .{attr.value}, not the project's")
    return problems


def test_the_project_uses_other_libraries_public_apis_only() -> None:
    files = _files()
    sources = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in files}
    probes = {k: v for k, v in sources.items() if not k.startswith("tests/")}
    own = _own_names([ast.parse(code) for code in sources.values()])
    problems = scan(probes, own)
    tests_only = scan({k: v for k, v in sources.items() if k.startswith("tests/")}, own)
    assert problems + tests_only == [], "\n".join(problems + tests_only)


@pytest.mark.parametrize(
    "code",
    [
        "from pluggy._hooks import HookImpl\n",
        "import pluggy\nx = pluggy.PluginManager('p')._inner_hookexec\n",
        "from mcp.server import ServerRunner\nServerRunner._serialize = print\n",
        "from mcp.server import ServerRunner\nServerRunner.serialize = print\n",
        "import json.encoder\njson.encoder.c_make_encoder = None\n",
        "def f(parser):\n    return parser._actions\n",
        "def f(impl, g):\n    impl.function = g\n",
        "def f(impl, g):\n    setattr(impl, 'function', g)\n",
        "import argparse\nsetattr(argparse, 'X', 1)\n",
        "from json import _default_encoder\n",
        # found by a review: a subclass of the libraries' classes, and names as strings
        "import pluggy\nclass M(pluggy.PluginManager):\n    def f(self):\n"
        "        return self._name2plugin\n",
        "from argparse import ArgumentParser\nclass P(ArgumentParser):\n    def f(self):\n"
        "        return self._actions\n",
        "import pluggy\nclass M(pluggy.PluginManager):\n    def f(self):\n"
        "        return super()._hookexec\n",
        "def f(pm):\n    return getattr(pm, '_inner_hookexec')\n",
        "def f(pm):\n    return pm.__dict__['_name2plugin']\n",
        "def f(impl, g):\n    vars(impl)['function'] = g\n",
        "class H:\n    def f(self):\n        return self.pm._inner_hookexec\n",
        # found by a second review: a HookImpl attribute the project also spells, and a
        # private name read off a library call's result
        "def f(impl):\n    impl.plugin = None\n",
        "def f(impl):\n    setattr(impl, 'opts', {})\n",
        "import anyio\nx = anyio.Event()._cache\n",
    ],
)
def test_the_scan_catches_each_kind_of_violation(code: str) -> None:
    own = {"f", "g", "x", "plugin", "opts", "_cache"}  # names the project also defines
    assert scan({"probe.py": code}, own=own) != []


@pytest.mark.parametrize(
    "code",
    [
        "class A:\n    def __init__(self):\n        self._x = 1\n    def f(self, o):\n        return o._x\n",
        "import warnings\nwarnings.showwarning = print\n",
        "class A:\n    y = 0\na = A()\na.y = 1\n",
        "from argparse import ArgumentParser\nclass P(ArgumentParser):\n"
        "    def __init__(self):\n        self._mine = 1\n    def f(self):\n"
        "        return self._mine\n",
        "class A:\n    _y = 0\ndef f(a):\n    return getattr(a, '_y')\n",
    ],
)
def test_the_scan_accepts_the_projects_own_names(code: str) -> None:
    tree = ast.parse(code)
    assert scan({"probe.py": code}, own=_own_names([tree])) == []
