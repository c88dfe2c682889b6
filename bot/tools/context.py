"""What a tool is given and what it gives back: the context of the event it runs for
(which vault, who, where, when), its result, and the error a model should hear."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from bot.config import Settings
from bot.events import Attachment, Button, CaptureRequest, Conversation
from bot.people import People
from storage import Author, Entry, Store, VaultInfo, Vaults
from storage.db import HistoryItem, Person, Records
from storage.text.dates import When, find_when, local_zone


class ToolError(Exception):
    """A domain problem the model should hear about (bad path, unknown entry...)."""


@dataclass
class ArrivedFiles:
    """The files a message brought: kept in the vault with the first note the message
    files, in that note's commit, or on their own after the turn when it files none."""

    waiting: list[Attachment]
    kept: list[tuple[Attachment, str]] = field(default_factory=list)  # each with its path
    note: str | None = None  # the note they were kept with

    def take(self) -> list[Attachment]:
        """The files still waiting, now the caller's to keep (`kept_as`) or `give_back`
        (taken at once: calls of one turn run side by side, and one keeps them)."""
        taken, self.waiting = self.waiting, []
        return taken

    def give_back(self, files: list[Attachment]) -> None:
        self.waiting = files + self.waiting

    def kept_as(self, files: Sequence[Attachment], paths: Sequence[str], note: str | None) -> None:
        self.kept += zip(files, paths, strict=True)
        if files and note is not None:
            self.note = note

    def readable(self) -> bool:
        """Whether a photo or a document came: its text is read into the note."""
        files = [*self.waiting, *(f for f, _ in self.kept)]
        return any(f.kind in ("photo", "document") for f in files)


class CapturePath(Protocol):
    """The one capture path (bot.capture), as the `capture` tool reaches it: a model's
    call is a typed request decided there like every door's, then filed by the tool."""

    async def for_tool(self, ctx: ToolContext, request: CaptureRequest) -> ToolResult:
        """File `request` (or refuse it: ToolError), as the `capture` tool's result."""
        ...


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a tool may use: storage, who asked, where, and when."""

    store: Store
    records: Records
    settings: Settings
    person: Person
    author: Author
    conversation: Conversation
    source: Mapping[str, str]
    now: datetime
    expected_hash: str | None = None  # set when an approved call re-runs
    files: ArrivedFiles | None = None  # the files that came with the message
    event_key: str = ""  # "platform:event_id" of the event being handled, for the tool log
    people: People | None = None  # settings changes go through People (cache, listeners)
    vault: VaultInfo | None = None  # the vault `store` holds: the person's own, or a team's
    vaults: Vaults | None = None  # every vault (a DM's search also reads the person's teams')
    links: tuple[str, ...] = ()  # the links in the person's message, first one first
    # The notes this event filed (capture appends to it): what is read after the reply
    # (bot.enrich) goes into the first.
    filed: list[Entry] | None = None
    # The person's message when it asks something: a date in it wins over a date a
    # model put in a search (bot.tools.search_span), as one does in a capture.
    said: str = ""
    # `/search`: the query is words and the search syntax only, its weekdays and
    # "yesterday" words to find, as on the command line and the API.
    syntax_only: bool = False
    # Where a `capture` call goes to be decided (set for every event the engine handles);
    # None: the call files at once (the capture path's own call, a button, a job).
    capturing: CapturePath | None = None
    # What this event has read already: what a text says about time is asked by the
    # turn, the capture's arguments and its tool alike, so it is read once (shared by
    # the copies `replace` makes; keyed by what it depends on). The person's zone is
    # looked up once for the process (storage.text.dates.local_zone).
    whens: dict[tuple[str, datetime, str | None], When] = field(
        default_factory=dict, repr=False, compare=False
    )
    # The turn's history when the engine keeps it with the event's finish (one statement,
    # one commit: storage.db.EventRecords.finish); None: written at once.
    history_later: list[HistoryItem] | None = None
    # The tools a vault declares itself (bot.custom_tools), by vault id and name: its
    # file is looked at once per event (the turn, its mending and each call ask). The
    # values are bot.tools.registry's ToolSpec, which is declared on top of this module.
    declared: dict[tuple[int, str], Mapping[str, Any]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @property
    def is_team(self) -> bool:
        """Whether this acts on a team vault (any member may approve changes there)."""
        return self.vault is not None and self.vault.is_team

    @property
    def zone(self) -> ZoneInfo:
        """The person's time zone (BRAINBOT_TIMEZONE when they have none)."""
        return local_zone(self.person.timezone, self.settings.timezone)

    def when(self, text: str) -> When:
        """What `text` says about time (storage.text.dates.find_when), in the person's
        zone, relative to this event's `now`, at their reminder time by default."""
        key = (text, self.now, self.person.timezone)
        found = self.whens.get(key)
        if found is None:
            default = self.settings.reminder_time
            found = find_when(text, now=self.now, zone=self.zone, default_time=default)
            self.whens[key] = found
        return found

    def time_of(self, text: str) -> tuple[ZoneInfo, When]:
        """The person's zone (`zone`) and what `text` says about time in it (`when`),
        for a caller that needs both."""
        return self.zone, self.when(text)

    @property
    def vault_zone(self) -> ZoneInfo:
        """The zone of this vault's reminders: the person's, or for a team vault (whose
        members may live anywhere) the install's."""
        return self.settings.timezone if self.is_team else self.zone

    async def in_vault(self, vault_id: int) -> ToolContext | None:
        """This context acting on vault `vault_id` (a pressed button carries the vault its
        change is for), or None when the person may not use it: it is neither theirs nor
        a team's they belong to."""
        if self.store.vault_id == vault_id:
            return self
        if self.vaults is None or not await self.vaults.may_use(vault_id, self.person.id):
            return None
        vault = await self.vaults.get(vault_id)
        if vault is None:
            return None
        return replace(self, store=await self.vaults.store(vault), vault=vault)


@dataclass(frozen=True, slots=True)
class ReadNote:
    """A note a reading tool showed (a search hit, a note opened, a listing's line):
    what an answer may cite as its source, and nothing else may be."""

    path: str  # as the result named it: a team note's is `team:path`
    title: str
    passage: str = ""  # the stretch that matched, its words marked `**` (search hits)
    matched: str = ""  # "words" | "meaning" | "both"; "" when listed or opened, not searched
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolResult:
    """`data` goes back to the model as JSON; `text` and `buttons` can form the reply directly."""

    data: dict[str, Any]
    text: str
    buttons: tuple[Button, ...] = ()
    entry_path: str | None = None  # the entry this call wrote
    commit: str | None = None  # the vault commit of a change an Undo button can revert
    read: tuple[ReadNote, ...] = ()  # the notes a reading tool showed, best first


@dataclass(frozen=True, slots=True)
class Proposal:
    """What an approval shows before a risky call runs."""

    summary: str
    preview: str
    content_hash: str | None
    # The call's arguments as the approval must run them, when the preview resolved
    # something the request left open (undo's "the latest change" becomes one commit).
    pinned: dict[str, Any] | None = None
