"""The ``ginrummy`` command line: eval and tournament end to end on tiny settings."""
from __future__ import annotations

import csv
import json
import re
import subprocess
import sys

import pytest

from train.cli import _build_parser, main
from train.evaluation.tournament import load


def _help(command):
    parser = _build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return sub.format_help()


@pytest.mark.parametrize("command, options", [
    ("eval", ["--games", "--ruleset", "--episode", "--seed", "--workers", "--json", "--no-progress"]),
    ("tournament", ["--games", "--ruleset", "--episode", "--seed", "--workers", "--out-dir", "--intervals",
                    "--bootstrap", "--prior", "--no-progress"]),
])
def test_every_option_is_documented(command, options):
    text = _help(command)
    for option in options:
        assert re.search(rf"^\s+{option}\b.*\S", text, re.M), option
    parser = _build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    assert all(action.help for action in sub._actions)


def test_eval_end_to_end_writes_json(tmp_path, capsys):
    out = tmp_path / "eval.json"
    rc = main(["eval", "random", "random", "--games", "6", "--episode", "hand", "--seed", "3", "--workers", "1",
               "--no-progress", "--json", str(out)])
    assert rc == 0
    printed = capsys.readouterr().out
    for text in ("win rate of A", "CI", "sign test", "points per hand", "gin", "undercut", "dead",
                 "mean hand length", "decisions/s"):
        assert text in printed
    data = json.loads(out.read_text())
    assert data["games"] == 6 and data["pairs"] == 3 and data["episode"] == "hand" and data["seed"] == 3
    assert data["ci_low"] <= data["win_rate_a"] <= data["ci_high"]
    assert 0 <= data["sign_test_p"] <= 1


def test_tournament_end_to_end_writes_json_csv_png(tmp_path, capsys):
    rc = main(["tournament", "random", "random", "random", "--games", "2", "--episode", "hand", "--workers", "1",
               "--bootstrap", "50", "--no-progress", "--out-dir", str(tmp_path / "t")])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "Elo" in printed and "random#3" in printed
    data = json.loads((tmp_path / "t" / "ratings.json").read_text())
    assert len(data["ratings"]) == 3 and len(data["pairings"]) == 3
    assert all(row["elo_low"] <= row["elo"] <= row["elo_high"] for row in data["ratings"])
    assert sum(row["elo"] for row in data["ratings"]) == pytest.approx(3 * 1500)
    with (tmp_path / "t" / "ratings.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [row["rank"] for row in rows] == ["1", "2", "3"]
    assert {row["agent"] for row in rows} == {"random", "random#2", "random#3"}
    assert (tmp_path / "t" / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = (tmp_path / "t" / "ratings.md").read_text().splitlines()
    assert table[0] == "| agent | Elo [95%] | ms per decision | vs random | vs random#2 | vs random#3 |"
    assert len(table) == 2 + 3 + 2 and all(line.count("|") == 7 for line in table[:5])
    assert table[2].startswith(f"| {data['ratings'][0]['agent']} | ") and "| – |" in table[2]
    assert load(tmp_path / "t" / "ratings.json").to_dict() == data


def test_tournament_fisher_intervals(tmp_path):
    rc = main(["tournament", "random", "random", "--games", "2", "--episode", "hand", "--workers", "1",
               "--intervals", "fisher", "--no-progress", "--out-dir", str(tmp_path)])
    assert rc == 0
    assert json.loads((tmp_path / "ratings.json").read_text())["settings"]["intervals"] == "fisher"


def test_unknown_agent_reports_make_agents_error(capsys):
    assert main(["eval", "random", "no_such_agent", "--games", "2", "--workers", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'no_such_agent'" in err
    assert main(["tournament", "random", "random:speed=3", "--games", "2", "--workers", "1", "--no-progress"]) == 2
    assert "bad parameters for agent 'random'" in capsys.readouterr().err


def test_tournament_needs_two_agents(capsys):
    assert main(["tournament", "random", "--games", "2", "--no-progress"]) == 2
    assert "at least 2 agents" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["eval", "random", "random", "--games", "0"],
    ["eval", "random", "random", "--games", "many"],
    ["eval", "random", "random", "--workers", "0"],
    ["eval", "random", "random", "--seed", "-1"],
    ["eval", "random", "random", "--episode", "match"],
    ["eval", "random", "random", "--ruleset", "nope"],
    ["eval", "random"],
    ["tournament", "random", "random", "--prior", "-1"],
    ["tournament", "random", "random", "--intervals", "wald"],
])
def test_bad_arguments_exit_with_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "error" in capsys.readouterr().err


def test_simulate_still_works(capsys):
    assert main(["simulate", "--hands", "3", "--no-progress"]) == 0
    assert "3 random hands" in capsys.readouterr().out


def test_eval_as_a_script_with_two_spawned_workers(tmp_path):
    out = tmp_path / "eval.json"
    run = subprocess.run([sys.executable, "-m", "train.cli", "eval", "random", "random", "--games", "8",
                          "--episode", "hand", "--workers", "2", "--no-progress", "--json", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    data = json.loads(out.read_text())
    assert data["workers"] == 2 and data["games"] == 8
