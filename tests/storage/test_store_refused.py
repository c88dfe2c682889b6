"""Nothing a file holds stops its vault's index: NUL (valid UTF-8, refused by Postgres
in text and JSONB) is stored as U+FFFD wherever it stands in a note; a note Postgres
still refuses (a tag or a path longer than an index row may be, a frontmatter nested
too deep to walk) is left out with why while every other note is indexed; a file
whose name is not UTF-8 is reported; and `.md` files under `attachments/` are
attachments, never notes. Real vault, real git, real Postgres."""

from __future__ import annotations

import os
import random
import string
from pathlib import Path

from sqlalchemy import text

from storage.entry import BOT_AUTHOR
from storage.store import Store
from tests.storage.index.index_support import opened_store
from tests.storage.vault.vault_support import git, make_vault

_LETTERS = random.Random(38)
LONG_TAG = "".join(_LETTERS.choice(string.ascii_lowercase) for _ in range(3000))
NUL_NOTE = (
    '---\ntitle: "Nul\\0title"\nowner: "Ada\\0Lovelace"\n'
    'extra: {"key\\0x": ["deep\\0value", {"k": "v\\0w"}]}\n---\n'
    "hello\x00world and a kestrel\n"
)


async def paths_for(store: Store, query: str) -> list[str]:
    return sorted(hit.path for hit in (await store.search(query)).hits)


async def indexed_row(store: Store, path: str) -> tuple[str, dict[str, object], str]:
    async with store.database.engine.connect() as conn:
        row = (
            await conn.execute(
                text("SELECT title, fields, body FROM entries WHERE path = :path"), {"path": path}
            )
        ).one()
    return row.title, row.fields, row.body


async def test_nul_in_a_hand_edited_note_is_stored_as_a_replacement_mark(
    tmp_path: Path, database_url: str
) -> None:
    root = tmp_path / "vault"
    make_vault(root).create("ideas", "Good", "A good heron.")
    async with opened_store(root, database_url, keyword_only=True) as store:
        (root / "ideas" / "nul.md").write_text(NUL_NOTE)
        report = await store.sync()
        assert report.refused == () and report.indexed == 1
        assert await paths_for(store, "kestrel") == ["ideas/nul.md"]
        assert await paths_for(store, "hello") == ["ideas/nul.md"]  # still a word of its own
        title, fields, body = await indexed_row(store, "ideas/nul.md")
        assert title == "Nul\ufffdtitle" and body == "hello\ufffdworld and a kestrel"
        assert fields["owner"] == "Ada\ufffdLovelace"
        assert fields["extra"] == {"key\ufffdx": ["deep\ufffdvalue", {"k": "v\ufffdw"}]}
        assert (root / "ideas" / "nul.md").read_text() == NUL_NOTE  # the file is as written

        # Later hand edits are indexed; a full rebuild stores the note as well.
        (root / "ideas" / "good.md").write_text("---\ntitle: Good\n---\nA grey heron.\n")
        await store.sync()
        assert await paths_for(store, "grey") == ["ideas/good.md"]
        rebuilt = await store.reindex()
        assert rebuilt.refused == () and rebuilt.indexed == 2
        assert await paths_for(store, "kestrel") == ["ideas/nul.md"]


