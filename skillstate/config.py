"""Configuration: the user's file, ``[tool.skillstate]`` in ``pyproject.toml``, ``skillstate.toml``, environment, flags.

Precedence, lowest first: built-in defaults, the user's ``config.toml``
(:func:`user_config_path`), ``pyproject.toml``'s ``[tool.skillstate]``,
``skillstate.toml`` (both in the project directory), environment variables,
command-line flags. :class:`Config` remembers where each effective value came from
(``skillstate config list`` shows it).

The project directory is found as git finds a repository: from the current directory
upwards, the first directory holding a ``skillstate.toml``, a ``pyproject.toml`` with a
``[tool.skillstate]`` table, a ``.skillstate`` directory (but the home directory's,
which is the user's) or a ``.git`` entry; the current directory when none does
(:func:`find_project_root`). So a command run from ``src/deep/`` reads the project's
configuration and uses its default store, and a relative ``file:``/``sqlite:`` store
path from the defaults or a configuration file is taken from the project directory
(one given by ``SKILLSTATE_STORE`` or ``--store`` is taken from the current directory).

The keys and the checks of their values are :mod:`skillstate.config_keys`; writing a
key (``skillstate config set``) is :mod:`skillstate.config_edit`. Both are re-exported
here (``set_config_value`` on first use).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillstate._lazy import lazy_getattr
from skillstate.config_keys import KEYS, ConfigKey, check_file_value, env_value, usage_error
from skillstate.display import excerpt
from skillstate.errors import ConfigError
from skillstate.records import Budget

if TYPE_CHECKING:
    from skillstate.config_edit import set_config_value

__all__ = [
    "KEYS",
    "Config",
    "ConfigKey",
    "find_project_root",
    "load_config",
    "set_config_value",
    "user_config_path",
]

CONFIG_FILE = "skillstate.toml"

__getattr__ = lazy_getattr(__name__, {"set_config_value": "skillstate.config_edit"}, globals())


@attrs.frozen
class Config:
    """The effective configuration and where each value came from."""

    values: Mapping[str, Any]
    sources: Mapping[str, str]
    root: Path

    def get(self, key: str) -> Any:
        if key not in KEYS:
            raise usage_error(
                f"unknown configuration key '{excerpt(key)}'. Known keys: {', '.join(sorted(KEYS))}"
            )
        return self.values.get(key, KEYS[key].default)

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")

    @property
    def store(self) -> str:
        return str(self.get("store"))

    @property
    def durability(self) -> str:
        """``full`` or ``process``: the level of a store whose URL names none."""
        return str(self.get("durability"))

    @property
    def disable_plugins(self) -> tuple[str, ...]:
        return tuple(self.get("disable_plugins") or ())

    @property
    def load_plugins(self) -> tuple[str, ...] | None:
        value = self.get("load_plugins")
        return None if value is None else tuple(value)

    @property
    def strict_plugins(self) -> bool:
        return bool(self.get("strict_plugins"))

    @property
    def trace_plugins(self) -> bool:
        return bool(self.get("trace_plugins"))

    @property
    def default_environment(self) -> str | None:
        value = self.get("default_environment")
        return None if value is None else str(value)

    @property
    def max_active_sessions(self) -> int:
        return int(self.get("max_active_sessions"))

    @property
    def max_input_bytes(self) -> int:
        """The largest JSON document the command lines read (a patch, a seed)."""
        return int(self.get("max_input_bytes"))

    @property
    def max_spec_bytes(self) -> int:
        """The largest spec P a new session takes (UTF-8 bytes of compact JSON)."""
        return int(self.get("max_spec_bytes"))

    @property
    def session_idle_ttl(self) -> float:
        """Seconds (0: sessions never expire)."""
        from skillstate.retention import parse_duration

        return parse_duration(str(self.get("session_idle_ttl")), "session_idle_ttl")

    @property
    def budget(self) -> Budget | None:
        value = self.get("budget")
        return value if isinstance(value, Budget) else None


def user_dir(env: Mapping[str, str], variable: str, fallback: str) -> Path | None:
    """``$variable/skillstate``; ``$HOME/fallback/skillstate`` when that is unset, empty or
    relative (the XDG Base Directory rule); ``None`` without an absolute ``HOME``."""
    base = env.get(variable, "")
    if not os.path.isabs(base):
        home = env.get("HOME", "")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, fallback)
    return Path(base, "skillstate")


def user_config_path(env: Mapping[str, str]) -> Path | None:
    """``$XDG_CONFIG_HOME/skillstate/config.toml`` (``~/.config`` by :func:`user_dir`'s rule)."""
    where = user_dir(env, "XDG_CONFIG_HOME", ".config")
    return None if where is None else where / "config.toml"


def _read_toml(path: Path, name: str) -> dict[str, Any]:
    import tomllib  # lazily: only when a configuration file exists (CLI start-up time)

    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8: tomllib decodes before it parses
        raise ConfigError(
            f"{name}: not valid TOML: not UTF-8 text (byte {exc.start} is {exc.object[exc.start]:#04x})"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{name}: cannot be read: {exc.strerror}") from None


def _file_layers(root: Path, env: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
    user = user_config_path(env)
    layers = [(str(user), _read_toml(user, str(user)))] if user and user.is_file() else []
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        data = _read_toml(pyproject, pyproject.name)
        tool = data.get("tool", {})
        section = tool.get("skillstate") if isinstance(tool, dict) else None
        if section is not None:
            if not isinstance(section, dict):
                raise ConfigError("pyproject.toml: [tool.skillstate] must be a table")
            layers.append(("pyproject.toml [tool.skillstate]", section))
    own = root / CONFIG_FILE
    if own.is_file():
        layers.append((CONFIG_FILE, _read_toml(own, CONFIG_FILE)))
    return layers


def find_project_root(start: Path | str | None = None) -> Path:
    """The project directory of ``start`` (default: the current directory); module docstring."""
    here = Path(start) if start is not None else Path.cwd()
    try:
        home: Path | None = Path.home()
    except (KeyError, RuntimeError):  # no home directory (a service account)
        home = None
    for directory in (here, *here.parents):
        try:
            if (directory / CONFIG_FILE).is_file() or _has_tool_table(directory):
                return directory
            if (directory / ".skillstate").is_dir() and directory != home:
                return directory
            if os.path.lexists(directory / ".git"):
                return directory
        except OSError:  # an unreadable directory on the way up: stop there
            break
    return here


def _has_tool_table(directory: Path) -> bool:
    """Whether ``directory/pyproject.toml`` has a ``[tool.skillstate]`` table (a cheap look)."""
    path = directory / "pyproject.toml"
    if not path.is_file():
        return False
    try:
        return b"tool.skillstate" in path.read_bytes()
    except OSError:
        return False


_PATH_SCHEMES = ("file", "sqlite")
"""Store schemes whose URL may be a path relative to the project directory."""


def _anchored(url: str, root: Path) -> str:
    """``url`` with a relative ``file:``/``sqlite:`` path made absolute under ``root``."""
    scheme, colon, rest = url.partition(":")
    if not colon or scheme.lower() not in _PATH_SCHEMES or not rest:
        return url
    path, question, query = rest.partition("?")
    if scheme.lower() == "sqlite" and path.startswith("//"):
        # SQLAlchemy's rule: sqlite:///relative.db (three slashes), sqlite:////absolute.db
        authority, slash, path = path[2:].partition("/")
        if authority not in ("", "localhost") or not slash:
            return url  # malformed: the store says why when it opens
    if not path or path.startswith(("/", "~")):
        return url
    return f"{scheme}:{root / path}{question}{query}"


def load_config(
    root: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Config:
    """The effective configuration for the project at ``root``.

    ``root`` defaults to :func:`find_project_root` of the current directory; when that
    is an ancestor, a relative ``file:``/``sqlite:`` store from the defaults or a
    configuration file is anchored there (module docstring).
    """
    base = Path(root) if root is not None else find_project_root()
    walked = root is None and base != Path.cwd()
    environ = os.environ if env is None else env
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for where, table in _file_layers(base, environ):
        for name, value in table.items():
            key = KEYS.get(name)
            if key is None:
                raise ConfigError(
                    f"{where}: unknown key '{name}'. Known keys: {', '.join(sorted(KEYS))}"
                )
            values[name] = check_file_value(key, value, where)
            sources[name] = where
    for key in KEYS.values():
        if key.env and key.env in environ:
            values[key.name] = env_value(key, environ[key.env])
            sources[key.name] = f"environment ({key.env})"
    for name, value in (overrides or {}).items():
        if value is None:
            continue
        if name not in KEYS:
            raise ConfigError(f"unknown configuration key '{name}'")
        values[name] = value
        sources[name] = "command line"
    where = sources.get("store", "default")
    if walked and not where.startswith(("environment", "command line")):
        values["store"] = _anchored(str(values.get("store", KEYS["store"].default)), base)
    return Config(values=values, sources=sources, root=base)
