"""Every ```python block of README.md runs (on sim), so the README's examples cannot rot."""
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_block_runs(i, capsys):
    exec(compile(BLOCKS[i], f"README.md block {i}", "exec"), {})
    out = capsys.readouterr().out
    assert "False" not in out      # the examples print True / expected values


def test_readme_is_short_and_speaks_to_users():
    text = README.read_text()
    assert len(text.splitlines()) <= 150
    words = re.compile(r"\bruns? \d+\b|\bissues? #?\d+|#\d+\b|\blent\b|\bleases?\b|\bpass\b|"
                       r"\bpasses\b|\bsessions?\b", re.I)
    assert words.findall(text) == []
