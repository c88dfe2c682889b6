"""The rows a note's index write makes, as parameters of its statements
(storage.index.indexer)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from storage.index.indexed_note import Document
from storage.index.mention_names import NoteName
from storage.index.note_links import Link

Noted = tuple[int, Sequence[Link], Sequence[NoteName]]  # (entry id, links, names)


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
