"""The digest: what matters today, built from the notes alone (no LLM needed)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from storage.entry import Entry
from storage.store import Store

SCAN_LIMIT = 500  # per category; a digest lists a handful, not the vault
STUCK_AFTER = timedelta(days=14)


@dataclass(frozen=True, slots=True)
class DigestSection:
    heading: str
    lines: tuple[str, ...]
    paths: tuple[str, ...] = ()  # entries a line is about, for action buttons


@dataclass(frozen=True, slots=True)
class Digest:
    kind: str  # daily | weekly
    day: date
    sections: tuple[DigestSection, ...]

    @property
    def text(self) -> str:
        title = "Weekly review" if self.kind == "weekly" else "Daily digest"
        parts = [f"{title} for {self.day.isoformat()}"]
        for section in self.sections:
            parts.append(
                f"\n{section.heading}\n" + "\n".join(f"• {line}" for line in section.lines)
            )
        if not self.sections:
            parts.append("\nNothing needs you today.")
        return "\n".join(parts)


def _as_date(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str) and value:
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


def _is_open(entry: Entry) -> bool:
    return (entry.status or "active").lower() not in ("done", "cancelled", "archived")


async def compose_digest(store: Store, *, day: date, kind: str = "daily") -> Digest:
    """The day's digest: next actions, due items, follow-ups, new captures, inbox, stuck work."""
    span = timedelta(days=7 if kind == "weekly" else 1)
    projects = [e for e in await store.list(category="projects", limit=SCAN_LIMIT) if _is_open(e)]
    admin = [e for e in await store.list(category="admin", limit=SCAN_LIMIT) if _is_open(e)]
    people = await store.list(category="people", limit=SCAN_LIMIT)
    inbox = await store.list(category="inbox", limit=SCAN_LIMIT)
    recent = await store.recent(limit=SCAN_LIMIT)

    sections: list[DigestSection] = []
    actions = [e for e in projects if e.fields.get("next_action")]
    actions.sort(key=lambda e: _as_date(e.fields.get("due")) or date.max)
    if actions[:5]:
        sections.append(
            DigestSection(
                "Next actions",
                tuple(f"{e.title}: {e.fields['next_action']}" for e in actions[:5]),
                tuple(e.path for e in actions[:5]),
            )
        )
    due = [e for e in admin if (d := _as_date(e.fields.get("due"))) and d <= day + timedelta(1)]
    due.sort(key=lambda e: _as_date(e.fields.get("due")) or date.max)
    if due:
        sections.append(
            DigestSection(
                "Due and overdue",
                tuple(
                    f"{e.title} (due {_as_date(e.fields.get('due'))}"
                    + (", overdue)" if (_as_date(e.fields.get("due")) or day) < day else ")")
                    for e in due[:8]
                ),
                tuple(e.path for e in due[:8]),
            )
        )
    follow = [e for e in people if e.fields.get("follow_ups")]
    if follow:
        sections.append(
            DigestSection(
                "People to follow up",
                tuple(f"{e.title}: {e.fields['follow_ups']}" for e in follow[:5]),
            )
        )
    since = day - span
    new = [e for e in recent if (c := _as_date(e.fields.get("created"))) and since <= c < day]
    if new:
        label = "Captured this week" if kind == "weekly" else "Captured yesterday"
        sections.append(DigestSection(label, tuple(f"{e.title} ({e.path})" for e in new[:10])))
    if inbox:
        sections.append(DigestSection("Inbox", (f"{len(inbox)} item(s) wait for a category",)))
    stale_before = day - STUCK_AFTER
    stuck = [e for e in projects if (u := _as_date(e.fields.get("updated"))) and u < stale_before]
    if stuck:
        sections.append(
            DigestSection(
                "Stuck projects (no change in 14 days)", tuple(e.title for e in stuck[:5])
            )
        )
    return Digest(kind, day, tuple(sections))
