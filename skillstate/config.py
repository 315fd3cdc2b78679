"""Configuration: ``[tool.skillstate]`` in ``pyproject.toml``, ``skillstate.toml``, environment, flags.

Precedence, lowest first: built-in defaults, ``pyproject.toml``'s ``[tool.skillstate]``,
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
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from skillstate.display import excerpt
from skillstate.errors import ConfigError
from skillstate.records import Budget

__all__ = ["KEYS", "Config", "ConfigKey", "find_project_root", "load_config", "set_config_value"]

CONFIG_FILE = "skillstate.toml"


@attrs.frozen
class ConfigKey:
    """One configuration key: its kind (``str``, ``list``, ``bool``, ``int``, ``duration``,
    ``budget``, ``durability``), env var, default."""

    name: str
    kind: str
    description: str
    env: str | None = None
    default: Any = None


KEYS: dict[str, ConfigKey] = {
    key.name: key
    for key in (
        ConfigKey(
            "store",
            "str",
            "Store URL: file:PATH (default file:.skillstate/state), memory:, sqlite:///PATH, postgresql://...",
            "SKILLSTATE_STORE",
            "file:.skillstate/state",
        ),
        ConfigKey(
            "durability",
            "durability",
            "full: an acknowledged write survives power loss; process: it survives any process "
            "crash, and a power loss loses at most the last second (a store URL's "
            "?durability= wins)",
            "SKILLSTATE_DURABILITY",
            "full",
        ),
        ConfigKey(
            "disable_plugins",
            "list",
            "Plugins never loaded, by entry-point or distribution name",
            "SKILLSTATE_DISABLE_PLUGINS",
            (),
        ),
        ConfigKey(
            "load_plugins",
            "list",
            "Allow-list: only these plugins are loaded (empty loads none; unset loads all)",
            "SKILLSTATE_LOAD_PLUGINS",
            None,
        ),
        ConfigKey(
            "strict_plugins",
            "bool",
            "A plugin that fails to load is fatal instead of reported",
            "SKILLSTATE_STRICT_PLUGINS",
            False,
        ),
        ConfigKey(
            "trace_plugins",
            "bool",
            "Print every hook call (implementations, summarised arguments and results) to stderr",
            "SKILLSTATE_TRACE_PLUGINS",
            False,
        ),
        ConfigKey(
            "default_environment",
            "str",
            "Environment of a session that names none (unset: the one a plugin offers as default)",
            "SKILLSTATE_DEFAULT_ENVIRONMENT",
            None,
        ),
        ConfigKey(
            "budget",
            "budget",
            "Default size budget: string_chars, array_items, document_bytes",
            None,
            None,
        ),
        ConfigKey(
            "skills_path",
            "str",
            "Project skill directory (SKILL.md folders)",
            "SKILLSTATE_SKILLS_PATH",
            ".skillstate/skills",
        ),
        ConfigKey(
            "user_skills_path",
            "str",
            "User skill directory, searched after the project one",
            "SKILLSTATE_USER_SKILLS_PATH",
            "~/.skillstate/skills",
        ),
        ConfigKey(
            "max_active_sessions",
            "int",
            "Most active SKILL.state sessions at once; a new one beyond it is refused (0: no cap)",
            "SKILLSTATE_MAX_ACTIVE_SESSIONS",
            256,
        ),
        ConfigKey(
            "session_idle_ttl",
            "duration",
            "Sessions not written for this long (30m, 24h, 7d) are closed, not deleted (0: never)",
            "SKILLSTATE_SESSION_IDLE_TTL",
            "24h",
        ),
    )
}

BUDGET_KEYS = ("string_chars", "array_items", "document_bytes")


def _usage(message: str) -> ConfigError:
    """A :class:`ConfigError` about what the command line named (exit 2, not 3)."""
    error = ConfigError(message)
    error.kind = "usage"
    return error


@attrs.frozen
class Config:
    """The effective configuration and where each value came from."""

    values: Mapping[str, Any]
    sources: Mapping[str, str]
    root: Path

    def get(self, key: str) -> Any:
        if key not in KEYS:
            raise _usage(
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
    def session_idle_ttl(self) -> float:
        """Seconds (0: sessions never expire)."""
        from skillstate.retention import parse_duration

        return parse_duration(str(self.get("session_idle_ttl")), "session_idle_ttl")

    @property
    def budget(self) -> Budget | None:
        value = self.get("budget")
        return value if isinstance(value, Budget) else None


def _check(key: ConfigKey, value: Any, where: str) -> Any:
    """Coerce a file value to the key's kind, or raise a ConfigError naming file and key."""
    if key.kind == "str":
        if not isinstance(value, str):
            raise ConfigError(
                f"{where}: key '{key.name}' must be a string, got {excerpt(repr(value))}"
            )
        return value
    if key.kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(
                f"{where}: key '{key.name}' must be true or false, got {excerpt(repr(value))}"
            )
        return value
    if key.kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(
                f"{where}: key '{key.name}' must be a list of strings, got {excerpt(repr(value))}"
            )
        return tuple(value)
    if key.kind == "int":
        if type(value) is not int or value < 0:
            raise ConfigError(
                f"{where}: key '{key.name}' must be a whole number >= 0, got {value!r}"
            )
        return value
    if key.kind == "duration":
        return _duration(key, value, where)
    if key.kind == "durability":
        return _level(value, where)
    # budget
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where}: key 'budget' must be a table with {', '.join(BUDGET_KEYS)}, got {excerpt(repr(value))}"
        )
    return _structure_budget(value, where)


