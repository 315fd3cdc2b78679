"""``--token-file`` reads a token the same way, with the same messages, for ``skillstate ui``
and ``skillstate mcp --http`` (``skillstate_serving.options.read_token_file``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from skillstate_serving.options import TokenFileError, read_token_file
from support import run_skillstate

SERVERS = (["ui", "--port", "0"], ["mcp", "--http", "--port", "0"])
_UNSENDABLE = (
    "--token-file token: the token holds a line break or a control character, which a "
    "client cannot send"
)


@pytest.mark.parametrize(
    ("content", "token"),
    [
        ("tok-123", "tok-123"),
        ("tok-123\n", "tok-123"),
        ("  \ttok-123 \r\n\n", "tok-123"),
        ("\ufefftok-123\n", "tok-123"),  # a UTF-8 byte-order mark (Windows editors) is dropped
    ],
)
def test_the_whole_file_with_the_whitespace_around_it_stripped(
    tmp_path: Path, content: str, token: str
) -> None:
    path = tmp_path / "token"
    path.write_text(content, encoding="utf-8", newline="")
    assert read_token_file(str(path)) == token


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "--token-file token is empty; write the token into it"),
        (b" \n\n", "--token-file token is empty; write the token into it"),
        (b"first\nsecond\n", "--token-file token: the token holds whitespace or a line break"),
        (b"two words", "--token-file token: the token holds whitespace or a line break"),
        (b"\xff\xfe", "--token-file token: not UTF-8 text"),
        (b"x" * (64 * 1024 + 1), "--token-file token: over 64 KiB"),
        (b"tok\x01x\n", _UNSENDABLE),
        (b"tok\x1b[31mx", _UNSENDABLE),
        (b"tok\x7fx", _UNSENDABLE),
        ("tok\u009bx".encode(), _UNSENDABLE),  # C1: a terminal's escape-sequence start
    ],
)
def test_a_file_that_is_not_one_token_is_refused(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "token"
    path.write_bytes(content)
    with pytest.raises(TokenFileError) as caught:
        read_token_file(str(path))
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value) and str(tmp_path) not in str(caught.value)
    assert caught.value.kind == "usage"


def test_a_missing_file_is_named_by_its_base_name(tmp_path: Path) -> None:
    with pytest.raises(TokenFileError) as caught:
        read_token_file(str(tmp_path / "nope.txt"))
    assert str(caught.value) == "--token-file nope.txt: cannot read it (No such file or directory)"


def test_an_empty_file_name_is_said_to_be_empty() -> None:
    with pytest.raises(TokenFileError) as caught:
        read_token_file("")
    assert str(caught.value) == (
        '--token-file is empty (is the variable in --token-file "$FILE" unset?)'
    )


@pytest.mark.parametrize(
    "content",
    [None, b"", b"first\nsecond\n", b"two words\n", b"tok\x01x\n", "tok\u009bx".encode()],
    ids=["missing", "empty", "2", "sp", "ctrl", "c1"],
)
def test_both_servers_refuse_a_bad_token_file_with_the_same_line(
    tmp_path: Path, content: bytes | None
) -> None:
    path = tmp_path / "token.txt"
    if content is not None:
        path.write_bytes(content)
    lines = []
    for command in SERVERS:
        done = run_skillstate(
            "--store",
            f"file:{tmp_path / 'store'}",
            *command,
            "--token-file",
            str(path),
            cwd=tmp_path,
            timeout=30,
        )
        assert done.returncode == 2, (command, done.stderr)
        assert done.stderr.startswith("skillstate: --token-file token.txt")
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert "listening" not in done.stdout + done.stderr
        lines.append(done.stderr)
    assert lines[0] == lines[1]
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize("bad", ["\n", "\x1b", "\x7f", "\u009b"], ids=["lf", "esc", "del", "c1"])
@pytest.mark.parametrize("how", ["option", "environment"])
@pytest.mark.parametrize("command", SERVERS, ids=["ui", "mcp-http"])
def test_a_token_no_client_can_send_is_refused(
    tmp_path: Path, command: list[str], how: str, bad: str
) -> None:
    """A line break in a header value cannot be sent: a server requiring it would refuse
    everyone. A token file already refuses one; --token and the variables do too."""
    variable = "SKILLSTATE_UI_TOKEN" if command[0] == "ui" else "SKILLSTATE_MCP_TOKEN"
    args = ["--token", f"first{bad}second"] if how == "option" else []
    env = {variable: f"first{bad}second"} if how == "environment" else {}
    done = run_skillstate(
        "--store", f"file:{tmp_path / 'store'}", *command, *args, cwd=tmp_path, timeout=30, **env
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.endswith(
        "the token holds a line break or a control character, which a client cannot send\n"
    )
    assert done.stderr.count("\n") == 1 and "first" not in done.stderr
