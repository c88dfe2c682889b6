"""The weekly review's unlinked mentions: notes of the week that name another note
without linking it, each with a Link button that makes the first mention a wikilink
(one commit, with Undo), and refuses once the note changed since the review."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

from app.scheduling import build_service
from bot.events import Reply
from tests.bot.helpers import git_log, press
from tests.fakes.brain import Clock, running_brain
from tests.scheduler.notes import add_notes, note_text, on
from tests.scheduler.outbox import Outbox, add_ada

CLOCK = datetime(2026, 11, 20, 23, 30, tzinfo=UTC)
THIS_WEEK, EARLIER = date(2026, 11, 19), date(2026, 11, 18)
NOTES = {
    "people/Sarah Kim.md": note_text("Sarah Kim", "Works at Acme."),
    "ideas/Website.md": note_text("Website", "The new site."),
    "ideas/Bob.md": note_text("Bob", "Three letters: too short to suggest."),
    "ideas/lunch.md": note_text(
        "Lunch with the team",
        "Had lunch with sarah kim and bob today.\n`Sarah Kim` in code is no mention.\n",
        created=on(THIS_WEEK),
    ),
    "ideas/call.md": note_text(
        "Call notes", "Sarah Kim called about the [[Website]].", created=on(EARLIER)
    ),
    "ideas/linked.md": note_text(
        "Already linked", "Talked to [[Sarah Kim]]; Sarah Kim agreed.", created=on(EARLIER)
    ),
    "ideas/quoted.md": note_text(
        "Only in a link", "See [Sarah Kim](https://example.com/sk).", created=on(EARLIER)
    ),
    "ideas/old.md": note_text("Old note", "Sarah Kim, long ago."),
}
MENTIONS = (
    "Unlinked mentions\n"
    "1. Lunch with the team mentions Sarah Kim as “sarah kim” without a link\n"
    "2. Call notes mentions Sarah Kim without a link"
)


async def _review(brain: object, clock: Clock) -> Reply:
    outbox = Outbox(clock)
    service = build_service(brain, outbox)  # type: ignore[arg-type]
    person = await add_ada(brain)  # type: ignore[arg-type]
    review = await service.delivery.compose(person, CLOCK.date(), "weekly")
    sent, _ = await service.delivery.send_now(person, review)
    assert sent.status == "sent"
    return outbox.sent[-1][2]


async def test_the_review_offers_links_and_a_link_can_be_undone(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(CLOCK)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_notes(brain.store, tmp_path / "import", NOTES)
        vault = brain.settings.vault_dir
        card = await _review(brain, clock)
        assert MENTIONS in card.text
        assert [b.label for b in card.buttons] == ["Link 1", "Link 2"]
        (person,) = await brain.records.people.all()
        daily = await build_service(brain, Outbox(clock)).delivery.compose(
            person, CLOCK.date(), "daily"
        )
        assert "Unlinked mentions" not in daily.text  # the weekly review's alone
        commits = len(git_log(vault))

        redrawn, linked = await brain.engine.handle(press(card, "Link 1"))
        lunch = (vault / "ideas/lunch.md").read_text(encoding="utf-8")
        assert "Had lunch with [[Sarah Kim|sarah kim]] and bob today." in lunch
        assert "`Sarah Kim` in code" in lunch
        assert redrawn.replace and "1. ✓ Lunch with the team" in redrawn.text
        assert "— linked" in redrawn.text
        assert [b.label for b in redrawn.buttons] == ["Link 2"]
        assert linked.text == "Linked Sarah Kim in Lunch with the team (ideas/lunch.md)."
        assert [b.label for b in linked.buttons] == ["Undo"]
        assert git_log(vault)[0] == "link ideas/lunch.md" and len(git_log(vault)) == commits + 1
        backlinks = {h.path for h in await brain.store.backlinks("people/Sarah Kim.md")}
        assert "ideas/lunch.md" in backlinks
        assert await brain.engine.handle(press(card, "Link 1")) == []  # a second press

        (undone,) = await brain.engine.handle(press(linked, "Undo"))
        assert undone.text.startswith("Undone: Linked Sarah Kim")
        restored = (vault / "ideas/lunch.md").read_text(encoding="utf-8")
        assert "Had lunch with sarah kim and bob today." in restored
        assert "[[" not in restored
        # Linked now, the note is no longer offered; the other one still is.
        await brain.engine.handle(press(card, "Link 2"))
        again = await _review(brain, clock)
        assert "Lunch with the team mentions Sarah Kim" in again.text
        assert "Call notes mentions" not in again.text


async def test_a_note_changed_since_the_review_is_not_touched(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(CLOCK)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_notes(brain.store, tmp_path / "import", NOTES)
        vault = brain.settings.vault_dir
        card = await _review(brain, clock)
        await brain.store.update("ideas/call.md", body="Sarah Kim called again.")
        commits = len(git_log(vault))
        (redrawn,) = await brain.engine.handle(press(card, "Link 2"))
        assert "2. ✗ Call notes mentions Sarah Kim without a link — not linked: the note " in (
            redrawn.text
        )
        assert "changed since this review, nothing changed" in redrawn.text
        assert [b.label for b in redrawn.buttons] == ["Link 1"]
        assert len(git_log(vault)) == commits
        text = (vault / "ideas/call.md").read_text(encoding="utf-8")
        assert "Sarah Kim called again." in text and "[[Sarah" not in text
