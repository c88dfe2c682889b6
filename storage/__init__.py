"""Storage: the vaults (the truth), their index and the database, behind doors.

This door lets out what the rest of the house works with: `Vaults` (every vault,
opened on first use) and `Store` (one vault's notes and their index, the one way in
to them), what they hand back (`Entry`, `Change`, `SearchResults` ...), the errors
they raise, and the schema's migrations. The rooms have doors of their own:
`storage.db` (the connection and the records the engine keeps), `storage.index`
(queries over the index) and `storage.vault` (the note format and git). Outside
storage, nobody imports past a door (tests/test_layout.py); inside, modules import
each other directly, so a door never runs before what it lets out.
"""

from storage.db.vault_tables import OWNER_VAULT, OWNER_VAULT_NAME
from storage.entry import (
    BOT_AUTHOR,
    Author,
    Backlink,
    Change,
    Entry,
    ImportResult,
    Preview,
    SearchHit,
    SearchResults,
    Written,
)
from storage.errors import (
    BrokenFrontmatter,
    ChangeNotFound,
    DatabaseUnavailable,
    EmbeddedPostgresMismatch,
    EmbeddedPostgresUnsupportedCpu,
    EmbedderChanged,
    EntryNotFound,
    EntryTooLarge,
    NotAFile,
    NothingToChange,
    StaleEdit,
    StorageError,
    UndoConflict,
    UnknownCategory,
    UnsafePath,
)
from storage.migrations import LATEST, SchemaTooNew, applied_versions, migrate
from storage.store import Store
from storage.vault.vault import Then
from storage.vaults import MemberCheck, VaultInfo, Vaults, VaultSettings, folder_name

__all__ = [
    "BOT_AUTHOR",
    "LATEST",
    "OWNER_VAULT",
    "OWNER_VAULT_NAME",
    "Author",
    "Backlink",
    "BrokenFrontmatter",
    "Change",
    "ChangeNotFound",
    "DatabaseUnavailable",
    "EmbeddedPostgresMismatch",
    "EmbeddedPostgresUnsupportedCpu",
    "EmbedderChanged",
    "Entry",
    "EntryNotFound",
    "EntryTooLarge",
    "ImportResult",
    "MemberCheck",
    "NotAFile",
    "NothingToChange",
    "Preview",
    "SchemaTooNew",
    "SearchHit",
    "SearchResults",
    "StaleEdit",
    "StorageError",
    "Store",
    "Then",
    "UndoConflict",
    "UnknownCategory",
    "UnsafePath",
    "VaultInfo",
    "VaultSettings",
    "Vaults",
    "Written",
    "applied_versions",
    "folder_name",
    "migrate",
]
