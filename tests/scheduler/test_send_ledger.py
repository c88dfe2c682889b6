"""The send ledger lets exactly one claim of a digest (user, local date, kind) or a
reminder (vault, note, instant) through; a digest message's items are marked apart."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import User
from storage.db.digest_messages import DigestMessages, new_message_id
from storage.db.send_ledger import DigestKey, ReminderKey, SendLedger

NOW = datetime(2026, 11, 20, 7, 0, tzinfo=UTC)
DAY = date(2026, 11, 20)


async def _with_user(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await conn.execute(insert(User).values(id=1, name="Ada", created_at=NOW))


async def test_only_one_of_many_concurrent_claims_wins(engine: AsyncEngine) -> None:
    await _with_user(engine)
    log = SendLedger(engine)
    claims = await asyncio.gather(
        *(log.claim(DigestKey(1, DAY, "daily"), due_at=NOW, now=NOW) for _ in range(8))
    )
    assert sorted(claims) == [False] * 7 + [True]
    assert await log.claim(DigestKey(1, DAY, "weekly"), due_at=NOW, now=NOW)
    await log.finish(DigestKey(1, DAY, "daily"), status="sent", now=NOW, platform="telegram")
    (daily, weekly) = await log.entries("digest", user_id=1)
    assert (daily.kind, daily.status, daily.platform) == ("daily", "sent", "telegram")
    assert (weekly.kind, weekly.status) == ("weekly", "sending")


async def test_a_reminder_is_claimed_once_per_instant_and_a_new_time_is_a_new_one(
    engine: AsyncEngine,
) -> None:
    log = SendLedger(engine)
    first = ReminderKey(2, "note-1", NOW)
    claims = await asyncio.gather(
        *(log.claim(first, now=NOW, user_id=1, path="a.md", title="A") for _ in range(8))
    )
    assert sorted(claims) == [False] * 7 + [True]
    later = ReminderKey(2, "note-1", NOW.replace(hour=9))
    assert await log.claim(later, now=NOW, user_id=1, path="a.md", title="A")
    assert await log.handled(2, ["note-1"]) == {
        ("note-1", first.remind_at),
        ("note-1", later.remind_at),
    }
    assert await log.entries("digest") == []


async def test_item_marks_of_one_message_do_not_overwrite_each_other(engine: AsyncEngine) -> None:
    await _with_user(engine)
    log = DigestMessages(engine)
    content = {"items": [{"path": "a.md", "state": None}, {"path": "b.md", "state": None}]}
    message_id = new_message_id()
    await log.add_message(
        message_id=message_id, user_id=1, kind="daily", local_date=DAY, content=content, now=NOW
    )
    await asyncio.gather(log.mark_item(message_id, 0, "done"), log.mark_item(message_id, 1, "x"))
    message = await log.message(message_id)
    assert message is not None
    assert [item["state"] for item in message.content["items"]] == ["done", "x"]
    assert await log.message("unknown") is None
