"""What the digest lists, from the index alone: deterministic without a model,
with a short opening when there is one, always inside the platforms' limits."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import frontmatter

from bot.digest.compose import TEXT_LIMIT, Digest, compose_digest, digest_from_facts
from bot.digest.summary import with_summary
from storage.index.digest_queries import DigestFacts, Listing, NoteRow
from tests.bot.helpers import message, press
from tests.fakes.brain import Clock, running_brain
from tests.fakes.openai_server import FakeOpenAI, fail, say
from tests.scheduler.notes import LONG_AGO, add_notes, note_text, on

DAY = date(2026, 11, 20)  # a Friday
YESTERDAY = DAY - timedelta(days=1)


def _vault_notes() -> dict[str, str]:
    fresh = on(DAY - timedelta(days=2))
    return {
        "projects/website.md": note_text(
            "Website",
            status="active",
            next_action="Draft the landing page",
            updated=fresh,
            due=str(DAY + timedelta(days=3)),
        ),
        "projects/garden.md": note_text(
            "Garden", status="active", next_action="Buy seeds", updated=fresh
        ),
        "projects/old-book.md": note_text(
            "Old book",
            status="active",
            next_action="Write chapter 2",
            updated=on(DAY - timedelta(days=30)),
        ),
        "projects/shipped.md": note_text(
            "Shipped", status="done", next_action="Celebrate", updated=fresh
        ),
        "admin/taxes.md": note_text("Taxes", status="open", due=str(DAY - timedelta(days=2))),
        "admin/passport.md": note_text("Passport", due=str(DAY)),
        "admin/dentist.md": note_text("Dentist", due=str(DAY + timedelta(days=1))),
        "admin/car.md": note_text("Car service", due=str(DAY + timedelta(days=9))),
        "admin/paid.md": note_text("Paid bill", status="done", due=str(DAY - timedelta(days=1))),
        "people/grace.md": note_text("Grace", follow_ups=["Send the slides"], updated=fresh),
        "people/alan.md": note_text("Alan", follow_ups=[], updated=fresh),
        "ideas/tea.md": note_text("Tea shop", created=on(YESTERDAY, 9), updated=on(YESTERDAY, 9)),
        "ideas/older.md": note_text(
            "Older idea", created=on(DAY - timedelta(days=3)), updated=on(YESTERDAY, 10)
        ),
        "inbox/call-bob.md": note_text("Call Bob?"),
        "inbox/what.md": note_text("What was that?"),
    }


def _section(digest: Digest, heading: str) -> list[str]:
    (section,) = [s for s in digest.sections if s.heading.startswith(heading)]
    return list(section.lines)


async def test_daily_digest_lists_what_matters_today(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault_notes())
        digest = await compose_digest(brain.store, day=DAY, zone=ZoneInfo("Europe/Berlin"))
    assert _section(digest, "Next actions") == [
        "Website: Draft the landing page (due 2026-11-23)",
        "Garden: Buy seeds",
        "Old book: Write chapter 2",
    ]
    assert _section(digest, "Due and overdue") == [
        "Taxes — overdue since 2026-11-18",
        "Passport — due today",
        "Dentist — due tomorrow",
    ]
    assert _section(digest, "Coming up") == ["Car service — due 2026-11-29"]
    assert _section(digest, "People to follow up") == ["Grace: Send the slides"]
    assert _section(digest, "Captured since yesterday") == ["Tea shop (ideas)"]
    assert _section(digest, "Inbox") == ["2 items wait for a category"]
    assert _section(digest, "Stuck projects") == ["Old book (last change 2026-10-21)"]
    assert [item.path for item in digest.actions] == [
        "projects/website.md",
        "projects/garden.md",
        "projects/old-book.md",
        "admin/taxes.md",
        "admin/passport.md",
        "admin/dentist.md",
    ]
    text = digest.text
    assert text.startswith("Daily digest for Friday 2026-11-20")
    assert "1. Website: Draft the landing page" in text and "6. Dentist — due tomorrow" in text
    assert "• Tea shop (ideas)" in text


async def test_a_due_that_is_no_day_is_a_to_do_not_due_today(
    tmp_path: Path, database_url: str
) -> None:
    """A hand-written `due` no calendar has is read as no due day, in the index as
    everywhere else: the index's own reading took 2026-02-30 for a day, due today."""
    notes = {
        "admin/visa.md": note_text("Renew visa", due="2026-02-30"),
        "admin/taxes.md": note_text("Taxes", due=str(DAY - timedelta(days=2))),
    }
    async with running_brain(tmp_path, database_url) as brain:
        await add_notes(brain.store, tmp_path / "import", notes)
        digest = await compose_digest(brain.store, day=DAY, zone=ZoneInfo("Europe/Berlin"))
    assert _section(digest, "Due and overdue") == ["Taxes — overdue since 2026-11-18"]
    assert any("Renew visa" in line for line in _section(digest, "To do"))


