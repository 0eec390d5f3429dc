"""The README and the pages in docs/ say what the code does: their code runs, their commands parse,
their links resolve, and the observation and config-key tables are the ones the code generates."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from ginenv.game.encoding import layout_table
from train.cli import _build_parser
from train.training.config import keys_table

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").rglob("*.md"))
USER_PAGES = [README, *(page for page in PAGES if "experiments" not in page.parts)]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def blocks(page: Path, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(page.read_text(encoding="utf-8")) if lang == language]


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_the_readme_is_a_front_door_of_at_most_300_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 300


def test_the_readme_holds_the_test_command_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = [line for line in ci.splitlines() if "pytest" in line and not line.startswith("#")][0]
    assert test_command in README.read_text(encoding="utf-8")


def test_the_environment_page_shows_the_observation_layout_the_code_generates():
    assert layout_table() in (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")


def test_every_documentation_page_is_there():
    for page in ("rules", "environment", "training", "agents", "benchmarks", "experiments/README"):
        assert (ROOT / "docs" / f"{page}.md").is_file(), page


def test_the_rules_page_covers_every_rule():
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert [n for n in range(1, 29) if not re.search(rf"\bR{n}\b", text)] == []


@pytest.mark.parametrize("page", [README, *PAGES], ids=name)
def test_relative_links_resolve(page):
    targets = [t for t in LINK.findall(page.read_text(encoding="utf-8"))
               if "://" not in t and not t.startswith("mailto:")]
    assert [t for t in targets if not (page.parent / t).exists()] == []


@pytest.mark.parametrize("page", USER_PAGES, ids=name)
def test_every_ginrummy_command_shown_parses(page):
    parser = _build_parser()
    commands = [line.strip() for body in blocks(page, "bash") for line in body.replace("\\\n", " ").splitlines()
                if line.strip().startswith("ginrummy ")]
    for command in commands:
        words = shlex.split(command.split(" #")[0].split(" && ")[0].split(" | ")[0])[1:]
        try:
            parser.parse_args(words)
        except SystemExit as exit_:
            pytest.fail(f"{name(page)}: `{command}` does not parse (exit {exit_.code})")


@pytest.mark.parametrize("page", USER_PAGES, ids=name)
def test_python_snippets_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for snippet in blocks(page, "python"):
        exec(compile(snippet, f"{name(page)} snippet", "exec"), {"__name__": "__snippet__"})


def test_the_training_page_lists_every_config_key_the_code_documents():
    assert keys_table() in (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
