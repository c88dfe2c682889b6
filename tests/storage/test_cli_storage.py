"""`brainbot import`, `brainbot reindex` and `brainbot search` as a user runs them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bot.cli import main


@pytest.fixture
def brainbot_env(tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BRAINBOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("BRAINBOT_EMBEDDINGS", "none")
    monkeypatch.chdir(tmp_path)  # no stray .env
    return tmp_path / "data" / "vault"


def notes_folder(root: Path) -> Path:
    src = root / "notes"
    (src / "projects" / "sub folder").mkdir(parents=True)
    (src / "projects" / "sub folder" / "Airship plan.md").write_text(
        "# Airship plan\n\nBudget call with [[Sarah]] about the zeppelin.\n"
    )
    (src / "people").mkdir()
    (src / "people" / "Sarah.md").write_text("---\ntags: [finance]\n---\nSarah, finance.\n")
    (src / "people" / "bad.md").write_text("---\n: : [\n---\nThe zeppelin hangar.\n")
    (src / "people" / "empty.md").write_text("")
    return src


def test_import_then_search_as_text_and_json(
    brainbot_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", str(notes_folder(tmp_path))]) == 0
    out, err = capsys.readouterr()
    assert "Imported 3 notes" in out
    assert "people/empty.md" in out  # reported as skipped
    assert "index: 3/3" in err  # the progress, on stderr
    assert (brainbot_env / "projects" / "sub folder" / "Airship plan.md").is_file()

    assert main(["search", "zeppelin budget"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("1. Airship plan  [projects/sub folder/Airship plan.md]")
    assert "keyword search only" in err

    assert main(["search", "zeppelin", "--json", "--category", "people", "--limit", "5"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "keyword"
    assert [h["path"] for h in data["hits"]] == ["people/bad.md"]
    assert data["hits"][0]["snippet"] == "The zeppelin hangar."


def test_queries_from_stdin_give_one_json_line_each(
    brainbot_env: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert main(["import", str(notes_folder(tmp_path))]) == 0
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO("zeppelin\n\nfinance\nnothing-like-this\n"))
    assert main(["search", "-"]) == 0
    lines = capsys.readouterr().out.splitlines()
    answers = [json.loads(line) for line in lines]
    assert [a["query"] for a in answers] == ["zeppelin", "finance", "nothing-like-this"]
    assert {h["path"] for h in answers[0]["hits"]} == {
        "projects/sub folder/Airship plan.md",
        "people/bad.md",
    }
    assert [h["path"] for h in answers[1]["hits"]] == ["people/Sarah.md"]
    assert answers[2]["hits"] == []


def test_reindex_and_a_hand_edit_picked_up_by_the_next_command(
    brainbot_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", str(notes_folder(tmp_path))]) == 0
    (brainbot_env / "people" / "Sarah.md").write_text("Sarah moved to the glider club.\n")
    assert main(["search", "glider", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out[out.index("{") :])["hits"][0]["path"] == "people/Sarah.md"

    assert main(["reindex"]) == 0
    assert "Indexed 3 notes." in capsys.readouterr().out


def test_import_of_a_missing_folder_fails_cleanly(
    brainbot_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", str(tmp_path / "nope")]) == 2
    assert "is not a folder" in capsys.readouterr().err