async def test_weekly_review_covers_the_week_and_what_was_finished(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault_notes())
        digest = await compose_digest(brain.store, day=DAY, kind="weekly")
    assert digest.text.startswith("Weekly review for Friday 2026-11-20")
    assert _section(digest, "Captured this week") == ["Tea shop (ideas)", "Older idea (ideas)"]
    assert _section(digest, "Finished this week") == ["Shipped (projects)"]


async def test_an_empty_vault_says_nothing_needs_you(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        digest = await compose_digest(brain.store, day=DAY)
    assert digest.sections == () and "Nothing needs you today." in digest.text


async def test_a_new_user_s_first_project_and_admin_item_are_in_both_digests(
    tmp_path: Path, database_url: str
) -> None:
    # As the issue tells it: a fresh vault, two captures through the command router
    # (no model), then /digest and /digest weekly the same day. The vault stamps
    # notes with the real time, so the bot's clock shows the real time too.
    clock = Clock(datetime.now(UTC))
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        for text in ("project: Repaint the fence", "admin: Renew the car insurance"):
            (saved,) = await brain.engine.handle(message(text))
            assert saved.text.startswith("Saved to ")
        clock.now = datetime.now(UTC)
        (daily,) = await brain.engine.handle(message("/digest"))
        (weekly,) = await brain.engine.handle(message("/digest weekly"))
    for reply, captured in ((daily, "Captured since yesterday"), (weekly, "Captured this week")):
        assert "Nothing needs you" not in reply.text
        assert "\nNext actions\n1. Repaint the fence — no next action yet\n" in reply.text
        assert "\nTo do\n2. Renew the car insurance\n" in reply.text
        # Newest first: the two captures may fall in one second or in two.
        listed = reply.text.split(f"\n{captured}\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert sorted(listed) == [
            "• Renew the car insurance (admin)",
            "• Repaint the fence (projects)",
        ]
        assert [b.label for b in reply.buttons][::3] == ["Done 1", "Done 2"]


def _closed_vault() -> dict[str, str]:
    return {
        "projects/shipped.md": note_text("Shipped", status="done", next_action="Celebrate"),
        "projects/dropped.md": note_text("Dropped", status="Cancelled"),
        "admin/paid.md": note_text("Paid bill", status="done", due=str(DAY)),
        "admin/filed.md": note_text("Filed form", status="done"),
        "people/alan.md": note_text("Alan", follow_ups=[]),
        "ideas/old.md": note_text("Old idea"),
    }


async def test_with_only_closed_things_and_no_captures_nothing_needs_you(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await add_notes(brain.store, tmp_path / "import", _closed_vault())
        now = on(DAY, 8)
        daily = await with_summary(brain.llm, await compose_digest(brain.store, day=DAY, now=now))
        weekly = await compose_digest(brain.store, day=DAY, kind="weekly", now=now)
    for digest in (daily, weekly):
        assert digest.sections == ()
        assert digest.text.endswith("\n\nNothing needs you today.")
        assert digest.markdown().endswith("\n\nNothing needs you today.\n")
    # Nothing to sum up: the model is not asked for an opening.
    assert daily.summary is None and openai_fake.chat_requests() == []


async def test_a_capture_made_today_is_in_today_s_digest(tmp_path: Path, database_url: str) -> None:
    berlin = ZoneInfo("Europe/Berlin")
    notes = {
        "ideas/dawn.md": note_text("Dawn idea", created=on(DAY, 6)),
        "ideas/last-night.md": note_text("Last night", created=on(YESTERDAY, 22)),
        # 23:30 UTC two days back is yesterday in Berlin: the day is the person's.
        "ideas/berlin-midnight.md": note_text(
            "Berlin midnight", created=on(DAY - timedelta(days=2), 23) + timedelta(minutes=30)
        ),
        "ideas/too-old.md": note_text("Too old", created=on(DAY - timedelta(days=2), 12)),
        "ideas/week-start.md": note_text("Week start", created=on(DAY - timedelta(days=6), 8)),
        "ideas/last-week.md": note_text("Last week", created=on(DAY - timedelta(days=7), 12)),
    }
    async with running_brain(tmp_path, database_url) as brain:
        await add_notes(brain.store, tmp_path / "import", notes)
        now = on(DAY, 8)  # 09:00 in Berlin
        daily = await compose_digest(brain.store, day=DAY, zone=berlin, now=now)
        weekly = await compose_digest(brain.store, day=DAY, kind="weekly", zone=berlin, now=now)
        earlier = await compose_digest(brain.store, day=DAY, zone=berlin, now=on(DAY, 5))
    assert _section(daily, "Captured since yesterday") == [
        "Dawn idea (ideas)",
        "Last night (ideas)",
        "Berlin midnight (ideas)",
    ]
    assert _section(weekly, "Captured this week") == [
        "Dawn idea (ideas)",
        "Last night (ideas)",
        "Berlin midnight (ideas)",
        "Too old (ideas)",
        "Week start (ideas)",
    ]
    # Composed before the dawn capture, the digest does not list it yet.
    assert "Dawn idea (ideas)" not in _section(earlier, "Captured since yesterday")


async def test_a_project_marked_done_leaves_the_digest(tmp_path: Path, database_url: str) -> None:
    clock = Clock(datetime.now(UTC))
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_notes(
            brain.store, tmp_path / "import", {"projects/fence.md": note_text("Repaint the fence")}
        )
        (before,) = await brain.engine.handle(message("/digest"))
        assert "1. Repaint the fence — no next action yet" in before.text
        await brain.engine.handle(press(before, "Done 1"))
        assert frontmatter.load(brain.settings.vault_dir / "projects/fence.md")["status"] == "done"
        clock.now = datetime.now(UTC)  # after the real time the change was stamped with
        (daily,) = await brain.engine.handle(message("/digest"))
        (weekly,) = await brain.engine.handle(message("/digest weekly"))
    assert "Nothing needs you today." in daily.text and daily.buttons == ()
    assert "Next actions" not in weekly.text
    assert "Finished this week\n• Repaint the fence (projects)" in weekly.text


def _rows(category: str, count: int, **fields: str) -> Listing:
    rows = tuple(
        NoteRow(f"{category}/{n}.md", category, f"{category} {n}", None, fields, LONG_AGO)
        for n in range(count)
    )
    return Listing(rows, count)


def _facts(projects: int, due: int, todo: int) -> DigestFacts:
    none = Listing((), 0)
    return DigestFacts(
        open_projects=_rows("projects", projects, next_action="Go on"),
        due=_rows("admin", due, due=str(DAY)),
        todo=_rows("admin", todo),
        coming_up=none,
        follow_ups=none,
        captured=none,
        inbox=0,
        stuck=none,
        finished=none,
    )


def test_to_dos_without_a_due_date_get_the_buttons_the_due_items_leave() -> None:
    roomy = digest_from_facts(_facts(projects=2, due=3, todo=4), day=DAY, kind="daily")
    assert [s.heading for s in roomy.sections] == ["Next actions", "Due and overdue", "To do"]
    assert len(roomy.actions) == 9
    assert "\nTo do\n6. admin 0\n7. admin 1\n8. admin 2\n9. admin 3" in roomy.text
    crowded = digest_from_facts(_facts(projects=5, due=7, todo=4), day=DAY, kind="daily")
    assert len(crowded.actions) == 10
    assert "\nDue and overdue\n6. admin 0 — due today\n" in crowded.text
    assert "…and 2 more" in crowded.text
    assert crowded.text.endswith("\nTo do\n• 4 open items without a due date")


async def test_a_huge_vault_still_fits_one_telegram_message(
    tmp_path: Path, database_url: str
) -> None:
    long = "x" * 400
    notes = {
        f"projects/p{i}.md": note_text(f"Project {i} {long}", next_action=long, status="active")
        for i in range(30)
    }
    notes |= {f"admin/a{i}.md": note_text(f"Bill {i} {long}", due=str(DAY)) for i in range(30)}
    notes |= {
        f"ideas/i{i}.md": note_text(f"Idea {i} {long}", created=on(YESTERDAY)) for i in range(30)
    }
    async with running_brain(tmp_path, database_url) as brain:
        await add_notes(brain.store, tmp_path / "import", notes)
        digest = await compose_digest(brain.store, day=DAY)
    assert len(digest.text) <= TEXT_LIMIT
    assert len(digest.actions) <= 10
    (captured,) = [s for s in digest.sections if s.heading == "Captured since yesterday"]
    assert captured.more >= 30 - 8 and f"…and {captured.more} more" in digest.text


async def test_with_a_model_a_short_opening_comes_first_and_the_sections_stay(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [say("Taxes are overdue: do them first. The website can wait.")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault_notes())
        plain = await compose_digest(brain.store, day=DAY)
        digest = await with_summary(brain.llm, plain)
    assert digest.summary == "Taxes are overdue: do them first. The website can wait."
    assert digest.sections == plain.sections
    assert digest.text.splitlines()[2].startswith("Taxes are overdue")
    request = openai_fake.chat_requests()[0]
    assert "Taxes — overdue since 2026-11-18" in request["messages"][-1]["content"]


async def test_without_the_model_the_digest_goes_out_without_an_opening(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [fail(503)]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault_notes())
        plain = await compose_digest(brain.store, day=DAY)
        digest = await with_summary(brain.llm, plain)
    assert digest == plain


def test_a_digest_survives_the_round_trip_through_the_database_form() -> None:
    from bot.digest.compose import DigestItem, DigestSection

    digest = Digest(
        "daily",
        DAY,
        (
            DigestSection("Next actions", (DigestItem("A: b", "projects/a.md", True, "done"),), 2),
            DigestSection("Inbox", (DigestItem("1 item waits for a category"),)),
        ),
        "Opening.",
    )
    assert Digest.from_content(digest.to_content()) == digest
    assert "1. ✓ A: b — done" in digest.text