async def test_a_note_postgres_refuses_is_left_out_and_the_rest_is_indexed(
    tmp_path: Path, database_url: str
) -> None:
    root = tmp_path / "vault"
    vault = make_vault(root)
    vault.create("ideas", "Tagged", "An osprey over the lake.")
    async with opened_store(root, database_url) as store:  # with vectors: chunks are written
        assert await store.index.paths() == ["ideas/tagged.md"]
        # A tag longer than an index row may be, a path longer than one, a frontmatter
        # nested deeper than the index walks, beside notes that are fine.
        tagged = f"---\ntitle: Tagged\ntags: [{LONG_TAG}]\n---\nA pelican over the lake.\n"
        (root / "ideas" / "tagged.md").write_text(tagged)
        deep = root / "ideas"
        for _ in range(11):
            deep /= "".join(_LETTERS.choice(string.ascii_lowercase) for _ in range(250))
        deep.mkdir(parents=True)
        (deep / "far.md").write_text("A far cormorant.\n")
        nested = "---\nplan: " + "[" * 500 + "]" * 500 + "\n---\nA nested grebe.\n"
        (root / "ideas" / "nested.md").write_text(nested)
        (root / "ideas" / "fine.md").write_text("A fine heron.\n")
        (root / "inbox" / "also.md").write_text("A heron again.\n")

        report = await store.sync()
        refused = dict(report.refused)
        far = next(path for path in refused if path.endswith("/far.md"))
        assert refused["ideas/tagged.md"].startswith("could not be indexed: a tag is too long")
        assert refused[far].startswith("could not be indexed: its path is too long")
        assert refused["ideas/nested.md"] == (
            "could not be indexed: it is nested too deep to read (RecursionError)"
        )
        assert report.indexed == 2
        # What the refused note said before is gone from the index too.
        assert sorted(await store.index.paths()) == ["ideas/fine.md", "inbox/also.md"]
        assert {hit.path for hit in (await store.search("heron")).hits[:2]} == {
            "ideas/fine.md",
            "inbox/also.md",
        }

        # The next hand edit is indexed; a fixed note comes back.
        (root / "ideas" / "tagged.md").write_text("---\ntags: [birds]\n---\nA pelican.\n")
        (root / "ideas" / "more.md").write_text("A committed kestrel.\n")
        report = await store.sync()
        assert "ideas/tagged.md" not in dict(report.refused)
        assert "ideas/tagged.md" in await store.index.paths()
        assert (await store.search("committed kestrel")).hits[0].path == "ideas/more.md"

        rebuilt = await store.reindex()
        assert sorted(path for path, _ in rebuilt.refused) == sorted(["ideas/nested.md", far])
        assert sorted(await store.index.paths()) == [
            "ideas/fine.md",
            "ideas/more.md",
            "ideas/tagged.md",
            "inbox/also.md",
        ]


async def test_a_file_whose_name_is_not_utf8_is_reported_and_the_rest_syncs(
    tmp_path: Path, database_url: str
) -> None:
    root = tmp_path / "vault"
    make_vault(root).create("ideas", "Good", "A good heron.")
    async with opened_store(root, database_url, keyword_only=True) as store:
        (root / "ideas" / os.fsdecode(b"caf\xe9.md")).write_bytes(b"A Latin-1 name.\n")
        (root / "ideas" / "good.md").write_text("---\ntitle: Good\n---\nA grey heron.\n")
        report = await store.sync()
        assert dict(report.skipped) == {
            "ideas/caf\\udce9.md": "its name is not UTF-8; rename the file"
        }
        assert await paths_for(store, "grey") == ["ideas/good.md"]
        rebuilt = await store.reindex()
        assert "ideas/caf\\udce9.md" in dict(rebuilt.skipped)
        assert await paths_for(store, "grey") == ["ideas/good.md"]


async def test_markdown_under_attachments_is_never_indexed_as_a_note(
    tmp_path: Path, database_url: str
) -> None:
    root = tmp_path / "vault"
    vault = make_vault(root)
    vault.create("ideas", "Good", "A good heron.")
    async with opened_store(root, database_url, keyword_only=True) as store:
        minutes = ("minutes.md", b"# Minutes\nThe gannet budget.\n")
        assert await store.write_attachments([minutes], author=BOT_AUTHOR) == (
            "attachments/minutes.md",
        )
        assert await paths_for(store, "gannet") == []
        (root / "attachments" / "by-hand.md").write_text("A gannet by hand.\n")
        await store.sync()
        assert await paths_for(store, "gannet") == []
        await store.reindex()
        assert await paths_for(store, "gannet") == []
        assert await store.index.paths() == ["ideas/good.md"]

        source = tmp_path / "export"
        (source / "attachments").mkdir(parents=True)
        (source / "attachments" / "notes.md").write_text("A gannet imported.\n")
        (source / "ideas").mkdir()
        (source / "ideas" / "imported.md").write_text("An imported puffin.\n")
        result = await store.import_folder(source)
        assert result.imported == ("ideas/imported.md",)
        assert result.copied == ("attachments/notes.md",)
        assert await paths_for(store, "puffin") == ["ideas/imported.md"]
        assert await paths_for(store, "gannet") == []
        assert "attachments/notes.md" in git(root, "ls-files")
