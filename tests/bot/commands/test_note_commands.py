"""Commands on one note without a model, as a new user types them: names with spaces
unquoted, /get showing what the note holds, /help telling the truth about approval,
a Reject's reason kept with the rejection instead of filed."""

from __future__ import annotations

from pathlib import Path

import frontmatter
from sqlalchemy import select

from bot.commands.router import help_text
from storage.db.chat_tables import APPROVALS
from tests.bot.helpers import git_log, message, notes, press
from tests.fakes.brain import running_brain

LIST = "admin/grocery-list-and-pantry-stock.md"


async def test_append_and_tick_take_an_unquoted_name_that_is_part_of_a_title(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("admin: Grocery list and pantry stock"))
        assert notes(vault) == [LIST]
        (appended,) = await brain.engine.handle(message("/append Grocery list - [ ] butter"))
        assert appended.text == f'Updated {LIST}: added "- [ ] butter".'
        (ticked,) = await brain.engine.handle(message("/tick Grocery list butter"))
        assert ticked.text == f"Ticked butter in {LIST}."
        assert frontmatter.load(vault / LIST).content.endswith("- [x] butter")
        (not_a_note,) = await brain.engine.handle(message("/append Nothing like it here"))
        assert not_a_note.text.startswith("Usage: /append NOTE TEXT")


async def test_commit_subjects_say_what_kind_of_change_ran(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("admin: Grocery list and pantry stock"))
        await brain.engine.handle(message("/append Grocery list - [ ] butter"))
        await brain.engine.handle(message("/tag Grocery list weekly"))
        await brain.engine.handle(message("/tick Grocery list butter"))
        await brain.engine.handle(message("/untick Grocery list butter"))
        assert git_log(vault)[:5] == [
            f"untick {LIST}",
            f"tick {LIST}",
            f"tag {LIST}",
            f"append {LIST}",
            f"create {LIST}",
        ]


async def test_get_shows_due_date_tags_and_reminder(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("remind me to renew the passport by friday"))
        (path,) = notes(vault)
        fields = frontmatter.load(vault / path)
        await brain.engine.handle(message(f"/tag {path} travel"))
        (shown,) = await brain.engine.handle(message(f"/get {path}"))
        properties = shown.text.splitlines()[1]
        assert f"due: {fields['due']}" in properties
        assert "tags: #travel" in properties
        assert "remind: " in properties
        assert "source" not in shown.text and "id:" not in shown.text
        assert "timezone" not in shown.text and "aliases" not in shown.text


async def test_help_says_a_just_filed_note_moves_at_once(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        (shown,) = await brain.engine.handle(message("/help"))
        assert "the note I just filed moves at once, others ask for approval" in shown.text
        await brain.engine.handle(message("project: paint the fence"))
        (moved,) = await brain.engine.handle(message("/move paint the fence ideas"))
        assert not moved.buttons and notes(brain.settings.vault_dir) == ["ideas/paint-the-fence.md"]
    # With BRAINBOT_APPROVAL_TOOLS=delete, only /delete waits.
    limited = help_text(("append",), ("delete_entry",))
    assert "/move NOTE CATEGORY  move a note (links to it follow)" in limited
    assert "/delete NOTE  delete a note (asks for approval; git keeps it)" in limited
    assert "/undo  undo the last change\n" in limited


async def test_the_message_after_reject_is_its_reason_not_a_note(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("admin: Grocery list and pantry stock"))
        (card,) = await brain.engine.handle(message(f"/delete {LIST}"))
        (rejected,) = await brain.engine.handle(press(card, "Reject"))
        assert rejected.text.endswith("Tell me why if you like.")
        commits = git_log(vault)

        (thanks,) = await brain.engine.handle(message("I still need it for the weekend"))

        assert thanks.text.startswith(f'Thanks, noted why you rejected "Delete {LIST}"')
        assert notes(vault) == [LIST] and git_log(vault) == commits  # nothing filed
        async with brain.records.engine.connect() as conn:
            outcome = (await conn.execute(select(APPROVALS.c.outcome))).scalar_one()
        assert outcome == "rejected by the user: I still need it for the weekend"
        # Only the next message answers: the one after it is a thought again.
        await brain.engine.handle(message("idea: a bike rack for the office"))
        assert "ideas/a-bike-rack-for-the-office.md" in notes(vault)


async def test_a_command_after_reject_runs_and_the_next_line_is_filed(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("admin: Grocery list and pantry stock"))
        (card,) = await brain.engine.handle(message(f"/delete {LIST}"))
        await brain.engine.handle(press(card, "Reject"))
        (listing,) = await brain.engine.handle(message("/list admin"))
        assert LIST in listing.text
        await brain.engine.handle(message("idea: a bike rack for the office"))
        assert "ideas/a-bike-rack-for-the-office.md" in notes(vault)
