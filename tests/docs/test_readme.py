"""The README's Python example runs and prints what the README says it prints."""

from __future__ import annotations

import subprocess
import sys

from support import ROOT, clean_env


def test_readme_python_example_prints_the_documented_line() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    expected = next(line for line in block.splitlines() if line.startswith("# False"))[2:]
    out = subprocess.run(
        [sys.executable, "-c", block], capture_output=True, text=True, env=clean_env(), timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected
    assert (
        len([line for line in block.splitlines() if line.strip() and not line.startswith("#")])
        <= 12
    )


def test_dev_test_refuses_a_worker_count_it_cannot_use() -> None:
    env = clean_env()
    env["SKILLSTATE_TEST_WORKERS"] = "two"
    out = subprocess.run(
        [str(ROOT / "dev"), "test", "--co", "-q"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=ROOT,
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr == (
        "dev: SKILLSTATE_TEST_WORKERS=two: give a number of workers (0 runs serially), "
        "auto or logical\n"
    )