def _duration(key: ConfigKey, value: Any, where: str) -> str:
    from skillstate.errors import InvalidInput
    from skillstate.retention import parse_duration

    if type(value) is int and value >= 0:
        value = str(value)
    try:
        parse_duration(value, key.name)
    except InvalidInput as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return str(value)


def _level(value: Any, where: str) -> str:
    """A durability level, or a usage error naming ``where`` (exit 2, nothing changes)."""
    from skillstate.durability import check_level

    return check_level(value, where, ConfigError)


def _structure_budget(table: Mapping[str, Any], where: str) -> Budget:
    import cattrs

    converter = cattrs.Converter(forbid_extra_keys=True)
    for name, item in table.items():
        if name in BUDGET_KEYS and (type(item) is not int or item < 1):
            raise ConfigError(
                f"{where}: key 'budget.{name}' must be a positive integer, got {excerpt(repr(item))}"
            )
    try:
        return converter.structure(dict(table), Budget)
    except Exception as exc:
        extra = sorted(set(table) - set(BUDGET_KEYS))
        if extra:
            raise ConfigError(
                f"{where}: unknown key 'budget.{extra[0]}'. Known keys: {', '.join(BUDGET_KEYS)}"
            ) from None
        raise ConfigError(f"{where}: key 'budget' is invalid: {exc}") from None


def _env_value(key: ConfigKey, raw: str) -> Any:
    where = f"environment variable {key.env}"
    if key.kind == "list":
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    if key.kind == "bool":
        lowered = raw.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("", "0", "false", "no", "off"):
            return False
        raise ConfigError(f"{where} must be 1 or 0, got {excerpt(repr(raw))}")
    if key.kind == "int":
        if not raw.strip().isdigit():
            raise ConfigError(f"{where} must be a whole number >= 0, got {raw!r}")
        return int(raw.strip())
    if key.kind == "duration":
        return _duration(key, raw, where)
    if key.kind == "durability":
        return _level(raw, where)
    return raw


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # lazily: only when a configuration file exists (CLI start-up time)

    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path.name}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path.name}: cannot be read: {exc.strerror}") from None


