"""Related notes at capture, as a person meets them (no model: the command router files
the thoughts; no vectors: the words decide). The reply "Saved to …" comes at once and
unchanged; a second message names the related notes with a Link button; Link writes a
Related line into the new note as one commit, and Undo takes it out again."""

from __future__ import annotations

from pathlib import Path

import frontmatter

from app.runtime import Runtime
from bot.connect.related import LINK_ACTION
from bot.events import Conversation, Reply
from tests.bot.helpers import git_log, message, press
from tests.fakes.brain import Told, running_brain

SOURDOUGH = [
    "idea: Sourdough starter needs feeding twice a day with rye flour and water",
    "idea: Bake sourdough bread with a long cold proof of the dough overnight",
    "idea: Sourdough pizza dough made with the discard of the starter",
]
ELSE = [
    "project: Renew the car insurance before the end of March",
    "idea: Paint the balcony railing dark green",
    "idea: Read Piranesi by Susanna Clarke",
]
NEW = "idea: My sourdough starter smells of acetone, feed it more rye flour"
NEW_PATH = "ideas/my-sourdough-starter-smells-of-acetone-feed-it-more-rye.md"
STARTER = "ideas/sourdough-starter-needs-feeding-twice-a-day-with-rye-flour.md"


async def fill(brain: Runtime, texts: list[str], chat: Conversation | None = None) -> None:
    for text in texts:
        await brain.engine.handle(message(text) if chat is None else message(text, chat=chat))
    await brain.engine.related.wait_idle()


async def capture(brain: Runtime, text: str, **kwargs: object) -> tuple[Reply, list[Reply]]:
    """The capture's own reply, and what the person was told after it (by a brain that
    tells a `Told`: `running_brain(..., deliver=Told())`)."""
    told = brain.engine.related.deliver
    assert isinstance(told, Told), "running_brain(..., deliver=Told())"
    heard = len(told.messages)
    (reply,) = await brain.engine.handle(message(text, **kwargs))  # type: ignore[arg-type]
    assert len(told.messages) == heard, "the suggestion came before the reply"
    await brain.engine.related.wait_idle()
    return reply, told.replies[heard:]


def body_of(brain: Runtime, path: str) -> str:
    return frontmatter.load(brain.settings.vault_dir / path).content


async def test_a_capture_names_its_related_notes_and_link_writes_them_with_undo(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, deliver=Told()) as brain:
        await fill(brain, SOURDOUGH + ELSE)
        reply, (told,) = await capture(brain, NEW)
        assert reply.text == f"Saved to {NEW_PATH} (ideas)."  # the reply as ever
        assert told.text.startswith("Related: Sourdough starter needs feeding")
        for unrelated in ("insurance", "balcony", "Piranesi"):
            assert unrelated not in told.text
        assert [b.label for b in told.buttons] == ["Link"]
        before = body_of(brain, NEW_PATH)
        commits = len(git_log(brain.settings.vault_dir))

        (linked,) = await brain.engine.handle(press(told, "Link"))

        assert linked.replace and linked.text.startswith("Linked to Sourdough starter")
        body = body_of(brain, NEW_PATH)
        last = body.strip().split("\n")[-1]
        assert last.startswith("Related: [[sourdough-starter-needs-feeding-twice-a-day-with-rye")
        assert body.startswith(before.strip())
        log = git_log(brain.settings.vault_dir)
        assert len(log) == commits + 1 and NEW_PATH in log[0]
        # The link is a link: the index sees it as a backlink of the starter note.
        backlinks = await brain.store.backlinks(STARTER)
        assert NEW_PATH in [hit.path for hit in backlinks]
        # A second press changes and says nothing.
        assert await brain.engine.handle(press(told, "Link")) == []
        assert len(git_log(brain.settings.vault_dir)) == commits + 1

        (undone,) = await brain.engine.handle(press(linked, "Undo"))

        assert undone.text.startswith("Undone: Linked to")
        assert body_of(brain, NEW_PATH).strip() == before.strip()
        assert len(git_log(brain.settings.vault_dir)) == commits + 2


async def test_a_capture_related_to_nothing_gets_no_second_message(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, deliver=Told()) as brain:
        await fill(brain, SOURDOUGH + ELSE)
        for text in (
            "idea: Call the plumber about the dripping kitchen tap",
            "Dentist appointment moved to Tuesday, bring the card",
            "project: Plan the garden party for June",
        ):
            reply, told = await capture(brain, text)
            assert "Saved to" in reply.text
            assert told == []


