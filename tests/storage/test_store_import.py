"""Importing an existing folder of Markdown (an Obsidian vault) through the Store."""

from __future__ import annotations

from pathlib import Path

from tests.storage.index.index_support import opened_store


def obsidian_folder(root: Path) -> Path:
    """A small hand-made vault: nested folders, unicode and spaces, links, a broken note."""
    src = root / "My Vault"
    (src / "projects" / "2026" / "Q3").mkdir(parents=True)
    (src / "people").mkdir()
    (src / "Journal").mkdir()
    (src / ".obsidian").mkdir()
    (src / ".obsidian" / "app.json").write_text("{}")
    (src / "projects" / "2026" / "Q3" / "Zeppelin Launch.md").write_text(
        "---\ntags: [air, launch]\nstatus: active\n---\n# Zeppelin Launch\n\n"
        "Budget call with [[Zoë Müller]] on Friday.\n"
    )
    (src / "people" / "Zoë Müller.md").write_text("Zoë runs the hangar in Friedrichshafen.\n")
    (src / "Journal" / "Тетрадь заметок.md").write_text(
        "Встреча про [дирижабль](../projects/2026/Q3/Zeppelin%20Launch.md).\n"
    )
    (src / "Journal" / "broken.md").write_text(
        "---\ntitle: [unclosed\n---\nThe hangar roof leaks.\n"
    )
    (src / "Journal" / "empty.md").write_text("")
    (src / "Journal" / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    (src / "Journal" / "photo.png").write_bytes(b"\x89PNG")
    return src


async def test_import_indexes_every_note_with_links_and_reports_problems(
    tmp_path: Path, database_url: str
) -> None:
    src = obsidian_folder(tmp_path)
    phases: list[tuple[str, int, int]] = []
    async with opened_store(tmp_path / "vault", database_url) as store:
        result = await store.import_folder(src, progress=lambda *p: phases.append(p))

        launch = "projects/2026/Q3/Zeppelin Launch.md"
        zoe = "people/Zoë Müller.md"
        journal = "Journal/Тетрадь заметок.md"
        latin1 = "Journal/latin1.md"
        assert set(result.imported) == {launch, zoe, journal, "Journal/broken.md", latin1}
        assert {path for path, _ in result.skipped} == {"Journal/empty.md"}
        assert result.copied == ("Journal/photo.png",)
        assert phases[-1] == ("index", 5, 5)
        assert any(phase == "copy" for phase, _, _ in phases)

        listed = {e.path: e for e in await store.list(limit=50)}
        assert set(listed) == set(result.imported)
        assert listed[launch].category == "projects"
        assert listed[launch].status == "active"
        assert listed["Journal/broken.md"].frontmatter_error is not None
        assert listed["Journal/broken.md"].body.strip() == "The hangar roof leaks."

        assert {h.path for h in await store.backlinks(zoe)} == {launch}
        assert {h.path for h in await store.backlinks(launch)} == {journal}

        hangar = (await store.search("hangar", limit=5)).hits
        assert {h.path for h in hangar[:2]} == {zoe, "Journal/broken.md"}
        assert (await store.search("zoe muller")).hits[0].path == zoe
        assert (await store.search("launch", tags=["air"])).hits[0].path == launch
        assert (await store.search("встреча")).hits[0].path == journal
        assert await store.index.last_commit() == store.vault.head()

        again = await store.import_folder(src)
        assert again.written is None  # everything is there already: no commit
        assert await store.index.count() == 5