def _file_layers(root: Path) -> list[tuple[str, dict[str, Any]]]:
    layers: list[tuple[str, dict[str, Any]]] = []
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        data = _read_toml(pyproject)
        tool = data.get("tool", {})
        section = tool.get("skillstate") if isinstance(tool, dict) else None
        if section is not None:
            if not isinstance(section, dict):
                raise ConfigError("pyproject.toml: [tool.skillstate] must be a table")
            layers.append(("pyproject.toml [tool.skillstate]", section))
    own = root / CONFIG_FILE
    if own.is_file():
        layers.append((CONFIG_FILE, _read_toml(own)))
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
    for where, table in _file_layers(base):
        for name, value in table.items():
            key = KEYS.get(name)
            if key is None:
                raise ConfigError(
                    f"{where}: unknown key '{name}'. Known keys: {', '.join(sorted(KEYS))}"
                )
            values[name] = _check(key, value, where)
            sources[name] = where
    for key in KEYS.values():
        if key.env and key.env in environ:
            values[key.name] = _env_value(key, environ[key.env])
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


def _parse_cli_value(key: ConfigKey, sub: str | None, raw: str) -> Any:
    if key.kind == "budget":
        if sub not in BUDGET_KEYS:
            raise _usage(f"set budget.<name> where name is one of {', '.join(BUDGET_KEYS)}")
        try:
            number = int(raw)
        except ValueError:
            raise _usage(
                f"budget.{sub} must be a positive integer, got {excerpt(repr(raw))}"
            ) from None
        if number < 1:
            raise _usage(f"budget.{sub} must be a positive integer, got {excerpt(repr(raw))}")
        return number
    if sub is not None:
        raise _usage(f"key '{key.name}' has no sub-keys")
    if key.kind == "list":
        return [part.strip() for part in raw.split(",") if part.strip()]
    if key.kind == "bool":
        lowered = raw.strip().lower()
        if lowered not in ("true", "false", "1", "0"):
            raise _usage(f"{key.name} must be true or false, got {excerpt(repr(raw))}")
        return lowered in ("true", "1")
    if key.kind == "int":
        if not raw.strip().isdigit():
            raise ConfigError(f"{key.name} must be a whole number >= 0, got {raw!r}")
        return int(raw.strip())
    if key.kind == "duration":
        return _duration(key, raw, "skillstate config set")
    if key.kind == "durability":
        return _level(raw, "skillstate config set")
    return raw


def set_config_value(root: Path | str, dotted_key: str, raw: str) -> Path:
    """Write ``key = value`` into ``skillstate.toml`` at ``root``, keeping every other key.

    The file is edited in place with tomlkit, so its comments, key order and formatting
    stay as they were; the new file is checked as :func:`load_config` would read it
    before it replaces the old one (atomically).
    """
    import tomllib

    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    name, _, sub = dotted_key.partition(".")
    key = KEYS.get(name)
    if key is None:
        raise _usage(
            f"unknown configuration key '{excerpt(dotted_key)}'. Known keys: {', '.join(sorted(KEYS))}"
        )
    value = _parse_cli_value(key, sub or None, raw)
    path = Path(root) / CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        document = tomlkit.parse(text)
    except OSError as exc:
        raise ConfigError(f"{CONFIG_FILE}: cannot be read: {exc.strerror}") from None
    except (TOMLKitError, ValueError) as exc:
        raise ConfigError(f"{CONFIG_FILE}: not valid TOML: {excerpt(str(exc))}") from None
    if key.kind == "budget":
        table = document.get("budget")
        if not isinstance(table, dict):
            table = tomlkit.table()
            document["budget"] = table
        table[str(sub)] = value
    else:
        document[name] = value
    text = tomlkit.dumps(document)
    data = tomllib.loads(text)  # what load_config will read: check it all before writing
    for where_name, table_value in data.items():
        check_key = KEYS.get(where_name)
        if check_key is not None:
            _check(check_key, table_value, CONFIG_FILE)
    tmp = path.with_name(f".{CONFIG_FILE}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path
