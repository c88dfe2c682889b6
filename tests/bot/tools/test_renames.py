"""Renames and moves from chat: the approval card names the notes whose links change,
Approve rewrites them in one commit, backlinks still find the note, undo restores it."""

from __future__ import annotations

from pathlib import Path

import frontmatter

from bot.events import Reply
from storage.entry import Author
from tests.bot.helpers import git_log, message, press
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, call

ADA = Author("Ada", "ada@example.org")
GREEN = "---\ntitle: Green tea\n---\nSteep at 80°C, see [[tea]].\n"
ANN = "Ann likes [[green tea|the green one]] and [notes](../ideas/green%20tea.md).\n"
TODO = "- [ ] buy [[Green Tea#Brands]]\n"


async def _with_notes(brain: object) -> None:
    store = brain.store  # type: ignore[attr-defined]
    for path, text in (
        ("ideas/green tea.md", GREEN),
        ("ideas/tea.md", "Black and oolong.\n"),
        ("people/Ann.md", ANN),
        ("admin/todo.md", TODO),
    ):
        await store.write_note(path, text, operation="note", author=ADA)


def _card(replies: list[Reply] | tuple[Reply, ...]) -> Reply:
    (card,) = [r for r in replies if r.buttons]
    return card


def _read(brain: object, path: str) -> str:
    return (brain.settings.vault_dir / path).read_text()  # type: ignore[attr-defined]


RENAME = call("rename_entry", path="ideas/green tea.md", title="Matcha", file_name=None)


async def test_an_approved_rename_relinks_every_note_and_undo_brings_all_back(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [RENAME, call("undo", change=None)]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await _with_notes(brain)
        card = _card(await brain.engine.handle(message("call the green tea note Matcha")))
        assert card.text.startswith(
            "Rename ideas/green tea.md → ideas/matcha.md, updating links in 2 notes: "
            "admin/todo.md, people/Ann.md"
        )
        assert "+- [ ] buy [[matcha#Brands]]" in (card.preview or "")
        assert _read(brain, "people/Ann.md") == ANN  # nothing before Approve

        (done,) = await brain.engine.handle(press(card, "Approve"))
        assert "Renamed ideas/green tea.md to ideas/matcha.md (Matcha)" in done.text
        assert "Links updated in 2 notes" in done.text
        assert _read(brain, "people/Ann.md") == (
            "Ann likes [[matcha|the green one]] and [notes](../ideas/matcha.md).\n"
        )
        assert _read(brain, "admin/todo.md") == "- [ ] buy [[matcha#Brands]]\n"
        assert "title: Matcha" in _read(brain, "ideas/matcha.md")
        vault = brain.settings.vault_dir
        assert git_log(vault)[0] == (
            "rename ideas/green tea.md -> ideas/matcha.md (links in 2 notes)"
        )
        backlinks = await brain.store.backlinks("ideas/matcha.md")
        assert sorted(h.path for h in backlinks) == ["admin/todo.md", "people/Ann.md"]
        assert (await brain.store.find("Matcha", exact=True))[0].path == "ideas/matcha.md"

        card = _card(await brain.engine.handle(message("undo that")))
        await brain.engine.handle(press(card, "Approve"))
        assert _read(brain, "ideas/green tea.md") == GREEN
        assert _read(brain, "people/Ann.md") == ANN
        assert _read(brain, "admin/todo.md") == TODO
        assert not (vault / "ideas/matcha.md").exists()
        backlinks = await brain.store.backlinks("ideas/green tea.md")
        assert sorted(h.path for h in backlinks) == ["admin/todo.md", "people/Ann.md"]


async def test_a_rename_approved_after_a_new_link_appeared_changes_nothing(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [RENAME]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await _with_notes(brain)
        card = _card(await brain.engine.handle(message("call the green tea note Matcha")))
        later = "See [[green tea]] too.\n"
        await brain.store.write_note("projects/shop.md", later, operation="note", author=ADA)

        (stale,) = await brain.engine.handle(press(card, "Approve"))
        assert "changed after the preview" in stale.text
        assert _read(brain, "ideas/green tea.md") == GREEN
        assert _read(brain, "projects/shop.md") == later
        assert _read(brain, "people/Ann.md") == ANN


async def test_a_move_card_lists_the_notes_whose_links_change(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [call("move_entry", path="ideas/green tea.md", category="projects")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await _with_notes(brain)
        card = _card(await brain.engine.handle(message("green tea is a project")))
        assert card.text.startswith(
            "Move ideas/green tea.md → projects/green tea.md, updating links in 1 note: "
            "people/Ann.md"
        )
        await brain.engine.handle(press(card, "Approve"))
        assert _read(brain, "people/Ann.md") == (
            "Ann likes [[green tea|the green one]] and [notes](../projects/green%20tea.md).\n"
        )
        # Its own [[tea]] is the only note of that name: it still finds it from there.
        assert "see [[tea]]." in _read(brain, "projects/green tea.md")
        backlinks = await brain.store.backlinks("projects/green tea.md")
        assert sorted(h.path for h in backlinks) == ["admin/todo.md", "people/Ann.md"]


async def test_the_rename_command_works_without_a_model(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await _with_notes(brain)
        (usage,) = await brain.engine.handle(message("/rename"))
        assert usage.text.startswith("Usage: /rename NOTE NEW TITLE")
        card = _card(await brain.engine.handle(message('/rename "green tea" Matcha latte')))
        assert card.text.startswith("Rename ideas/green tea.md → ideas/matcha-latte.md")
        await brain.engine.handle(press(card, "Approve"))
        assert _read(brain, "admin/todo.md") == "- [ ] buy [[matcha-latte#Brands]]\n"
        (refused,) = await brain.engine.handle(message("/rename Matcha latte Tea"))
        assert "already exists" in refused.text
        assert (brain.settings.vault_dir / "ideas/matcha-latte.md").exists()


async def test_a_renamed_note_keeps_its_old_name_as_an_alias(
    tmp_path: Path, database_url: str
) -> None:
    # Links written by the old name elsewhere (another device, a note the bot cannot
    # rewrite) still resolve in Obsidian, and a mention by it still finds the note.
    async with running_brain(tmp_path, database_url) as brain:
        await _with_notes(brain)
        card = _card(await brain.engine.handle(message('/rename "green tea" Matcha latte')))
        await brain.engine.handle(press(card, "Approve"))
        note = frontmatter.loads(_read(brain, "ideas/matcha-latte.md"))
        assert note["title"] == "Matcha latte"
        assert note["aliases"] == ["Green tea", "Matcha latte"]
        card = _card(await brain.engine.handle(message("/rename matcha-latte Matcha")))
        await brain.engine.handle(press(card, "Approve"))
        note = frontmatter.loads(_read(brain, "ideas/matcha.md"))
        # Both old names kept; the file name is the title now, so that is no alias.
        assert note["aliases"] == ["Green tea", "Matcha latte"]
