"""``add_serve_options`` and ``ServeSettings.from_args``: one set of options, defaults and
refusals for every serving command (the API of ``skillstate_serving``)."""

from __future__ import annotations

import argparse

import pytest
from skillstate_serving import ServeSettings, add_serve_options

from skillstate.plugin import InvalidInput


def _parser(**options: object) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="test", exit_on_error=False)
    add_serve_options(
        parser,
        **{"port": 4000, "token_env": "TEST_TOKEN", "exposes": "read it all", **options},  # type: ignore[arg-type]
    )
    return parser


def _settings(*argv: str, env: dict[str, str] | None = None, **options: object) -> ServeSettings:
    return ServeSettings.from_args(_parser(**options).parse_args(list(argv)), env or {})


def test_the_defaults() -> None:
    settings = _settings()
    assert (settings.host, settings.port, settings.token, settings.allowed_hosts) == (
        "127.0.0.1",
        4000,
        None,
        (),
    )
    assert (settings.max_connections, settings.header_timeout, settings.keep_alive) == (64, 10, 5)
    args = _parser().parse_args([])
    given = [name for name, value in vars(args).items() if value not in (None, [], False)]
    assert sorted(given) == ["host", "serve_defaults"]  # a command can tell what was given


def test_each_option_is_read() -> None:
    settings = _settings(
        "--host", "::1", "--port", "0", "--allowed-host", "a.test", "--allowed-host", "b.test",
        "--token", " tok ", "--max-connections", "3", "--header-timeout", "0.5",
    )  # fmt: skip
    assert (settings.host, settings.port, settings.token) == ("::1", 0, "tok")
    assert settings.allowed_hosts == ("a.test", "b.test")
    assert (settings.max_connections, settings.header_timeout) == (3, 0.5)
    assert {"a.test", "b.test", "::1", "localhost"} <= settings.allowed_names


def test_the_token_comes_from_the_option_the_file_or_the_variable(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "t").write_text("from-file\n", encoding="utf-8")
    env = {"TEST_TOKEN": " from-env "}
    assert _settings("--token", "opt", env=env).token == "opt"
    assert _settings("--token-file", str(tmp_path / "t"), env=env).token == "from-file"
    assert _settings(env=env).token == "from-env"
    assert _settings(env={"TEST_TOKEN": "  "}).token is None  # an empty variable is unset


def test_the_port_variable_comes_before_the_default() -> None:
    assert _settings(env={"MY_PORT": "5000"}, port_env="MY_PORT").port == 5000
    assert _settings(env={"MY_PORT": ""}, port_env="MY_PORT").port == 4000  # empty: unset
    assert _settings(env={"MY_PORT": "0"}, port_env="MY_PORT").port == 0  # as --port 0
    assert _settings("--port", "7", env={"MY_PORT": "nope"}, port_env="MY_PORT").port == 7
    assert _settings("--port", "7", env={"MY_PORT": "5000"}, port_env="MY_PORT").port == 7
    assert "default $MY_PORT or 4000" in _parser(port_env="MY_PORT").format_help()


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (
            ["--token", ""],
            {},
            '--token is empty (is the variable in --token "$TOKEN" unset?); give a token, or '
            "use --token-file FILE or $TEST_TOKEN",
        ),
        (["--token", "a", "--token-file", "b"], {}, "give --token or --token-file, not both"),
        (
            ["--token", "a\tb"],
            {},
            "--token: the token holds a line break or a control character, which a client "
            "cannot send",
        ),
        ([], {"TEST_TOKEN": "a\x7fb"}, "$TEST_TOKEN: the token holds a line break"),
        (
            ["--host", "0.0.0.0"],
            {},
            "refusing to serve on 0.0.0.0 without a token: anyone who can reach it could read "
            "it all; set $TEST_TOKEN or --token-file FILE, or pass --allow-no-token to serve it "
            "open",
        ),
        (
            ["--token-file", ""],
            {},
            '--token-file is empty (is the variable in --token-file "$FILE"',
        ),
    ],
)
def test_what_is_refused_is_one_line(argv: list[str], env: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        _settings(*argv, env=env)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)
    assert refused.value.kind == "usage"  # exit 2


def test_a_public_address_is_served_with_a_token_or_when_asked_to() -> None:
    assert _settings("--host", "192.0.2.1", "--allow-no-token").token is None
    assert _settings("--host", "192.0.2.1", env={"TEST_TOKEN": "t"}).token == "t"
    assert _settings("--host", "localhost").token is None
    with pytest.raises(InvalidInput):  # an empty variable is unset, not "no auth"
        _settings("--host", "0.0.0.0", env={"TEST_TOKEN": ""})


@pytest.mark.parametrize(
    "argv",
    [["--port", "65536"], ["--max-connections", "0"], ["--header-timeout", "0"], ["--port", "x"]],
)
def test_bad_numbers_are_argparse_errors(argv: list[str]) -> None:
    with pytest.raises(argparse.ArgumentError):
        _parser().parse_args(argv)


def test_settings_need_the_options_added() -> None:
    with pytest.raises(TypeError, match="add_serve_options"):
        ServeSettings.from_args(argparse.Namespace(host="x"))


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("nope", "'nope'"),
        ("99999", "'99999'"),
        ("65536", "'65536'"),
        ("-1", "'-1'"),
        (" 3215 ", "' 3215 '"),
        ("3215\n", "'3215\\n'"),
        ("\x1b[31m1", "'\\x1b[31m1'"),
        ("1" * 5000, "'" + "1" * 40 + "'… (5,000 characters)"),
    ],
)
def test_a_port_variable_that_is_not_a_port_is_refused(value: str, shown: str) -> None:
    """Never silently the default port: the server would listen where it was not told."""
    with pytest.raises(InvalidInput) as caught:
        _settings(env={"MY_PORT": value}, port_env="MY_PORT")
    assert str(caught.value) == (
        f"$MY_PORT: expected a port number 0-65535 (0 = any free port), got {shown}"
    )
