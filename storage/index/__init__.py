"""The index room: Postgres tables derived from the vault, and search over them.

`index.Index` is its heart; beside it what a note becomes in the index (`indexed_note`,
`tokens`, `chunking`, `note_links`), writing it (`indexer`), reading it back (`lookups`,
`digest_queries`, `snippets`), ranking (`search`), vectors (`embeddings`) and keeping
the index in step with notes changed outside the bot (`sync`).

Search and reads of one note go through `storage.Store`; this door lets out the
queries the digest, reminders and a few tools ask of the index directly, with the
rows they return, and the embedders."""

from storage.index.backfill import EmbeddingProgress, embedding_progress, embedding_running
from storage.index.digest_queries import DigestFacts, DigestQuery, Listing, NoteRow, digest_facts
from storage.index.embeddings import LOCAL_FALLBACK, Embedder, local_unavailable, make_embedder
from storage.index.filters import Filters
from storage.index.index import Index
from storage.index.lookups import random_entry
from storage.index.mention_names import MentionText
from storage.index.mention_search import UnlinkedMention, unlinked_mentions
from storage.index.note_links import name_key, path_key
from storage.index.outlinks import OutLink, outgoing_links
from storage.index.related import Neighbour
from storage.index.reminder_queries import ReminderNote, reminder_notes
from storage.index.resurface_queries import (
    PastNote,
    PastQuery,
    notes_filed_between,
    related_older_notes,
)
from storage.index.sync import SyncReport
from storage.index.tokens import fold

__all__ = [
    "LOCAL_FALLBACK",
    "DigestFacts",
    "DigestQuery",
    "Embedder",
    "EmbeddingProgress",
    "Filters",
    "Index",
    "Listing",
    "MentionText",
    "Neighbour",
    "NoteRow",
    "OutLink",
    "PastNote",
    "PastQuery",
    "ReminderNote",
    "SyncReport",
    "UnlinkedMention",
    "digest_facts",
    "embedding_progress",
    "embedding_running",
    "fold",
    "local_unavailable",
    "make_embedder",
    "name_key",
    "notes_filed_between",
    "outgoing_links",
    "path_key",
    "random_entry",
    "related_older_notes",
    "reminder_notes",
    "unlinked_mentions",
]
