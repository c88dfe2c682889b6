"""Which notes a search or listing may return: fields (category, tags, status, title,
dates), the strict text conditions of the search syntax (required phrases, one-of
groups, excluded words) and links (`linked:[[Acme]]`), as SQL on `entries e`, and as
words a reply can show when a filter leaves nothing."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from datetime import UTC, date, datetime, tzinfo
from typing import Any

from storage.index.indexed_note import normal_tag
from storage.index.note_links import LINKS_TO, target_keys
from storage.index.tokens import fold
from storage.text import wikilinks
from storage.text.dates import day_end, day_start

# A text condition is a phrase (or one word) matched against the note's `simple`
# tsvector by `phraseto_tsquery`; a text Postgres finds no lexeme in (say "_") would
# make a query that matches nothing, so such a condition is skipped, not failed.
_REQUIRED = "(numnode({q}) = 0 OR e.tsv @@ {q})"
_PHRASE = "phraseto_tsquery('simple', :{name})"


@dataclass(frozen=True, slots=True)
class LinkedTo:
    """`linked:[[name]]` (or `linked:works_at:[[name]]`): notes linking to the note
    called `name`, with a link of type `relation` when one is given. `targets` are the
    notes called so, as (file-name key, title key, path key, path), found before the
    query runs (storage.index.lookups.resolve_linked); without any, the links that
    name `name` count, as they would for a note not written yet."""

    name: str
    relation: str | None = None
    targets: tuple[tuple[str, str, str, str], ...] = ()

    def sql(self, prefix: str) -> tuple[str, dict[str, Any]]:
        params: dict[str, Any] = {}
        targets = self.targets
        if not targets:
            path = self.name if self.name.lower().endswith(".md") else self.name + ".md"
            targets = ((*target_keys(path, None if "/" in self.name else self.name), ""),)
        either = []
        for j, (stem, title, where, own) in enumerate(targets):
            keys = {"stem": f"{prefix}_{j}s", "title": f"{prefix}_{j}t", "path": f"{prefix}_{j}p"}
            params.update({keys["stem"]: stem, keys["title"]: title, keys["path"]: where})
            condition = LINKS_TO.format(**{k: f":{v}" for k, v in keys.items()})
            if own:  # a note's link to itself is no backlink
                condition += f" AND e.path <> :{prefix}_{j}o"
                params[f"{prefix}_{j}o"] = own
            either.append(f"({condition})")
        typed = ""
        if self.relation:
            typed = f" AND lower(l.relation) = lower(:{prefix}_r)"
            params[f"{prefix}_r"] = self.relation
        where_links = " OR ".join(either)
        sql = f"EXISTS (SELECT 1 FROM links l WHERE l.source_id = e.id{typed} AND ({where_links}))"
        return sql, params

    @property
    def words(self) -> str:
        """How a reply names it: `linking to [[Acme]] as works_at`."""
        return f"linking to {wikilinks.wikilink(self.name)}" + (
            f" as {self.relation}" if self.relation else ""
        )


@dataclass(frozen=True, slots=True)
class Filters:
    """Restrictions on which notes a search or listing returns. A `date` bound covers
    that whole day; a `datetime` bound is exact (after: inclusive, before: exclusive).
    Text conditions (`required`, `any_of`, `excluded`) are phrases as typed."""

    category: str | None = None
    tags: tuple[str, ...] = ()
    status: str | None = None
    modified_after: datetime | date | None = None
    modified_before: datetime | date | None = None
    titles: tuple[str, ...] = ()  # each must occur in the title (any case)
    required: tuple[str, ...] = ()  # each must occur in title or body, words in order
    any_of: tuple[tuple[str, ...], ...] = ()  # of each group, one must occur
    excluded: tuple[str, ...] = ()  # none may occur
    # When the note was filed (its `created`, else its last change for a note without
    # one), whole days in `filed_zone` (the person's); with `or_changed`, a note
    # changed in those days passes too.
    created_after: date | None = None
    created_before: date | None = None
    or_changed: bool = False
    filed_zone: tzinfo | None = None
    linked: tuple[LinkedTo, ...] = ()  # each must be linked to

    def sql(self) -> tuple[list[str], dict[str, Any]]:
        """WHERE conditions on `entries e`, and their parameters."""
        conditions: list[str] = []
        params: dict[str, Any] = {}
        if self.category:
            conditions.append("e.category = :f_category")
            params["f_category"] = self.category
        tags = [normal_tag(t) for t in self.tags if t.strip()]
        if tags:
            conditions.append("e.tags @> CAST(:f_tags AS text[])")
            params["f_tags"] = tags
        if self.status:
            conditions.append("lower(e.status) = lower(:f_status)")
            params["f_status"] = self.status
        if self.modified_after is not None:
            conditions.append("e.updated >= :f_after")
            params["f_after"] = _bound(self.modified_after, next_day=False)
        if self.modified_before is not None:
            conditions.append("e.updated < :f_before")
            params["f_before"] = _bound(self.modified_before, next_day=True)
        if self.created_after is not None or self.created_before is not None:
            conditions.append(self._filed_sql(params))
        for i, title in enumerate(self.titles):
            conditions.append(f"e.title ILIKE :f_title{i}")
            params[f"f_title{i}"] = "%" + _escape_like(title.strip()) + "%"
        for i, phrase in enumerate(self.required):
            conditions.append(_REQUIRED.format(q=_PHRASE.format(name=f"f_req{i}")))
            params[f"f_req{i}"] = fold(phrase)
        for i, group in enumerate(self.any_of):
            names = [f"f_any{i}_{j}" for j in range(len(group))]
            either = " || ".join(_PHRASE.format(name=n) for n in names)
            conditions.append(_REQUIRED.format(q=f"({either})"))
            params.update({n: fold(p) for n, p in zip(names, group, strict=True)})
        for i, phrase in enumerate(self.excluded):
            conditions.append(f"NOT (e.tsv @@ {_PHRASE.format(name=f'f_not{i}')})")
            params[f"f_not{i}"] = fold(phrase)
        for i, linked in enumerate(self.linked):
            condition, linked_params = linked.sql(f"f_link{i}")
            conditions.append(condition)
            params.update(linked_params)
        return conditions, params

    def _filed_sql(self, params: dict[str, Any]) -> str:
        """Filed in the span (inclusive days, UTC bounds); or changed in it too."""
        bounds = []
        zone = self.filed_zone or UTC
        if self.created_after is not None:
            bounds.append("{col} >= :f_filed_after")
            params["f_filed_after"] = day_start(self.created_after, zone)
        if self.created_before is not None:
            bounds.append("{col} < :f_filed_before")
            params["f_filed_before"] = day_end(self.created_before, zone)
        columns = ["coalesce(e.created, e.updated)"] + (["e.updated"] if self.or_changed else [])
        either = [" AND ".join(b.format(col=c) for b in bounds) for c in columns]
        return "(" + " OR ".join(f"({part})" for part in either) + ")"

    @property
    def active(self) -> bool:
        return bool(self.sql()[0])

    def parts(self) -> list[tuple[str, Filters]]:
        """Each restriction alone, with how a reply names it ("tagged #garden"), so a
        search that found nothing can say which filter no note passes."""
        out: list[tuple[str, Filters]] = []
        if self.category:
            out.append((f"in category {self.category}", Filters(category=self.category)))
        out += [(f"tagged #{normal_tag(t)}", Filters(tags=(t,))) for t in self.tags if t.strip()]
        if self.status:
            out.append((f"with status {self.status}", Filters(status=self.status)))
        if self.modified_after is not None:
            after = Filters(modified_after=self.modified_after)
            out.append((f"changed on or after {_day(self.modified_after)}", after))
        if self.modified_before is not None:
            before = Filters(modified_before=self.modified_before)
            out.append((f"changed on or before {_day(self.modified_before)}", before))
        if self.created_after is not None or self.created_before is not None:
            filed = Filters(
                created_after=self.created_after,
                created_before=self.created_before,
                or_changed=self.or_changed,
                filed_zone=self.filed_zone,
            )
            out.append((f"{filed.filed_words()}", filed))
        out += [(f'with "{t}" in the title', Filters(titles=(t,))) for t in self.titles]
        out += [(f'containing "{p}"', Filters(required=(p,))) for p in self.required]
        for group in self.any_of:
            named = " or ".join(f'"{p}"' for p in group)
            out.append((f"containing {named}", Filters(any_of=(group,))))
        out += [(f'without "{p}"', Filters(excluded=(p,))) for p in self.excluded]
        out += [(linked.words, Filters(linked=(linked,))) for linked in self.linked]
        return out

    def filed_words(self) -> str:
        """How a reply names the span: "filed or changed 2026-11-16 to 2026-11-22"."""
        verb = "filed or changed" if self.or_changed else "filed"
        after, before = self.created_after, self.created_before
        if after is not None and after == before:
            return f"{verb} on {after.isoformat()}"
        if after is not None and before is not None:
            return f"{verb} {after.isoformat()} to {before.isoformat()}"
        if after is not None:
            return f"{verb} on or after {after.isoformat()}"
        assert before is not None
        return f"{verb} on or before {before.isoformat()}"

    def merged(self, other: Filters) -> Filters:
        """Both sets of restrictions (a search tool's arguments and its query's syntax);
        where each names one category or status, `other`'s wins; date bounds narrow."""
        combined = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("tags", "titles", "required", "any_of", "excluded", "linked"):
            combined[name] = getattr(self, name) + getattr(other, name)
        combined["category"] = other.category or self.category
        combined["status"] = other.status or self.status
        combined["modified_after"] = _latest(self.modified_after, other.modified_after)
        combined["modified_before"] = _earliest(self.modified_before, other.modified_before)
        if other.created_after is not None or other.created_before is not None:
            combined["created_after"] = other.created_after
            combined["created_before"] = other.created_before
            combined["or_changed"] = other.or_changed
            combined["filed_zone"] = other.filed_zone
        return replace(self, **combined)


def _bound(value: datetime | date, *, next_day: bool) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return day_end(value) if next_day else day_start(value)


def _latest(a: datetime | date | None, b: datetime | date | None) -> datetime | date | None:
    if a is None or b is None:
        return a if b is None else b
    return a if _bound(a, next_day=False) >= _bound(b, next_day=False) else b


def _earliest(a: datetime | date | None, b: datetime | date | None) -> datetime | date | None:
    if a is None or b is None:
        return a if b is None else b
    return a if _bound(a, next_day=True) <= _bound(b, next_day=True) else b


def _day(value: datetime | date) -> str:
    return value.date().isoformat() if isinstance(value, datetime) else value.isoformat()


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
