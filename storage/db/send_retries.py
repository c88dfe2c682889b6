"""What the digest log and the reminder log share: a failed send waits as `retrying`
until `next_attempt_at`, and exactly one caller takes each attempt."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, Table, Update, and_, select, update


def retries_due(table: Table, now: datetime, order: Any) -> Select[Any]:
    """The rows whose next attempt is due, in `order`."""
    c = table.c
    return (
        select(table).where(and_(c.status == "retrying", c.next_attempt_at <= now)).order_by(order)
    )


def reclaim(table: Table, row: ColumnElement[bool], now: datetime) -> Update:
    """Mark one due retry as being sent (one more attempt), returning it; the update
    matches nothing for a caller that came second."""
    c = table.c
    return (
        update(table)
        .where(row, c.status == "retrying", c.next_attempt_at <= now)
        .values(status="sending", attempts=c.attempts + 1, claimed_at=now)
        .returning(*c)
    )
