"""The README documents the observation layout; keep it in sync with the code."""
from pathlib import Path

from ginenv.encoding import layout_table

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_observation_layout_table_matches_code():
    assert layout_table() in README.read_text(encoding="utf-8")


def test_readme_holds_the_set_up_and_test_commands_ci_runs():
    text = README.read_text(encoding="utf-8")
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    test_command = [line for line in ci.splitlines() if "pytest" in line and not line.startswith("#")][0]
    assert test_command in text
