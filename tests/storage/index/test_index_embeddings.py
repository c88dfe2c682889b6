"""Embeddings from an OpenAI-compatible server (the fake one on 127.0.0.1), and what
the index does when that server is down."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from storage.index.embeddings import EmbeddingError, HashingEmbedder, OpenAIEmbedder, make_embedder
from tests.fakes.openai_server import FakeOpenAI
from tests.storage.index.index_support import opened_store


async def test_batches_floats_and_probed_dimensions(openai_fake: FakeOpenAI) -> None:
    embedder = OpenAIEmbedder(
        "nomic-embed-text", api_key=None, base_url=openai_fake.base_url, batch_size=2, max_retries=0
    )
    assert await embedder.probe() == 32
    vectors = await embedder.embed(["budget call", "", "tea"])
    await embedder.close()
    assert [len(v) for v in vectors] == [32, 32, 32]
    bodies = [body for path, body in openai_fake.requests if path == "embeddings"]
    assert [body["input"] for body in bodies[1:]] == [["budget call", " "], ["tea"]]
    assert all(body["encoding_format"] == "float" for body in bodies)
    assert "dimensions" not in bodies[0]


async def test_configured_dimensions_are_sent(openai_fake: FakeOpenAI) -> None:
    embedder = make_embedder("openai", "text-embedding-3-small", "key", openai_fake.base_url, 16)
    assert isinstance(embedder, OpenAIEmbedder) and embedder.dimensions == 16
    assert len((await embedder.embed(["x"]))[0]) == 16
    await embedder.close()
    assert openai_fake.requests[-1][1]["dimensions"] == 16


async def test_a_failing_service_is_an_embedding_error(openai_fake: FakeOpenAI) -> None:
    openai_fake.down = True
    embedder = OpenAIEmbedder("m", base_url=openai_fake.base_url, dimensions=8, max_retries=0)
    with pytest.raises(EmbeddingError):
        await embedder.embed(["x"])
    await embedder.close()


def test_make_embedder_kinds() -> None:
    assert make_embedder("none", "text-embedding-3-small") is None
    assert make_embedder("local", "text-embedding-3-small").name == "local:multilingual-e5-small"  # type: ignore[union-attr]
    hashing = make_embedder("hashing", "ignored", dimensions=48)
    assert isinstance(hashing, HashingEmbedder) and hashing.dimensions == 48
    with pytest.raises(ValueError):
        make_embedder("word2vec", "x")


async def test_notes_saved_while_embeddings_are_down_are_embedded_later(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    embedder = OpenAIEmbedder("m", base_url=openai_fake.base_url, dimensions=32, max_retries=0)
    async with opened_store(tmp_path / "vault", database_url, embedder) as store:
        openai_fake.down = True
        entry = await store.create("ideas", "Airship", "Zeppelin flight over the lake.")
        results = await store.search("zeppelin")
        assert [h.path for h in results.hits] == [entry.path]  # found by keyword
        assert results.mode == "keyword" and "embedding the query failed" in results.notes[0]

        openai_fake.down = False
        report = await store.sync()
        assert report.embedded == 1
        async with store.database.engine.connect() as conn:
            chunks = await conn.execute(text("SELECT count(*) FROM chunks"))
            assert chunks.scalar_one() == 1
        results = await store.search("zeppelin flight")
        assert results.mode == "hybrid" and results.hits[0].path == entry.path


async def test_service_down_at_start_keeps_the_recorded_vectors(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    def embedder() -> OpenAIEmbedder:
        return OpenAIEmbedder("nomic", base_url=openai_fake.base_url, max_retries=0)

    async with opened_store(tmp_path / "vault", database_url, embedder()) as store:
        entry = await store.create("ideas", "Airship", "Zeppelin flight over the lake.")
    openai_fake.down = True
    async with opened_store(tmp_path / "vault", database_url, embedder()) as store:
        assert [h.path for h in (await store.search("zeppelin")).hits] == [entry.path]
        async with store.database.engine.connect() as conn:
            chunks = await conn.execute(text("SELECT count(*) FROM chunks"))
            assert chunks.scalar_one() == 1
    with pytest.raises(EmbeddingError):  # nothing recorded for another model: no guess
        async with opened_store(
            tmp_path / "vault",
            database_url,
            OpenAIEmbedder("other", base_url=openai_fake.base_url, max_retries=0),
        ):
            pass
