"""The rows a note's index write makes, as parameters of its statements
(storage.index.indexer)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from storage.index.indexed_note import Document
from storage.index.mention_names import NoteName
from storage.index.note_links import Link

Noted = tuple[int, Sequence[Link], Sequence[NoteName]]  # (entry id, links, names)


@dataclass(frozen=True, slots=True)
class NoteRows:
    """Every row a write of notes makes: `entries`, the postings as columns, the terms
    with their document frequencies (in the batch), `links` and `note_names`."""

    entries: list[dict[str, Any]]
    postings: dict[str, Any]
    terms: dict[str, Any]
    links: list[dict[str, Any]]
    names: list[dict[str, Any]]


def note_rows(
    vault_id: int, ids: Sequence[int], docs: Sequence[Document], *, embedded: bool
) -> NoteRows:
    """The rows of `docs`, each with the id reserved for it, made in one go (the writer
    asks once rather than once per table)."""
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.terms.keys())
    terms = sorted(df)
    noted = [(entry_id, d.links, d.names) for entry_id, d in zip(ids, docs, strict=True)]
    return NoteRows(
        [entry_row(vault_id, i, d, embedded) for i, d in zip(ids, docs, strict=True)],
        posting_columns(vault_id, ids, docs),
        {"vault": vault_id, "terms": terms, "dfs": [df[t] for t in terms]},
        link_rows(vault_id, noted),
        name_rows(vault_id, noted),
    )


def entry_row(vault_id: int, entry_id: int, d: Document, embedded: bool) -> dict[str, Any]:
    """The `entries` row of `d`, with the id reserved for it."""
    return {
        "id": entry_id,
        "vault": vault_id,
        "path": d.entry.path,
        "category": d.entry.category,
        "title": d.entry.title,
        "status": d.entry.status,
        "tags": d.tags,
        "fields": d.fields_json,
        "body": d.entry.body,
        "content_hash": d.entry.content_hash,
        "frontmatter_error": d.entry.frontmatter_error,
        "updated": d.updated,
        "created": d.created,
        "due": d.due,
        "length": d.length,
        "embedded": embedded,
        "folded": d.folded,
    }


def posting_columns(vault_id: int, ids: Sequence[int], docs: Sequence[Document]) -> dict[str, Any]:
    """The postings of `docs` as one array per column (one statement for them all)."""
    columns: dict[str, list[Any]] = {"terms": [], "ids": [], "tfs": [], "lengths": []}
    for entry_id, d in zip(ids, docs, strict=True):
        columns["terms"] += d.terms.keys()
        columns["tfs"] += d.terms.values()
        columns["ids"] += [entry_id] * len(d.terms)
        columns["lengths"] += [d.length] * len(d.terms)
    return {"vault": vault_id, **columns}


def link_rows(vault_id: int, notes: Sequence[Noted]) -> list[dict[str, Any]]:
    """The `links` rows of notes (what each links to)."""
    return [
        {
            "vault": vault_id,
            "source_id": entry_id,
            "target_key": link.key,
            "target_path": link.path,
            "target_alt": link.alt,
            "context": link.context,
            "relation": link.relation,
        }
        for entry_id, found, _ in notes
        for link in found
    ]


def name_rows(vault_id: int, notes: Sequence[Noted]) -> list[dict[str, Any]]:
    """The `note_names` rows of notes (the names each goes by)."""
    return [
        {"vault": vault_id, "entry_id": entry_id, "name": n.name, "terms": list(n.terms)}
        for entry_id, _, names in notes
        for n in names
    ]
