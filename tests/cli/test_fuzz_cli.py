"""Fuzz: both command lines with hostile argv (bytes that are not UTF-8 too) and stdin.

In process (the real ``main`` of ``skillstate`` and ``rig-state``, real file stores):
no exception escapes, the exit code is a documented one (0 ok, 1 rejected, 2 usage),
stderr never holds a traceback, and a command that did not succeed left every byte of
the store as it was. A smaller sample runs the installed executables for real.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fuzzing import FUZZ, hostile_json_texts, hostile_text, run_ids, tree_hash
from hypothesis import given, settings, strategies as st
from support import VENV_BIN, clean_env

from skillstate.cli.main import main as skillstate_main

pytestmark = pytest.mark.fuzz

READ_ONLY = ("get", "show", "list", "journal", "verify")


@pytest.fixture(scope="module")
def project() -> Iterator[Path]:
    """A project with a rig-task run ``t1`` for skillstate and one for rig-state."""
    root = Path(tempfile.mkdtemp(prefix="skillstate-fuzz-cli-"))
    with _cwd(root):
        for run in (["init", "rig-task", "t1"],):
            assert _call(skillstate_main, run, b"")[0] == 0
            assert _call(_rig_main(), run, b"")[0] == 0
    yield root


def _rig_main() -> Any:
    from skillstate_plugins.rig.cli import main

    return main


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _call(main: Any, argv: list[str], stdin: bytes) -> tuple[int, str, str]:
    """Run ``main(argv)`` as the console script would: real streams, SystemExit as a code."""
    out, err = io.StringIO(), io.StringIO()
    saved_stdin, saved_show = sys.stdin, warnings.showwarning
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="surrogateescape")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's usage errors and --help
                code = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stdin, warnings.showwarning = saved_stdin, saved_show
    return code, out.getvalue(), err.getvalue()


ARG = st.one_of(
    hostile_text,
    run_ids,
    st.binary(max_size=12).map(
        os.fsdecode
    ),  # argv bytes that are not UTF-8, as Python decodes them
    st.sampled_from(["t1", "rig-task", "--json", "-", "--step", "--force", "--field", "--skill"]),
)

COMMAND = st.tuples(
    st.sampled_from(
        ["init", "patch", "get", "show", "list", "journal", "verify", "rm", "nope", ""]
    ),
    st.lists(ARG, max_size=5),
)


def _argv(command: tuple[str, list[str]]) -> list[str]:
    name, rest = command
    if name == "rm":  # only ever a run that does not exist: the world stays small
        return ["rm", "zz-" + "".join(c for c in "".join(rest) if c.isalnum())[:20]]
    return [name, *rest] if name else rest


STDIN = st.one_of(
    hostile_json_texts.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=40)
)
"""What a command reads on standard input: hostile JSON as bytes (surrogates raw), or any bytes."""


@FUZZ
@given(command=COMMAND, stdin=STDIN)
def test_skillstate_answers_every_command_line(
    project: Path, command: tuple[str, list[str]], stdin: bytes
) -> None:
    _check(
        project,
        skillstate_main,
        ["--store", f"file:{project}/ss", *_argv(command)],
        stdin,
        project / "ss",
    )


@FUZZ
@given(command=COMMAND, stdin=STDIN)
def test_rig_state_answers_every_command_line(
    project: Path, command: tuple[str, list[str]], stdin: bytes
) -> None:
    _check(project, _rig_main(), _argv(command), stdin, project / ".rig" / "state")


@FUZZ
@given(document=hostile_json_texts, step=st.one_of(st.just(""), hostile_text))
def test_a_hostile_patch_through_both_command_lines(
    project: Path, document: str, step: str
) -> None:
    args = ["patch", "t1", "--json", document, "--step", step]
    _check(project, skillstate_main, ["--store", f"file:{project}/ss", *args], b"", project / "ss")
    _check(project, _rig_main(), args, b"", project / ".rig" / "state")


def _check(project: Path, main: Any, argv: list[str], stdin: bytes, store: Path) -> None:
    """One command line: a documented code, no traceback, nothing written unless it succeeded
    at a command that writes."""
    before = tree_hash(store)
    with _cwd(project):
        code, out, err = _call(main, argv, stdin)
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err and "Traceback" not in out
    reads = any(word in READ_ONLY for word in argv[:3])
    if code != 0 or reads:
        assert tree_hash(store) == before, (argv, code, err)


REAL = settings(FUZZ, max_examples=max(5, FUZZ.max_examples // 6))


@REAL
@given(
    prog=st.sampled_from(["skillstate", "rig-state"]),
    args=st.lists(
        st.one_of(
            st.binary(max_size=10),
            st.sampled_from([b"patch", b"t1", b"--json", b"show", b"init", b"rig-task"]),
        ),
        max_size=5,
    ),
    stdin=st.binary(max_size=60),
)
def test_the_real_executables_never_print_a_traceback(
    project: Path, prog: str, args: list[bytes], stdin: bytes
) -> None:
    args = [a for a in args if b"\x00" not in a]  # the kernel refuses NUL in argv
    done = subprocess.run(
        [str(VENV_BIN / prog), *args],
        input=stdin,
        capture_output=True,
        cwd=project,
        env=clean_env(SKILLSTATE_STORE=f"file:{project}/ss"),
        timeout=60,
    )
    assert done.returncode in (0, 1, 2), (args, done.stderr)
    assert b"Traceback" not in done.stderr
