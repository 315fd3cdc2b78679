"""SKILL.md frontmatter: the reference's read vectors (flat parser), the optional YAML path,
and the strict write-path messages."""

from __future__ import annotations

import json

import pytest

from ..frontmatter import (
    HeaderProblem,
    check_content,
    parse_flat,
    parse_frontmatter,
    split_frontmatter,
    yaml_available,
)

# (input, [frontmatter, body]) as JSON strings, verbatim from reference/skill-store.md §3.2.
VECTORS = [
    (
        r'"---\nname: pdf-tools\ndescription: Fill PDF forms\n---\n# PDF\nUse it.\n"',
        r'[{"name": "pdf-tools", "description": "Fill PDF forms"}, "# PDF\nUse it.\n"]',
    ),
    (r'"# No frontmatter\nname: x\n"', r'[{}, "# No frontmatter\nname: x\n"]'),
    (
        r'"\ufeff---\nname: a\ndescription: b\n---\nbody\n"',
        r'[{"name": "a", "description": "b"}, "body\n"]',
    ),
    (r'"---\nname: a\ndescription: b\n"', r'[{}, "---\nname: a\ndescription: b\n"]'),
    (r'"---\nname: a\n---"', r'[{}, "---\nname: a\n---"]'),
    (
        r'"---\nurl: http://example.com:8080/x\n---\nbody\n"',
        r'[{"url": "http://example.com:8080/x"}, "body\n"]',
    ),
    (r'"---\nname: a\nname: b\n---\nbody\n"', r'[{"name": "b"}, "body\n"]'),
    (
        r'"---\nname: a\njust a line\n  tags: [x, y]\n---\nbody\n"',
        r'[{"name": "a", "tags": "[x, y]"}, "body\n"]',
    ),
    (
        r'"---\nname: \"quoted\"\ndescription: \u0027single\u0027\n---\nbody\n"',
        r'[{"name": "\"quoted\"", "description": "\u0027single\u0027"}, "body\n"]',
    ),
    (r'"---\nname: a\n---\n\n\nbody\n"', r'[{"name": "a"}, "body\n"]'),
    (r'"---\r\nname: a\r\n---\r\nbody\r\n"', r'[{"name": "a"}, "body\r\n"]'),
    (r'"---\nname: a\n---   \nbody\n"', r'[{"name": "a"}, "body\n"]'),
    (r'"---\nempty:\n: novalue\n---\nbody\n"', r'[{"empty": "", "": "novalue"}, "body\n"]'),
]


@pytest.mark.parametrize(("source", "expected"), VECTORS)
def test_reference_vectors_flat_parser(source: str, expected: str) -> None:
    text = json.loads(source)
    frontmatter, body = parse_frontmatter(text, use_yaml=False)
    assert [frontmatter, body] == json.loads(expected)


def test_flat_parser_splits_at_first_colon_and_keeps_text() -> None:
    assert parse_flat("a: b: c\nlist: [1, 2]\nnocolon\n k :  v ") == {
        "a": "b: c",
        "list": "[1, 2]",
        "k": "v",
    }


def test_nested_yaml_flattens_under_flat_parser() -> None:
    text = "---\nname: a\nmetadata:\n  author: me\n---\nbody\n"
    frontmatter, _ = parse_frontmatter(text, use_yaml=False)
    assert frontmatter == {"name": "a", "metadata": "", "author": "me"}


def test_opening_four_dashes_still_opens() -> None:
    frontmatter, body = parse_frontmatter("----\nname: a\n---\nb\n", use_yaml=False)
    assert frontmatter == {"name": "a"} and body == "b\n"


def test_split_reports_where_the_body_starts() -> None:
    text = "---\nname: a\n---\n\nbody\n"
    parts = split_frontmatter(text)
    assert parts is not None
    source, body, end = parts
    assert source == "\nname: a" and body == "body\n" and text[end:] == body


# -- the optional PyYAML read path --------------------------------------------------------


