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
