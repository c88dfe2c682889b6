"""`brainbot import`, `reindex`, `search` and `vaults` as a user runs them."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from app.cli import main
from tests.fakes.openai_server import FakeOpenAI
from tests.storage.vault.bad_content import nest, unnest


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
    # The first import makes the brain, and says where.
    assert f"making a new brain in {tmp_path / 'data'} (BRAINBOT_DATA_DIR)" in err
    assert (brainbot_env / "projects" / "sub folder" / "Airship plan.md").is_file()

    assert main(["search", "zeppelin budget"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("1. Airship plan  [projects/sub folder/Airship plan.md]")
    # Why it matched (its words: no embeddings here) and the passage, words marked.
    first = out.splitlines()[0]
    assert first.endswith("  words")
    assert "**zeppelin**" in out.splitlines()[1]
    assert "keyword search only" in err

    assert main(["search", "zeppelin", "--json", "--category", "people", "--limit", "5"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "keyword"
    assert [h["path"] for h in data["hits"]] == ["people/bad.md"]
    assert data["hits"][0]["snippet"] == "The zeppelin hangar."
    assert data["hits"][0]["passage"] == "The **zeppelin** hangar."
    assert data["hits"][0]["matched"] == "words"


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


def test_import_of_a_tree_too_deep_says_what_it_skipped(
    brainbot_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = notes_folder(tmp_path)
    nest(src, 1000)
    try:
        assert main(["import", str(src)]) == 0
    finally:
        unnest(src)
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("Imported 3 notes") and "Skipped 2" in first
    assert "64 folders deep" in out and "people/empty.md: empty" in out
    assert main(["search", "narwhal"]) == 0
    assert "No matching notes" in capsys.readouterr().out


def test_import_of_a_missing_folder_fails_cleanly(
    brainbot_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", str(tmp_path / "nope")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def chunk_count(database_url: str) -> int:
    import psycopg

    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM chunks").fetchone()
        return int(row[0]) if row else 0


async def test_switching_embeddings_never_drops_vectors_silently(
    brainbot_env: Path,
    tmp_path: Path,
    database_url: str,
    openai_fake: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def run(args: list[str]) -> int:
        # In a thread: the fake model server answers on this test's event loop.
        return await asyncio.to_thread(main, args)

    monkeypatch.setenv("BRAINBOT_EMBEDDINGS", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_fake.base_url)
    monkeypatch.setenv("BRAINBOT_EMBEDDING_MODEL", "first-model")
    assert await run(["import", str(notes_folder(tmp_path))]) == 0
    vectors = chunk_count(database_url)
    assert vectors >= 3

    def embedded() -> int:
        return sum(
            len(body["input"]) for path, body in openai_fake.requests if path == "embeddings"
        )

    # One command without embeddings: keyword search, and the vectors stay.
    monkeypatch.setenv("BRAINBOT_EMBEDDINGS", "none")
    assert await run(["search", "zeppelin"]) == 0
    assert await run(["reindex"]) == 1
    assert "brainbot reindex --embed" in capsys.readouterr().err
    assert chunk_count(database_url) == vectors

    # Another model is refused with what to do, and changes nothing.
    monkeypatch.setenv("BRAINBOT_EMBEDDINGS", "openai")
    monkeypatch.setenv("BRAINBOT_EMBEDDING_MODEL", "second-model")
    assert await run(["search", "zeppelin"]) == 1
    err = capsys.readouterr().err
    assert "openai:first-model" in err and "openai:second-model" in err
    assert "reindex --embed" in err
    assert chunk_count(database_url) == vectors

    # Back to the first: hybrid search on the vectors it had; only the query is embedded.
    monkeypatch.setenv("BRAINBOT_EMBEDDING_MODEL", "first-model")
    before = embedded()
    assert await run(["search", "zeppelin", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "hybrid"
    assert embedded() - before <= 2  # a dimension probe and the query, no note

    # Asked for explicitly, the new model replaces them.
    monkeypatch.setenv("BRAINBOT_EMBEDDING_MODEL", "second-model")
    assert await run(["reindex", "--embed"]) == 0
    assert "Indexed 3 notes." in capsys.readouterr().out
    assert await run(["search", "zeppelin", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "hybrid"
    assert chunk_count(database_url) == vectors


def test_vaults_are_listed_and_chosen_by_name(
    brainbot_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`brainbot vaults` names each vault with its note count; `--vault` picks one, and
    a name that is no vault is refused with the list of vaults."""
    assert main(["import", str(notes_folder(tmp_path))]) == 0
    capsys.readouterr()
    assert main(["vaults"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("vault\t") and "\t3 notes\t" in line and line.endswith(str(brainbot_env))
    assert main(["search", "zeppelin", "--vault", "vault"]) == 0
    assert "Airship plan" in capsys.readouterr().out
    assert main(["search", "zeppelin", "--vault", "nobody"]) == 1
    assert "there is no vault 'nobody'; the vaults are: vault" in capsys.readouterr().err


def test_search_syntax_on_the_command_line(
    brainbot_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", str(notes_folder(tmp_path))]) == 0
    capsys.readouterr()
    assert main(["search", 'zeppelin "$" -hangar']) == 0
    assert capsys.readouterr().out.startswith("1. Airship plan")
    assert main(["search", "tag:finance", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "filter"
    assert [h["path"] for h in data["hits"]] == ["people/Sarah.md"]
    assert main(["search", "zeppelin tag:garden"]) == 0
    assert capsys.readouterr().out == "No notes tagged #garden.\n"
