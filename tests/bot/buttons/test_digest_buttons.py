"""Done, Snooze and Open on a digest's action items: the press is the decision, so
the note changes (one commit) without an approval step, and the digest is redrawn."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import frontmatter

from app.scheduling import build_service
from bot.events import Reply
from tests.bot.helpers import git_log, press
from tests.fakes.brain import Clock, running_brain
from tests.scheduler.notes import add_notes, note_text
from tests.scheduler.outbox import Outbox, add_ada

# 23:30 UTC is already Saturday in Berlin: "tomorrow" is the person's tomorrow.
CLOCK = datetime(2026, 11, 20, 23, 30, tzinfo=UTC)
NOTES = {
    "projects/website.md": note_text(
        "Website", status="active", next_action="Draft the landing page"
    ),
    "admin/taxes.md": note_text("Taxes", status="open", due="2026-11-18", body="Form 1040."),
}


async def _digest(brain: object, outbox: Outbox) -> Reply:
    service = build_service(brain, outbox)  # type: ignore[arg-type]
    person = await add_ada(brain)  # type: ignore[arg-type]
    digest = await service.delivery.compose(person, CLOCK.date(), "daily")
    sent, _ = await service.delivery.send_now(person, digest)
    assert sent.status == "sent"
    return outbox.sent[-1][2]


async def test_done_and_snooze_change_the_note_commit_and_redraw_the_digest(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(CLOCK)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_notes(brain.store, tmp_path / "import", NOTES)
        vault = brain.settings.vault_dir
        card = await _digest(brain, Outbox(clock))
        assert [b.label for b in card.buttons] == [
            "Done 1",
            "Snooze 1",
            "Open 1",
            "Done 2",
            "Snooze 2",
            "Open 2",
        ]
        assert "1. Website: Draft the landing page" in card.text
        commits = len(git_log(vault))

        (after_done,) = await brain.engine.handle(press(card, "Done 1"))
        assert frontmatter.load(vault / "projects/website.md")["status"] == "done"
        assert after_done.replace
        assert "1. ✓ Website: Draft the landing page — done" in after_done.text
        assert [b.label for b in after_done.buttons] == ["Done 2", "Snooze 2", "Open 2"]

        (after_snooze,) = await brain.engine.handle(press(after_done, "Snooze 2"))
        assert str(frontmatter.load(vault / "admin/taxes.md")["due"]) == "2026-11-22"
        assert "2. → Taxes — overdue since 2026-11-18 — snoozed to 2026-11-22" in after_snooze.text
        assert "1. ✓ Website" in after_snooze.text and after_snooze.buttons == ()

        log = git_log(vault)
        assert len(log) == commits + 2
        assert log[0] == "update admin/taxes.md" and log[1] == "update projects/website.md"
        # The index follows: a new digest no longer lists the finished project.
        fresh = await _digest(brain, Outbox(clock))
        assert "Website" not in fresh.text


async def test_a_second_press_or_someone_else_s_press_changes_nothing(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(CLOCK)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_notes(brain.store, tmp_path / "import", NOTES)
        await brain.records.people.add(
            platform="test",
            platform_user_id="U2",
            name="Bob",
            timezone=None,
            home_chat_id="chat-2",
            now=clock(),
        )
        card = await _digest(brain, Outbox(clock))
        commits = len(git_log(brain.settings.vault_dir))
        (foreign,) = await brain.engine.handle(press(card, "Done 1", user="U2"))
        assert "Only the person this digest is for" in foreign.text and not foreign.replace
        first = await brain.engine.handle(press(card, "Done 1"))
        again = await brain.engine.handle(press(card, "Done 1"))
        snooze_after_done = await brain.engine.handle(press(card, "Snooze 1"))
        assert first and again == [] and snooze_after_done == []
        assert len(git_log(brain.settings.vault_dir)) == commits + 1


async def test_open_replies_with_the_note_and_keeps_the_buttons(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(CLOCK)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_notes(brain.store, tmp_path / "import", NOTES)
        card = await _digest(brain, Outbox(clock))
        (opened,) = await brain.engine.handle(press(card, "Open 2"))
        (done,) = await brain.engine.handle(press(card, "Done 2"))
    assert not opened.replace
    assert opened.text.startswith("Taxes (admin/taxes.md)")
    assert "due: 2026-11-18" in opened.text and "Form 1040." in opened.text
    assert "✓ Taxes" in done.text


async def test_a_note_gone_since_the_digest_is_reported_not_created(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(CLOCK)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_notes(brain.store, tmp_path / "import", NOTES)
        card = await _digest(brain, Outbox(clock))
        await brain.store.delete("admin/taxes.md")
        (redrawn,) = await brain.engine.handle(press(card, "Done 2"))
        assert not (brain.settings.vault_dir / "admin/taxes.md").exists()
    assert "✗ Taxes — overdue since 2026-11-18 — not found" in redrawn.text


async def test_snoozing_a_to_do_gives_it_a_due_date_tomorrow(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(CLOCK)
    undated = {"admin/insurance.md": note_text("Renew the car insurance", status="open")}
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_notes(brain.store, tmp_path / "import", NOTES | undated)
        card = await _digest(brain, Outbox(clock))
        assert "\n\nTo do\n3. Renew the car insurance" in card.text
        (snoozed,) = await brain.engine.handle(press(card, "Snooze 3"))
        note = frontmatter.load(brain.settings.vault_dir / "admin/insurance.md")
        assert str(note["due"]) == "2026-11-22"
        assert "3. → Renew the car insurance — snoozed to 2026-11-22" in snoozed.text
        # On the day it was snoozed to, it is due: no longer a to-do without a date.
        clock.advance(hours=32)
        (person,) = await brain.records.people.all()
        service = build_service(brain, Outbox(clock))
        later = await service.delivery.compose(person, clock().date(), "daily")
    assert [s.heading for s in later.sections][:2] == ["Next actions", "Due and overdue"]
    assert "To do" not in later.text
    assert "Renew the car insurance — due today" in later.text
