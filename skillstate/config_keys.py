"""The configuration keys: each key's kind, environment variable and default, and how a
value of each kind is checked — from a configuration file (:func:`check_file_value`),
from the environment (:func:`env_value`) — with one error naming where it came from.

:mod:`skillstate.config` reads the layers (files, environment, flags) with these;
:mod:`skillstate.config_edit` (``skillstate config set``) checks what it writes with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillstate.display import excerpt
from skillstate.errors import ConfigError
from skillstate.records import Budget

__all__ = [
    "BUDGET_KEYS",
    "KEYS",
    "ConfigKey",
    "check_duration",
    "check_file_value",
    "check_level",
    "env_value",
    "in_range",
    "int_rule",
    "usage_error",
]


@attrs.frozen
class ConfigKey:
    """One configuration key: its kind (``str``, ``list``, ``bool``, ``int``, ``duration``,
    ``budget``, ``durability``), env var, default; an ``int`` is within ``least``..``most``."""

    name: str
    kind: str
    description: str
    env: str | None = None
    default: Any = None
    least: int = 0
    most: int | None = None


KEYS: dict[str, ConfigKey] = {
    key.name: key
    for key in (
        ConfigKey(
            "store",
            "str",
            "Store URL: file:PATH (default file:.skillstate/state), memory:, sqlite:///relative.db or sqlite:////abs.db, postgresql://...",
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
            "max_input_bytes",
            "int",
            "Largest JSON document (a patch, a seed, an initial state) the command lines read, "
            "in bytes; a bigger one is refused before it is parsed (1,024 to 1 GiB)",
            "SKILLSTATE_MAX_INPUT_BYTES",
            1024 * 1024,
            least=1024,
            most=1 << 30,
        ),
        ConfigKey(
            "max_spec_bytes",
            "int",
            "Largest skill specification P a new session takes, in UTF-8 bytes of compact "
            "JSON (1 to 1,000,000)",
            "SKILLSTATE_MAX_SPEC_BYTES",
            65536,
            least=1,
            most=1_000_000,  # a store keeps strings of at most 1,000,000 characters
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


def usage_error(message: str) -> ConfigError:
    """A :class:`ConfigError` about what the command line named (exit 2, not 3)."""
    return ConfigError(message, kind="usage")


def check_file_value(key: ConfigKey, value: Any, where: str) -> Any:
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
        if type(value) is not int or not in_range(key, value):
            raise ConfigError(f"{where}: key '{key.name}' must be {int_rule(key)}, got {value!r}")
        return value
    if key.kind == "duration":
        return check_duration(key, value, where)
    if key.kind == "durability":
        return check_level(value, where)
    # budget
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where}: key 'budget' must be a table with {', '.join(BUDGET_KEYS)}, got {excerpt(repr(value))}"
        )
    return structure_budget(value, where)


def in_range(key: ConfigKey, value: int) -> bool:
    """Whether an ``int`` key's ``value`` is within its bounds."""
    return value >= key.least and (key.most is None or value <= key.most)


def int_rule(key: ConfigKey) -> str:
    """How an ``int`` key's value must be, in words: ``a whole number >= 0``."""
    if key.most is None:
        return f"a whole number >= {key.least}"
    return f"a whole number from {key.least} to {key.most:,}"


def check_duration(key: ConfigKey, value: Any, where: str) -> str:
    from skillstate.errors import InvalidInput
    from skillstate.retention import parse_duration

    if type(value) is int and value >= 0:
        value = str(value)
    try:
        parse_duration(value, key.name)
    except InvalidInput as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return str(value)


def check_level(value: Any, where: str) -> str:
    """A durability level, or a usage error naming ``where`` (exit 2, nothing changes)."""
    from skillstate.durability import check_level as level_of

    return level_of(value, where, ConfigError)


def structure_budget(table: Mapping[str, Any], where: str) -> Budget:
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


def env_value(key: ConfigKey, raw: str) -> Any:
    where = f"environment variable {key.env}"
    if key.kind == "list":
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    if key.kind == "bool":
        lowered = raw.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("", "0", "false", "no", "off"):
            return False
        raise ConfigError(
            f"{where} must be 1, true, yes or on, or 0, false, no or off; got {excerpt(repr(raw))}"
        )
    if key.kind == "int":
        if not raw.strip().isascii() or not raw.strip().isdigit():
            raise ConfigError(f"{where} must be {int_rule(key)}, got {excerpt(repr(raw))}")
        number = int(raw.strip())
        if not in_range(key, number):
            raise ConfigError(f"{where} must be {int_rule(key)}, got {number}")
        return number
    if key.kind == "duration":
        return check_duration(key, raw, where)
    if key.kind == "durability":
        return check_level(raw, where)
    return raw
