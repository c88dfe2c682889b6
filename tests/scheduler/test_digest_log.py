"""The digest log lets exactly one claim of (user, local date, kind) through."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import User
from storage.db.digest_log import DigestKey, DigestLog, new_message_id

NOW = datetime(2026, 11, 20, 7, 0, tzinfo=UTC)
DAY = date(2026, 11, 20)


async def _log_with_user(engine: AsyncEngine) -> DigestLog:
    log = DigestLog(engine)
    async with engine.begin() as conn:
        await conn.execute(insert(User).values(id=1, name="Ada", created_at=NOW))
    return log


async def test_only_one_of_many_concurrent_claims_wins(engine: AsyncEngine) -> None:
    log = await _log_with_user(engine)
    claims = await asyncio.gather(
        *(log.claim(DigestKey(1, DAY, "daily"), due_at=NOW, now=NOW) for _ in range(8))
    )
    assert sorted(claims) == [False] * 7 + [True]
    assert await log.claim(DigestKey(1, DAY, "weekly"), due_at=NOW, now=NOW)
    await log.finish(DigestKey(1, DAY, "daily"), status="sent", now=NOW, platform="telegram")
    (daily, weekly) = await log.entries(1)
    assert (daily.kind, daily.status, daily.platform) == ("daily", "sent", "telegram")
    assert (weekly.kind, weekly.status) == ("weekly", "sending")


async def test_item_marks_of_one_message_do_not_overwrite_each_other(engine: AsyncEngine) -> None:
    log = await _log_with_user(engine)
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
