"""`brainbot search` right after switching embeddings on for a vault indexed without
them: it answers by keyword at once and leaves the embedding to `brainbot run`,
where a search used to embed every note first, saying nothing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.cli import main
from tests.fakes.openai_server import FakeOpenAI

NOTES = 80  # more than a sync embeds itself (storage.index.backfill.INLINE)


async def test_search_after_switching_embeddings_on_answers_at_once(
    tmp_path: Path,
    database_url: str,
    openai_fake: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def run(args: list[str]) -> int:
        # In a thread: the fake model server answers on this test's event loop.
        return await asyncio.to_thread(main, args)

    monkeypatch.setenv("BRAINBOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("BRAINBOT_EMBEDDINGS", "none")
    monkeypatch.chdir(tmp_path)  # no stray .env
    src = tmp_path / "notes" / "ideas"
    src.mkdir(parents=True)
    for n in range(NOTES):
        (src / f"note {n}.md").write_text(f"# Note {n}\nThe marker word{n}.\n")
    assert await run(["import", str(tmp_path / "notes")]) == 0
    capsys.readouterr()

    monkeypatch.setenv("BRAINBOT_EMBEDDINGS", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_fake.base_url)
    monkeypatch.setenv("BRAINBOT_EMBEDDING_MODEL", "nomic-embed-text")
    monkeypatch.setenv("BRAINBOT_EMBEDDING_DIMENSIONS", "32")
    assert await run(["search", "word42", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["hits"][0]["path"] == "ideas/note 42.md"
    sent = [body["input"] for path, body in openai_fake.requests if path == "embeddings"]
    assert sent == [["word42"]]  # the query only: no note was embedded on the way
