"""The digest: what matters today, built from the index alone (no LLM needed).

Sections: every open project with its next action (or a note that it has none
yet), admin items due or overdue, admin items without a due date ("To do"), admin
items coming up later, people to follow up, what was captured since the start of
yesterday up to the moment of composing (the last seven days, for the weekly
review), the inbox waiting for a decision, and projects stuck for two weeks. Action
items (projects, due items, to-dos) are numbered; the chat shows Done / Snooze /
Open buttons for each (see bot.buttons.digest). "Nothing needs you today" means
nothing is open and nothing was captured. The text stays well inside Telegram's
4,096 characters and a handful of Slack blocks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any

from bot.digest.resurface import PastSection, past_sections
from bot.digest.unlinked_mentions import MENTIONS, LinkOffer, unlinked_mentions
from storage import Store
from storage.index import DigestFacts, DigestQuery, Listing, NoteRow, digest_facts
from storage.text import wikilinks
from storage.text.dates import day_end, day_start, frontmatter_day
from storage.vault import CLOSED_STATUSES

STUCK_AFTER = timedelta(days=14)
SECTION_LINES = 8  # rows per section; the rest is counted ("…and 12 more")
NEXT_ACTION_LINES = 5
COMING_UP_LINES = 3  # in the daily digest; the weekly review looks further ahead
MAX_ACTIONS = 10  # items with buttons: three each, one Telegram row each
LINE_CHARS = 160
PAST_ITEM = "past"  # DigestItem.buttons of an older note brought back
TEXT_LIMIT = 3500  # characters; leaves room for a notice under Telegram's 4,096


@dataclass(frozen=True, slots=True)
class DigestItem:
    """One line. An action item (`action`) gets buttons, as does an offer to `link`
    (bot.digest.unlinked_mentions); `state` says what a press did."""

    text: str
    path: str | None = None
    action: bool = False
    state: str | None = None  # "done" | "snoozed to 2026-11-21" | "not found"
    buttons: str = "task"  # Done/Snooze/Open; PAST_ITEM (an older note): Open/Done/Less
    link: LinkOffer | None = None


@dataclass(frozen=True, slots=True)
class DigestSection:
    heading: str
    items: tuple[DigestItem, ...]
    more: int = 0  # matching notes left out

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(item.text for item in self.items)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(item.path for item in self.items if item.path)


@dataclass(frozen=True, slots=True)
class Digest:
    kind: str  # daily | weekly
    day: date
    sections: tuple[DigestSection, ...]
    summary: str | None = None  # the model's short opening, when there is a model

    @property
    def title(self) -> str:
        name = "Weekly review" if self.kind == "weekly" else "Daily digest"
        return f"{name} for {self.day:%A} {self.day.isoformat()}"

    @property
    def actions(self) -> list[DigestItem]:
        """The action items in display order (item n is button row n)."""
        return [item for section in self.sections for item in section.items if item.action]

    @property
    def brought_back(self) -> tuple[str, ...]:
        """The paths of the older notes this digest brings back (bot.digest.resurface)."""
        items = (i for s in self.sections for i in s.items if i.buttons == PAST_ITEM)
        return tuple(i.path for i in items if i.path)

    @property
    def text(self) -> str:
        """Plain text for the chat: action items numbered, the others bulleted."""
        parts = [self.title]
        if self.summary:
            parts.append(self.summary)
        number = 0
        for section in self.sections:
            lines = [section.heading]
            for item in section.items:
                if item.action or item.link:
                    number += 1
                    lines.append(f"{number}. {_with_state(item)}")
                else:
                    lines.append(f"• {item.text}")
            if section.more:
                lines.append(f"  …and {section.more} more")
            parts.append("\n".join(lines))
        if not self.sections:
            parts.append("Nothing needs you today.")
        return "\n\n".join(parts)

    def markdown(self) -> str:
        """The digest as a note for `digests/YYYY-MM-DD.md` (readable in Obsidian)."""
        out = [
            "---",
            f"title: {self.title}",
            f"kind: {self.kind}",
            f"date: {self.day.isoformat()}",
            "---",
            "",
            f"# {self.title}",
        ]
        if self.summary:
            out += ["", self.summary]
        for section in self.sections:
            out += ["", f"## {section.heading}", ""]
            for item in section.items:
                link = (
                    f" ({wikilinks.wikilink(item.path.removesuffix('.md'))})" if item.path else ""
                )
                box = "- [ ] " if item.action and item.buttons == "task" else "- "
                out.append(f"{box}{item.text}{link}")
            if section.more:
                out.append(f"- …and {section.more} more")
        if not self.sections:
            out += ["", "Nothing needs you today."]
        return "\n".join(out) + "\n"

    def to_content(self) -> dict[str, Any]:
        """JSON-safe form, kept with a sent digest so a button press can redraw it."""
        return {
            "kind": self.kind,
            "day": self.day.isoformat(),
            "summary": self.summary,
            "sections": [
                {"heading": s.heading, "more": s.more, "items": len(s.items)} for s in self.sections
            ],
            "items": [
                {
                    "text": i.text,
                    "path": i.path,
                    "action": i.action,
                    "state": i.state,
                    "buttons": i.buttons,
                }
                | ({"link": asdict(i.link)} if i.link else {})
                for s in self.sections
                for i in s.items
            ],
        }

    @classmethod
    def from_content(cls, content: Mapping[str, Any]) -> Digest:
        items = iter(
            DigestItem(
                i["text"],
                i.get("path"),
                bool(i.get("action")),
                i.get("state"),
                i.get("buttons", "task"),
                LinkOffer(**i["link"]) if i.get("link") else None,
            )
            for i in content["items"]
        )
        sections = tuple(
            DigestSection(
                s["heading"],
                tuple(next(items) for _ in range(s["items"])),
                int(s.get("more", 0)),
            )
            for s in content["sections"]
        )
        return cls(
            content["kind"], date.fromisoformat(content["day"]), sections, content.get("summary")
        )


def _with_state(item: DigestItem) -> str:
    if item.state is None:
        return item.text
    marks = {"done": "✓", "snoozed": "→", "less": "↓", "linked": "✓"}
    mark = marks.get(item.state.split(" ", 1)[0], "✗")
    return f"{mark} {item.text} — {item.state}"


# --- composing ------------------------------------------------------------------------


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1] + "…"


def _plain(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "; ".join(str(v) for v in value if v not in (None, ""))
    return "" if value is None else str(value)


def _project(row: NoteRow) -> DigestItem:
    due = frontmatter_day(row.fields.get("due"))
    suffix = f" (due {due.isoformat()})" if due else ""
    step = _plain(row.fields.get("next_action"))
    line = f"{row.title}: {step}" if step else f"{row.title} — no next action yet"
    return DigestItem(_short(line + suffix), row.path, True)


def _due_item(row: NoteRow, day: date) -> DigestItem:
    due = frontmatter_day(row.fields.get("due")) or day
    if due < day:
        when = f"overdue since {due.isoformat()}"
    else:
        when = "due today" if due == day else "due tomorrow"
    return DigestItem(_short(f"{row.title} — {when}"), row.path, True)


def _coming_item(row: NoteRow) -> DigestItem:
    due = frontmatter_day(row.fields.get("due"))
    when = f" — due {due.isoformat()}" if due else ""
    return DigestItem(_short(f"{row.title}{when}"), row.path)


def _section(heading: str, listing: Listing, items: Sequence[DigestItem]) -> list[DigestSection]:
    if not items:
        return []
    return [DigestSection(heading, tuple(items), max(0, listing.total - len(items)))]


def _todo(listing: Listing, room: int) -> list[DigestSection]:
    """Admin items without a due date: action items while buttons are left, else
    only how many there are (the due ones took the buttons)."""
    if listing.total and room <= 0:
        noun = "item" if listing.total == 1 else "items"
        line = DigestItem(f"{listing.total} open {noun} without a due date")
        return [DigestSection("To do", (line,))]
    items = [DigestItem(_short(r.title), r.path, True) for r in listing.rows[:room]]
    return _section("To do", listing, items)


def digest_from_facts(facts: DigestFacts, *, day: date, kind: str) -> Digest:
    """Sections from the query results; at most MAX_ACTIONS items get buttons."""
    weekly = kind == "weekly"
    sections: list[DigestSection] = []
    projects = [_project(r) for r in facts.open_projects.rows[:NEXT_ACTION_LINES]]
    sections += _section("Next actions", facts.open_projects, projects)
    # Buttons go to projects first, then to what is due, then to undated to-dos.
    room = MAX_ACTIONS - len(projects)
    due = [_due_item(r, day) for r in facts.due.rows[:room]]
    sections += _section("Due and overdue", facts.due, due)
    sections += _todo(facts.todo, room - len(due))
    coming = facts.coming_up.rows[: SECTION_LINES if weekly else COMING_UP_LINES]
    sections += _section("Coming up", facts.coming_up, [_coming_item(r) for r in coming])
    sections += _section(
        "People to follow up",
        facts.follow_ups,
        [
            DigestItem(_short(f"{r.title}: {_plain(r.fields.get('follow_ups'))}"), r.path)
            for r in facts.follow_ups.rows[:SECTION_LINES]
        ],
    )
    sections += _section(
        "Captured this week" if weekly else "Captured since yesterday",
        facts.captured,
        [
            DigestItem(_short(f"{r.title} ({r.category})"), r.path)
            for r in facts.captured.rows[:SECTION_LINES]
        ],
    )
    if weekly:
        sections += _section(
            "Finished this week",
            facts.finished,
            [
                DigestItem(_short(f"{r.title} ({r.category})"), r.path)
                for r in facts.finished.rows[:SECTION_LINES]
            ],
        )
    if facts.inbox:
        noun = "item waits" if facts.inbox == 1 else "items wait"
        sections.append(
            DigestSection("Inbox", (DigestItem(f"{facts.inbox} {noun} for a category"),))
        )
    sections += _section(
        f"Stuck projects (no change in {STUCK_AFTER.days} days)",
        facts.stuck,
        [
            DigestItem(_short(f"{r.title} (last change {r.updated.date().isoformat()})"), r.path)
            for r in facts.stuck.rows[:SECTION_LINES]
        ],
    )
    return fit(Digest(kind, day, tuple(sections)))


def fit(digest: Digest, limit: int = TEXT_LIMIT) -> Digest:
    """Drop the last lines of the longest sections until the text fits in `limit`
    characters; action items go last, and dropped lines are counted in `more`."""
    sections = list(digest.sections)
    while len(replace(digest, sections=tuple(sections)).text) > limit:
        candidates = [i for i, s in enumerate(sections) if len(s.items) > 1]
        if not candidates:
            break
        index = max(
            candidates, key=lambda i: (not sections[i].items[-1].action, len(sections[i].items))
        )
        section = sections[index]
        sections[index] = DigestSection(section.heading, section.items[:-1], section.more + 1)
    return replace(digest, sections=tuple(sections))


async def compose_digest(
    store: Store,
    *,
    day: date,
    kind: str = "daily",
    zone: tzinfo = UTC,
    now: datetime | None = None,
) -> Digest:
    """The digest for local date `day` in `zone`, composed at `now`: captures count
    from the start of yesterday (of the day six days back, for the weekly review) up
    to `now`, or to the end of `day` when `now` is later or not given. A handful of
    index queries, no LLM."""
    span = 6 if kind == "weekly" else 1
    end_of_day = day_end(day, zone)
    query = DigestQuery(
        start=day_start(day - timedelta(days=span), zone),
        end=end_of_day if now is None else min(now, end_of_day),
        due_by=day + timedelta(days=1),
        stuck_before=day_start(day, zone) - STUCK_AFTER,
        closed=CLOSED_STATUSES,
        categories=store.vault.categories,
        limit=max(SECTION_LINES, NEXT_ACTION_LINES, MAX_ACTIONS),
        with_finished=kind == "weekly",
    )
    facts = await digest_facts(store.database.engine, query, vault_id=store.index.vault_id)
    digest = digest_from_facts(facts, day=day, kind=kind)
    listed = tuple(path for section in digest.sections for path in section.paths)
    past = await past_sections(
        store,
        day=day,
        kind=kind,
        zone=zone,
        start_of_day=day_start(day, zone),
        now=query.end,
        listed=listed,
    )
    sections = digest.sections + tuple(_past(p) for p in past)
    if kind == "weekly":  # notes of the week naming others without a link
        found = await unlinked_mentions(store, since=query.start, until=query.end)
        items = tuple(DigestItem(m.text, m.path, link=m.link) for m in found)
        if items:
            sections = (*sections, DigestSection(MENTIONS, items))
    return fit(replace(digest, sections=sections))


def _past(section: PastSection) -> DigestSection:
    """Older notes brought back: action items with their own buttons (see
    bot.digest.resurface; they come on top of MAX_ACTIONS, at most two)."""
    items = tuple(DigestItem(_short(t), p, True, buttons=PAST_ITEM) for t, p in section.lines)
    return DigestSection(section.heading, items, section.more)
