"""The notes that carry a reminder, read from the index.

A note asks to be reminded with `remind` (an instant) and may repeat it (`repeat`,
e.g. "every monday"); a snoozed reminder of a repeating note waits in `snooze`.
The values are returned as written: a local time is in the note's own `timezone`
when it has one, else in the person's zone, which the scheduler knows and the
index does not.
Few notes carry one, and a partial index on exactly those keeps the scheduler's
poll from reading the rest. Closed notes (status done, cancelled...) remind nobody.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.index.indexed_note import decode_fields
from storage.vault.schema import note_source, note_zone


@dataclass(frozen=True, slots=True)
class ReminderNote:
    """A note with a reminder, as the scheduler and `/reminders` need it."""

    vault_id: int
    path: str
    title: str
    note_id: str
    remind: Any  # as written: an aware or local datetime, a date, or text
    snooze: Any
    repeat: str | None
    due: Any
    source: dict[str, Any]  # where the note came from ({"platform": "slack", ...})
    zone: ZoneInfo | None = None  # the note's `timezone`: its local times are in it


_NOTES = """
SELECT e.vault_id, e.path, e.title, e.fields FROM entries e
WHERE (e.fields ? 'remind' OR e.fields ? 'snooze')
  AND lower(coalesce(e.status, '')) <> ALL(CAST(:closed AS text[]))
  {vault}
ORDER BY e.vault_id, e.path
"""


async def reminder_notes(
    engine: AsyncEngine, *, closed: Sequence[str], vault_id: int | None = None
) -> list[ReminderNote]:
    """The open notes with a reminder, in every vault or in `vault_id` only."""
    sql = _NOTES.format(vault="AND e.vault_id = :vault" if vault_id is not None else "")
    params: dict[str, Any] = {"closed": [s.lower() for s in closed]}
    if vault_id is not None:
        params["vault"] = vault_id
    async with engine.connect() as conn:
        rows = (await conn.execute(text(sql), params)).all()
    notes: list[ReminderNote] = []
    for row in rows:
        fields = decode_fields(row.fields)
        if not isinstance(fields, dict):
            continue
        repeat = fields.get("repeat")
        notes.append(
            ReminderNote(
                vault_id=row.vault_id,
                path=row.path,
                title=row.title,
                note_id=str(fields.get("id") or row.path),
                remind=fields.get("remind"),
                snooze=fields.get("snooze"),
                repeat=str(repeat) if repeat not in (None, "") else None,
                due=fields.get("due"),
                source=note_source(fields),
                zone=note_zone(fields),
            )
        )
    return notes
