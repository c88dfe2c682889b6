"""Dates in a captured thought become `remind`, `due` and `repeat` in the person's time
zone, with and without a model; the reply says when; the reminder then comes."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import frontmatter

from app.scheduling import build_service
from tests.bot.helpers import message, notes
from tests.fakes.brain import Clock, running_brain
from tests.fakes.openai_server import FakeOpenAI, call
from tests.scheduler.outbox import Outbox, add_ada

BERLIN = ZoneInfo("Europe/Berlin")
SEOUL = ZoneInfo("Asia/Seoul")
# Monday 23 November 2026, 14:00 in Berlin.
MONDAY = datetime(2026, 11, 23, 14, 0, tzinfo=BERLIN)


def _fields(vault: Path, path: str) -> dict[str, Any]:
    return dict(frontmatter.load(vault / path).metadata)


async def test_without_a_model_remind_me_tomorrow_at_9_sets_the_time_and_it_comes(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(MONDAY)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_ada(brain)
        (reply,) = await brain.engine.handle(message("remind me to call mom tomorrow at 9"))
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        fields = _fields(vault, path)
        outbox = Outbox(clock)
        service = build_service(brain, outbox)
        assert service.reminders is not None
        clock.now = datetime(2026, 11, 24, 9, 0, tzinfo=BERLIN)
        await service.reminders.run_due(clock())
    assert path.startswith("admin/") and "call-mom" in path
    # Wall time as Obsidian's date-time property reads it, in the zone the note records.
    assert fields["remind"] == datetime(2026, 11, 24, 9, 0)  # noqa: DTZ001
    assert fields["timezone"] == "Europe/Berlin"
    assert "I'll remind you tomorrow at 09:00" in reply.text
    ((at, _, sent),) = outbox.sent
    assert at == clock() and sent.text.startswith("⏰ ")


async def test_without_a_model_a_deadline_is_a_due_date_not_a_reminder(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, clock=Clock(MONDAY)) as brain:
        await add_ada(brain)
        (reply,) = await brain.engine.handle(message("renew the passport by Dec 1"))
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        fields = _fields(vault, path)
    assert path.startswith("admin/")
    assert fields["due"] == date(2026, 12, 1) and "remind" not in fields
    assert "Due 2026-12-01" in reply.text


async def test_every_monday_repeats_and_a_thought_without_a_date_gets_none(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, clock=Clock(MONDAY)) as brain:
        await add_ada(brain)
        await brain.engine.handle(message("water the plants every Monday"))
        await brain.engine.handle(message("I may try oolong tea"))
        vault = brain.settings.vault_dir
        by_title = {_fields(vault, p)["title"]: _fields(vault, p) for p in notes(vault)}
    plants = next(f for t, f in by_title.items() if "plants" in t.lower())
    assert plants["repeat"] == "every monday"
    assert plants["remind"] == datetime(2026, 11, 30, 9, 0)  # noqa: DTZ001
    tea = next(f for t, f in by_title.items() if "oolong" in t.lower())
    assert not {"remind", "repeat"} & set(tea) and tea.get("due") is None


async def test_tomorrow_is_the_person_s_tomorrow(tmp_path: Path, database_url: str) -> None:
    # 23:30 in Berlin is already Tuesday 07:30 in Seoul.
    clock = Clock(datetime(2026, 11, 23, 23, 30, tzinfo=BERLIN))
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_ada(brain, timezone="Asia/Seoul")
        await brain.engine.handle(message("remind me to book the train tomorrow"))
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        fields = _fields(vault, path)
    assert fields["remind"] == datetime(2026, 11, 25, 9, 0)  # noqa: DTZ001
    assert fields["timezone"] == "Asia/Seoul"


async def test_with_a_model_its_local_time_is_the_person_s_and_their_words_win(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "capture",
            category="admin",
            title="Dentist",
            body="Dentist appointment, remind me on Friday at 15:00",
            confidence=0.9,
            tags=[],
            # A small model's guess of the date: the wrong Friday.
            fields=[{"name": "remind", "value": "2026-11-20 15:00"}],
        ),
        call(
            "capture",
            category="admin",
            title="Car insurance",
            body="Renew the car insurance",
            confidence=0.9,
            tags=[],
            fields=[{"name": "remind", "value": "2026-12-02 10:30"}],
        ),
    ]
    async with running_brain(tmp_path, database_url, openai_fake, clock=Clock(MONDAY)) as brain:
        await add_ada(brain)
        (first,) = await brain.engine.handle(message("dentist, remind me on Friday at 15:00"))
        # A deadline: a reason for the reminder the model set (for words that name no
        # date, appointment or deadline, a model's reminder is dropped).
        (second,) = await brain.engine.handle(message("renew the car insurance by December 2"))
        vault = brain.settings.vault_dir
        dentist = _fields(vault, "admin/dentist.md")
        insurance = _fields(vault, "admin/car-insurance.md")
    assert dentist["remind"] == datetime(2026, 11, 27, 15, 0)  # noqa: DTZ001
    assert "Fri" in first.text or "Friday" in first.text
    # A time the model wrote without an offset is the person's local time.
    assert insurance["remind"] == datetime(2026, 12, 2, 10, 30)  # noqa: DTZ001
    assert insurance["timezone"] == "Europe/Berlin"
    assert "I'll remind you" in second.text