async def test_auto_link_writes_the_links_at_once_with_undo(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(
        tmp_path, database_url, BRAINBOT_AUTO_LINK="true", deliver=Told()
    ) as brain:
        await fill(brain, SOURDOUGH + ELSE)
        commits = len(git_log(brain.settings.vault_dir))
        reply, (told,) = await capture(brain, NEW)
        assert reply.text == f"Saved to {NEW_PATH} (ideas)."
        assert told.text.startswith("Linked to Sourdough starter needs feeding")
        assert [b.label for b in told.buttons] == ["Undo"]
        last = body_of(brain, NEW_PATH).strip().split("\n")[-1]
        assert last.startswith("Related: [[sourdough-starter-needs-feeding")
        assert len(git_log(brain.settings.vault_dir)) == commits + 2  # the capture, the links

        await brain.engine.handle(press(told, "Undo"))

        assert "Related:" not in body_of(brain, NEW_PATH)


async def test_a_note_moved_since_is_followed_by_its_id(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url, deliver=Told()) as brain:
        await fill(brain, SOURDOUGH)
        _, (told,) = await capture(brain, NEW)
        await brain.engine.handle(message(f"/move {NEW_PATH} projects"))
        moved = "projects/my-sourdough-starter-smells-of-acetone-feed-it-more-rye.md"
        assert (brain.settings.vault_dir / moved).is_file()

        (linked,) = await brain.engine.handle(press(told, "Link"))

        assert linked.text.startswith("Linked to")
        assert "Related: [[sourdough-starter" in body_of(brain, moved)


async def test_a_note_deleted_since_refuses_clearly(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url, deliver=Told()) as brain:
        await fill(brain, SOURDOUGH)
        _, (told,) = await capture(brain, NEW)
        await brain.store.delete(NEW_PATH)
        commits = len(git_log(brain.settings.vault_dir))

        (answer,) = await brain.engine.handle(press(told, "Link"))

        assert answer.text == f"{NEW_PATH} is gone; nothing was linked."
        assert len(git_log(brain.settings.vault_dir)) == commits


async def test_only_the_person_who_captured_may_link(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url, deliver=Told()) as brain:
        await fill(brain, SOURDOUGH)
        _, (told,) = await capture(brain, NEW)
        (refused,) = await brain.engine.handle(press(told, "Link", user="U2"))
        assert refused.text == "Only the person who captured this note can link it."
        assert "Related:" not in body_of(brain, NEW_PATH)


async def test_suggestions_come_only_from_the_vault_the_note_was_filed_in(
    tmp_path: Path, database_url: str
) -> None:
    team_chat = Conversation("test", "team-chat")
    teams = {"BRAINBOT_TEAM_VAULTS": "test:team-chat=Bakery"}
    async with running_brain(tmp_path, database_url, **teams, deliver=Told()) as brain:
        await fill(brain, SOURDOUGH)  # Ada's own vault
        _, told = await capture(brain, NEW, chat=team_chat)
        assert told == []  # the team vault holds no sourdough note: Ada's are not offered
        await fill(
            brain, ["idea: Sourdough starter rota for the bakery, rye flour feeds"], team_chat
        )
        _, (team_told,) = await capture(
            brain, "idea: The bakery sourdough starter needs more rye flour", chat=team_chat
        )
        # Both sourdough notes of the team vault; none of Ada's own three.
        assert team_told.text.startswith("Related: Sourdough starter rota for the bakery")
        assert "My sourdough starter smells of acetone" in team_told.text
        for own in ("needs feeding", "Bake sourdough", "pizza"):
            assert own not in team_told.text
        (linked,) = await brain.engine.handle(press(team_told, "Link", chat=team_chat))
        team_vault = brain.settings.data_dir / "vaults" / "bakery"
        body = frontmatter.load(
            team_vault / "ideas/the-bakery-sourdough-starter-needs-more-rye-flour.md"
        ).content
        assert "Related: [[sourdough-starter-rota-for-the-bakery-rye-flour-feeds" in body
        assert linked.buttons[0].action != LINK_ACTION


async def test_an_inbox_note_linked_still_files_from_its_category_buttons(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, deliver=Told()) as brain:
        await fill(brain, SOURDOUGH)
        reply, (told,) = await capture(
            brain, "the sourdough starter with rye flour smells of acetone, feed it"
        )
        assert "Pick a category" in reply.text
        (linked,) = await brain.engine.handle(press(told, "Link"))
        assert linked.text.startswith("Linked to")

        (filed,) = await brain.engine.handle(press(reply, "ideas"))

        assert filed.text.startswith("Filed in ideas: ideas/")
        path = filed.text.removeprefix("Filed in ideas: ").rstrip(".")
        assert "Related: [[sourdough-starter" in body_of(brain, path)
