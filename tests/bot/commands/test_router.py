"""Without an LLM: slash commands, the classifier, the same approval flow, linking."""

from __future__ import annotations

import dataclasses
from datetime import time
from pathlib import Path
from zoneinfo import ZoneInfo

import frontmatter

from bot.commands.capture import classify
from bot.events import Conversation
from scheduler.schedule import schedule_for
from tests.bot.helpers import message, notes, press
from tests.fakes.brain import Clock, running_brain

CATEGORIES = ("people", "projects", "ideas", "admin", "inbox")


def test_classifier_prefers_explicit_hints_then_keywords() -> None:
    assert classify("project: new roof", CATEGORIES).category == "projects"
    assert classify("[person] Sam likes chess", CATEGORIES).category == "people"
    assert classify("[person] Sam likes chess", CATEGORIES).text == "Sam likes chess"
    assert classify("pay the electricity bill", CATEGORIES).category == "admin"
    assert classify("what if shoes had lights", CATEGORIES).category == "ideas"
    unsure = classify("blue", CATEGORIES)
    assert unsure.category == "inbox" and unsure.confidence < 0.6


async def test_plain_text_and_commands_work_without_an_llm(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        (saved,) = await brain.engine.handle(message("project: repaint the fence"))
        assert notes(vault) == ["projects/repaint-the-fence.md"]
        assert "projects/repaint-the-fence.md" in saved.text
        await brain.engine.handle(message("/capture pay the water bill by friday"))
        (listing,) = await brain.engine.handle(message("/list projects"))
        assert "projects/repaint-the-fence.md" in listing.text and "water" not in listing.text
        (found,) = await brain.engine.handle(message("/search water"))
        assert "admin/pay-the-water-bill.md" in found.text  # the date is a field, not the title
        (shown,) = await brain.engine.handle(message("/get projects/repaint-the-fence.md"))
        assert "repaint the fence" in shown.text
        (card,) = await brain.engine.handle(message("/delete projects/repaint-the-fence.md"))
        assert card.buttons and "projects/repaint-the-fence.md" in notes(vault)
        await brain.engine.handle(press(card, "Approve"))
        assert notes(vault) == ["admin/pay-the-water-bill.md"]
        (card,) = await brain.engine.handle(message("/undo"))
        await brain.engine.handle(press(card, "Approve"))
        assert "projects/repaint-the-fence.md" in notes(vault)
        (digest,) = await brain.engine.handle(message("/digest"))
        assert digest.text.startswith("Daily digest")
        (help_text,) = await brain.engine.handle(message("/help"))
        assert "/search" in help_text.text
        (unknown,) = await brain.engine.handle(message("/frobnicate"))
        assert "/help" in unknown.text


async def test_unsure_text_lands_in_the_inbox_with_buttons_and_fix_refiles(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        (reply,) = await brain.engine.handle(message("blue"))
        assert notes(vault) == ["inbox/blue.md"] and reply.buttons
        (fixed,) = await brain.engine.handle(message("fix: idea"))
        assert notes(vault) == ["ideas/blue.md"]
        assert "ideas/blue.md" in fixed.text


async def test_a_correction_means_the_last_note_only_within_the_window(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock()
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("blue"))
        clock.advance(minutes=29)
        (fixed,) = await brain.engine.handle(message("fix: idea"))
        assert notes(vault) == ["ideas/blue.md"] and "Approve" not in str(fixed.buttons)
        await brain.engine.handle(message("green"))
        clock.advance(minutes=31)  # "actually…" now means nothing: a later thought, not this
        (late,) = await brain.engine.handle(message("fix: idea"))
        assert "nothing to fix" in late.text
        assert notes(vault) == ["ideas/blue.md", "inbox/green.md"]


async def test_path_tricks_are_refused_and_change_nothing(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await brain.engine.handle(message("idea: kites"))
        before = notes(brain.settings.vault_dir)
        for path in ("../../etc/passwd", "/etc/passwd", "ideas/../../x.md"):
            (reply,) = await brain.engine.handle(message(f"/get {path}"))
            assert reply.text.startswith("Sorry") and "root:" not in reply.text
            (reply,) = await brain.engine.handle(message(f"/delete {path}"))
            assert not reply.buttons
        assert notes(brain.settings.vault_dir) == before


async def test_link_joins_two_platform_accounts_into_one_person(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        (offer,) = await brain.engine.handle(message("/link", user="U1"))
        code = offer.text.split("code is ")[1].split(".")[0]
        other = dataclasses.replace(
            message(f"/link {code}"),
            sender=dataclasses.replace(message("x").sender, platform="other", id="T9"),
            conversation=Conversation("other", "c9"),
        )
        (linked,) = await brain.engine.handle(other)
        assert linked.text.startswith("Linked")
        assert len(await brain.records.people.all()) == 1
        (again,) = await brain.engine.handle(dataclasses.replace(other, event_id="again"))
        assert "unknown or has expired" in again.text


async def test_settings_change_in_chat(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        (reply,) = await brain.engine.handle(message("/settings digest 07:30"))
        assert "07:30" in reply.text
        await brain.engine.handle(message("/settings timezone Europe/Berlin"))
        (bad,) = await brain.engine.handle(message("/settings timezone Mars/Olympus"))
        assert "not a time zone" in bad.text and "Nothing changed" in bad.text
        (late,) = await brain.engine.handle(message("/settings digest 25:99"))
        assert "HH:MM" in late.text and "Nothing changed" in late.text
        (person,) = await brain.records.people.all()
    assert person.digest_time == "07:30" and person.timezone == "Europe/Berlin"


async def test_settings_name_the_installs_digest_time_and_zone_until_the_person_sets_theirs(
    tmp_path: Path, database_url: str
) -> None:
    settings = {"BRAINBOT_DIGEST_TIME": "06:45", "BRAINBOT_TIMEZONE": "Asia/Tokyo"}
    async with running_brain(tmp_path, database_url, **settings) as brain:
        (shown,) = await brain.engine.handle(message("/settings"))
        assert "daily digest at 06:45" in shown.text
        assert "time zone Asia/Tokyo (the default)" in shown.text
        (weekly,) = await brain.engine.handle(message("/settings weekly Montag"))
        assert "daily digest at 06:45" in weekly.text and "Monday" in weekly.text


async def test_author_of_the_commit_is_the_chat_user(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await brain.engine.handle(message("idea: paper planes"))
        post = frontmatter.load(brain.settings.vault_dir / "ideas/paper-planes.md")
        history = await brain.store.history("ideas/paper-planes.md")
    assert history[0].author.startswith("Ada")
    assert post["source_message_id"] == "42"


async def test_in_a_shared_chat_only_the_person_who_filed_a_note_corrects_it_at_once(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("project: repaint the fence", user="U1"))
        (other,) = await brain.engine.handle(message("fix: admin", user="U2"))
        assert notes(vault) == ["projects/repaint-the-fence.md"]
        assert not other.text.startswith("Moved")
        await brain.engine.handle(message("fix: admin", user="U1"))
        assert notes(vault) == ["admin/repaint-the-fence.md"]


async def test_old_category_buttons_never_move_another_note_at_the_same_path(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        (card,) = await brain.engine.handle(message("blue"))
        await brain.store.delete("inbox/blue.md")
        await brain.store.create("inbox", "blue", "A different thought, filed later.")
        (pressed,) = await brain.engine.handle(press(card, "ideas"))
        assert "nothing moved" in pressed.text
        assert notes(vault) == ["inbox/blue.md"]
        assert "A different thought" in (vault / "inbox/blue.md").read_text()


async def test_settings_weekly_off_and_on(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url, BRAINBOT_DIGEST_TIME="06:45") as brain:
        (shown,) = await brain.engine.handle(message("/settings"))
        assert "daily digest at 06:45 (the default)" in shown.text
        await brain.engine.handle(message("/settings weekly monday"))
        (off,) = await brain.engine.handle(message("/settings weekly off"))
        assert off.text.startswith("Saved.") and "weekly review off" in off.text
        (person,) = await brain.records.people.all()
        plan = schedule_for(person, default_time=time(6, 45), default_zone=ZoneInfo("UTC"))
        assert plan is not None and plan.weekly_day is None
        (on,) = await brain.engine.handle(message("/settings weekly on"))
        assert "weekly review on Sunday" in on.text
        (again,) = await brain.engine.handle(message("/settings weekly on"))
        assert "weekly review on Sunday" in again.text
