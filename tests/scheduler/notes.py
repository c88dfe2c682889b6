"""Notes with chosen dates, imported into a vault in one commit (a vault's own
writes stamp `created`/`updated` with the real time, which tests cannot move)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml

from storage.store import Store

LONG_AGO = datetime(2026, 1, 1, tzinfo=UTC)


def note_text(title: str, body: str = "", **fields: Any) -> str:
    created = fields.pop("created", LONG_AGO)
    values: dict[str, Any] = {"title": title, "created": created, "updated": created}
    values.update(fields)
    plain = {
        k: v.isoformat() if isinstance(v, datetime) else v
        for k, v in values.items()
        if v is not None
    }
    return f"---\n{yaml.safe_dump(plain, sort_keys=False)}---\n{body}\n"


async def add_notes(store: Store, tmp: Path, notes: dict[str, str]) -> None:
    """Write `{path: text}` into a folder and import it (one commit, indexed in bulk)."""
    for path, text in notes.items():
        full = tmp / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text, encoding="utf-8")
    result = await store.import_folder(tmp)
    assert not result.skipped, result.skipped


def on(day: date, hour: int = 12) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC)