def test_yaml_path_when_pyyaml_is_installed() -> None:
    pytest.importorskip("yaml", reason="PyYAML is optional and not installed here")
    assert yaml_available()
    text = '---\nname: "quoted"\ntags: [x, y]\nmetadata:\n  author: me\n---\nbody\n'
    frontmatter, body = parse_frontmatter(text)
    assert frontmatter == {"name": "quoted", "tags": ["x", "y"], "metadata": {"author": "me"}}
    assert body == "body\n"
    # A YAML error falls back to the flat parser ...
    broken = "---\nname: a\ndescription: use it: when: [x\n---\nbody\n"
    assert parse_frontmatter(broken)[0] == {"name": "a", "description": "use it: when: [x"}
    # ... while a YAML document that is not a mapping gives {} (no fallback).
    assert parse_frontmatter("---\n- a\n- b\n---\nbody\n")[0] == {}
    # Dates and other scalars come back JSON-compatible.
    assert parse_frontmatter("---\nwhen: 2024-01-02\n---\nb\n")[0] == {"when": "2024-01-02"}


def test_default_is_the_flat_parser_without_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    from .. import frontmatter as frontmatter_module

    # as on a machine without PyYAML
    monkeypatch.setattr(frontmatter_module, "_yaml_loader", lambda: None)
    assert not yaml_available()
    frontmatter, _ = parse_frontmatter('---\nname: "q"\n---\nb\n')
    assert frontmatter == {"name": '"q"'}


def test_pyyaml_is_imported_on_first_use_only() -> None:
    """Importing the module (as ``skillstate mcp`` does at start) leaves PyYAML unloaded."""
    import subprocess
    import sys

    package = __package__.rsplit(".", 1)[0]  # this package, whatever its name
    code = (
        f"import sys, {package}, {package}.frontmatter as f\n"
        "before = 'yaml' in sys.modules\n"
        "f.parse_frontmatter('---\\nname: a\\n---\\n')\n"
        "print(before, 'yaml' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]


# -- the strict write path ----------------------------------------------------------------

GOOD = "---\nname: a\ndescription: does a\n---\nbody\n"


def test_check_content_accepts_good_text() -> None:
    fields, body = check_content(GOOD)
    assert fields == {"name": "a", "description": "does a"} and body == "body\n"
    assert check_content("\ufeff" + GOOD)[0]["name"] == "a"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("   \n", "Content cannot be empty."),
        (
            "name: a\n",
            "SKILL.md must start with YAML frontmatter (---). See existing skills for format.",
        ),
        (
            "---\nname: a\ndescription: b\n",
            "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line.",
        ),
        (
            "---\nname: a\n---",
            "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line.",
        ),
        ("---\nname: a\njust words\n---\nb\n", "Frontmatter line 3 is not a 'key: value' pair."),
        (
            "---\nname: a\n  child: x\n---\nb\n",
            "Frontmatter line 3 is not a 'key: value' pair "
            "(YAML: mapping values are not allowed in this context).",
        ),
        ("---\n: x\nname: a\n---\nb\n", "Frontmatter line 2 is not a 'key: value' pair."),
        ("---\n# note: x\n---\nb\n", "Frontmatter line 2 is not a 'key: value' pair."),
        ("---name: a\n---\nb\n", "The opening '---' line of SKILL.md must contain nothing else."),
        ("---\nname: a\nname: b\n---\nb\n", "Frontmatter key 'name' appears more than once."),
        ("---\ndescription: b\n---\nbody\n", "Frontmatter must include 'name' field."),
        ("---\nname: a\n---\nbody\n", "Frontmatter must include 'description' field."),
        (
            "---\nname: a\ndescription:\n---\nbody\n",
            "Frontmatter 'description' must not be empty: say what the skill does and when to use it.",
        ),
        (
            "---\nname: a\ndescription: " + "d" * 1025 + "\n---\nbody\n",
            "Description exceeds 1024 characters.",
        ),
        (
            "---\nname: a\ndescription: b\n---\n  \n\n",
            "SKILL.md must have content after the frontmatter (instructions, procedures, etc.).",
        ),
    ],
)
def test_check_content_messages(content: str, message: str) -> None:
    with pytest.raises(HeaderProblem) as caught:
        check_content(content)
    assert str(caught.value) == message


def test_description_of_exactly_1024_characters_is_fine() -> None:
    text = "---\nname: a\ndescription: " + "d" * 1024 + "\n---\nbody\n"
    assert len(check_content(text)[0]["description"]) == 1024


def test_crlf_content_is_accepted_on_write() -> None:
    fields, body = check_content("---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n")
    assert fields == {"name": "a", "description": "b"} and body == "body\r\n"
