"""Errors that carry what the caller needs to act on them."""

from __future__ import annotations


class StorageError(Exception):
    """Base of every domain error raised by `storage`; its message is safe to show a user."""


class UnsafePath(StorageError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"refused path {path!r}: {reason}")
        self.path = path
        self.reason = reason


class EntryNotFound(StorageError):
    def __init__(self, path: str) -> None:
        super().__init__(f"no entry at {path!r}")
        self.path = path


class EntryTooLarge(StorageError):
    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(f"{path!r} is {size} bytes; the limit is {limit}")
        self.path = path
        self.size = size
        self.limit = limit


class UnknownCategory(StorageError):
    def __init__(self, category: str, known: tuple[str, ...]) -> None:
        super().__init__(f"unknown category {category!r}; known: {', '.join(known)}")
        self.category = category
        self.known = known


class StaleEdit(StorageError):
    """The file changed since the caller read it (optimistic concurrency)."""

    def __init__(self, path: str, expected_hash: str, actual_hash: str | None) -> None:
        super().__init__(f"{path!r} changed since it was read; read it again before changing it")
        self.path = path
        self.expected_hash = expected_hash
        self.actual_hash = actual_hash


class ChangeNotFound(StorageError):
    def __init__(self, ref: str) -> None:
        super().__init__(f"no change {ref!r} in the vault's history")
        self.ref = ref


class UndoConflict(StorageError):
    def __init__(self, ref: str, paths: tuple[str, ...]) -> None:
        super().__init__(
            f"change {ref[:10]} cannot be undone cleanly: later changes touch {', '.join(paths)}"
        )
        self.ref = ref
        self.paths = paths


class DatabaseUnavailable(StorageError):
    """The database cannot be reached or lacks the `vector` extension."""


class EmbeddedPostgresMismatch(DatabaseUnavailable):
    """The embedded Postgres' data folder was written by another major version, which
    the installed server cannot read and whose programs it does not ship; `fix` says
    how to carry the data over."""

    def __init__(self, pgdata: str, folder_major: str, installed_major: str) -> None:
        self.fix = (
            f"stop brainbot, then run `brainbot db upgrade --old-postgres DIR` with DIR "
            f"holding PostgreSQL {folder_major}'s programs (see docs/production.md, Upgrading)"
        )
        super().__init__(
            f"the embedded Postgres data in {pgdata} is PostgreSQL {folder_major}'s; the "
            f"installed server is PostgreSQL {installed_major} and cannot read it "
            f"(nothing was changed).\n{self.fix}"
        )
        self.folder_major = folder_major
        self.installed_major = installed_major


class EmbeddedPostgresUnsupportedCpu(DatabaseUnavailable):
    """This CPU lacks instructions the embedded server's pgvector is compiled for, and the
    data folder holds what only pgvector reads (vectors, a vector index: made on another
    machine): the server would die on them (SIGILL), so brainbot does not start on it.
    Without them the server runs there with no vector side (storage.db.vector_side)."""

    fix = (
        "on a machine with AVX2, drop them first with `BRAINBOT_EMBEDDINGS=none brainbot "
        "reindex --embed` on this data folder (notes are then found by keyword here); or set "
        "DATABASE_URL to a Postgres with pgvector built for this CPU (a distribution's "
        "package or the pgvector/pgvector image)"
    )

    def __init__(self, missing: list[str], held: list[str]) -> None:
        self.missing = missing
        self.held = held  # what pgvector holds, as said ("the vector index chunks_…")
        super().__init__(
            f"this CPU lacks {', '.join(missing)}, which the embedded Postgres' pgvector is "
            f"compiled for (x86-64-v3: AVX2, FMA, BMI2), and the database holds what only "
            f"pgvector reads ({', '.join(held)}): the server would crash on it, so brainbot "
            f"did not start (nothing was changed).\n{self.fix}"
        )


class NothingToChange(StorageError):
    """A write would leave the file as it is, so no commit was made."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path!r} already looks like that; nothing was changed")
        self.path = path


class BrokenFrontmatter(StorageError):
    """Fields cannot be changed while the note's frontmatter does not parse."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path!r} has frontmatter that does not parse ({problem}); fix it first")
        self.path = path
        self.problem = problem


class EmbedderChanged(StorageError):
    """The index holds vectors from another embedder than the settings name; replacing
    them means embedding every note again, which only `brainbot reindex --embed` does."""

    def __init__(self, stored: str, wanted: str | None, notes: int) -> None:
        wanted_text = wanted or "no embeddings (BRAINBOT_EMBEDDINGS=none)"
        super().__init__(
            f"the index holds vectors of {notes} notes from {stored}, but the settings ask for "
            f"{wanted_text}: set BRAINBOT_EMBEDDINGS and BRAINBOT_EMBEDDING_MODEL back, or run "
            "`brainbot reindex --embed` to embed every note again"
        )
        self.stored = stored
        self.wanted = wanted
        self.notes = notes


class NotAFile(StorageError):
    """A path holds something that is not a regular file (a named pipe, a device, a
    socket, a folder) or a symlink the vault does not follow: it is never read."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"{path!r} is {kind}, not a regular file; it is left alone")
        self.path = path
        self.kind = kind
