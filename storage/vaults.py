"""Every vault of a deployment: whose it is, where it lives, and its Store, opened
when first needed.

A person's notes are theirs: each person has a vault (its own git repository and
its own slice of the index), and a team vault is shared by the people who write in
its channel. The configured vault (`BRAINBOT_VAULT_DIR`, vault 1) is the owner's,
the first person's, so an install from before private vaults keeps its notes
where they were. See storage.db.vault_tables.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import and_, delete, func, select, text, update
from sqlalchemy.dialects.postgresql import insert

from storage.db.connection import Database
from storage.db.vault_tables import OWNER_VAULT, VAULT_MEMBERS, VAULTS, VaultInfo, vault_info
from storage.index.embeddings import Closable, Embedder
from storage.index.indexer import WriteListener
from storage.store import Store

__all__ = ["MemberCheck", "VaultInfo", "VaultSettings", "Vaults", "folder_name"]

# Whether a recorded member of a team vault may use it now, given when their chat last
# confirmed them (bot.people.teams asks the platform again when that is too long ago).
MemberCheck = Callable[[VaultInfo, int, datetime], Awaitable[bool]]

KEEP_OPEN = 256  # stores kept open (a git repository and its index handle each)
_NAME = re.compile(r"[^a-z0-9]+")


def folder_name(text: str) -> str:
    """A vault's folder name from a person's or team's name: ASCII, lower case."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _NAME.sub("-", ascii_text.lower()).strip("-")[:40] or "vault"


@dataclass(frozen=True, slots=True)
class VaultSettings:
    """How every vault is opened."""

    data_dir: Path
    owner_dir: Path  # vault 1's folder (BRAINBOT_VAULT_DIR)
    categories: Sequence[str]
    max_bytes: int  # a note's size limit (BRAINBOT_MAX_NOTE_BYTES: the one default)
    max_attachment_bytes: int  # BRAINBOT_MAX_ATTACHMENT_BYTES


class Vaults:
    """The registry of vaults (in Postgres) and their open Stores (least recently used
    ones are closed past KEEP_OPEN)."""

    def __init__(
        self,
        database: Database,
        embedder: Embedder | None,
        settings: VaultSettings,
        *,
        keep_open: int = KEEP_OPEN,
        reembed: bool = False,
        embed_in_background: bool = True,
    ) -> None:
        self.database = database
        self.embedder = embedder
        self.settings = settings
        self.keep_open = keep_open
        self.reembed = reembed  # the embedder may replace vectors another one made
        self.embed_in_background = embed_in_background  # see Store.open
        # Called with each vault as its store opens (the backup starts its pusher).
        self.on_open: list[Callable[[VaultInfo, Store], Awaitable[None]]] = []
        # Hears what each vault's index writes leave out (storage.index.Index.on_written).
        self.on_written: WriteListener | None = None
        # Asked before a team member's access is granted; None: being recorded is enough.
        self.member_check: MemberCheck | None = None
        self._open: OrderedDict[int, Store] = OrderedDict()
        # A vault's row never changes once made: person and team vaults are looked up once.
        self._known: dict[int | str, VaultInfo] = {}
        self._opening: dict[int, asyncio.Future[Store]] = {}
        self._lock = asyncio.Lock()

    # ---- which vault --------------------------------------------------------------

    async def of_person(self, user_id: int, name: str, now: datetime | None = None) -> VaultInfo:
        """The person's own vault, made on first use: vault 1 if it has no owner yet
        (the install's first person), else a new one named after them."""
        known = self._known.get(user_id)
        if known is not None:
            return known
        vault = await self._person_vault(user_id, name, now or datetime.now(UTC))
        self._known[user_id] = vault
        return vault

    async def _person_vault(self, user_id: int, name: str, now: datetime) -> VaultInfo:
        async with self.database.engine.begin() as conn:
            row = (await conn.execute(select(VAULTS).where(VAULTS.c.user_id == user_id))).first()
            if row is not None:
                return vault_info(row)
            claimed = (
                await conn.execute(
                    update(VAULTS)
                    .where(and_(VAULTS.c.id == OWNER_VAULT, VAULTS.c.user_id.is_(None)))
                    .values(user_id=user_id)
                    .returning(*VAULTS.c)
                )
            ).first()
            if claimed is not None:
                return vault_info(claimed)
            base = f"{folder_name(name)}-{user_id}"
            row = (
                await conn.execute(
                    insert(VAULTS)
                    .values(name=base, kind="person", user_id=user_id, created_at=now)
                    .on_conflict_do_nothing()
                    .returning(*VAULTS.c)
                )
            ).first()
        if row is None:  # made meanwhile by another process
            return await self._person_vault(user_id, name, now)
        return vault_info(row)

    async def team(self, name: str, now: datetime | None = None) -> VaultInfo:
        """The team vault called `name` (BRAINBOT_TEAM_VAULTS), made on first use."""
        name = folder_name(name)
        known = self._known.get(name)
        if known is not None:
            return known
        async with self.database.engine.begin() as conn:
            await conn.execute(
                insert(VAULTS)
                .values(name=name, kind="team", created_at=now or datetime.now(UTC))
                .on_conflict_do_nothing()
            )
            row = (await conn.execute(select(VAULTS).where(VAULTS.c.name == name))).one()
        info = vault_info(row)
        if not info.is_team:
            raise ValueError(f"the vault {name!r} is a person's vault, not a team's")
        self._known[name] = info
        return info

    async def join(self, vault: VaultInfo, user_id: int, now: datetime | None = None) -> None:
        """Record that `user_id` belongs to the team of `vault`: they wrote in its chat
        (at `now`), which confirms them as a member as well as any platform check."""
        now = now or datetime.now(UTC)
        stmt = insert(VAULT_MEMBERS).values(
            vault_id=vault.id, user_id=user_id, joined_at=now, checked_at=now
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=[VAULT_MEMBERS.c.vault_id, VAULT_MEMBERS.c.user_id],
            set_={"checked_at": func.greatest(VAULT_MEMBERS.c.checked_at, now)},
        )
        async with self.database.engine.begin() as conn:
            await conn.execute(stmt)

    async def confirm(self, vault_id: int, user_ids: Collection[int], now: datetime) -> None:
        """The team's chat still has these members (the platform said so at `now`)."""
        if not user_ids:
            return
        async with self.database.engine.begin() as conn:
            await conn.execute(
                update(VAULT_MEMBERS)
                .where(
                    and_(
                        VAULT_MEMBERS.c.vault_id == vault_id,
                        VAULT_MEMBERS.c.user_id.in_(list(user_ids)),
                    )
                )
                .values(checked_at=func.greatest(VAULT_MEMBERS.c.checked_at, now))
            )

    async def leave(self, vault_id: int, user_id: int, last_checked: datetime) -> bool:
        """Remove a member the team's chat no longer has; False when they were confirmed
        after `last_checked` meanwhile (a message there proves them again)."""
        async with self.database.engine.begin() as conn:
            gone = await conn.execute(
                delete(VAULT_MEMBERS).where(
                    and_(
                        VAULT_MEMBERS.c.vault_id == vault_id,
                        VAULT_MEMBERS.c.user_id == user_id,
                        VAULT_MEMBERS.c.checked_at <= last_checked,
                    )
                )
            )
        return bool(gone.rowcount)

    async def checked_before(self, moment: datetime) -> list[tuple[VaultInfo, int, datetime]]:
        """(team vault, member, when last confirmed) of every member last confirmed
        before `moment`, by vault."""
        stmt = (
            select(VAULTS, VAULT_MEMBERS.c.user_id.label("member"), VAULT_MEMBERS.c.checked_at)
            .join(VAULT_MEMBERS, VAULT_MEMBERS.c.vault_id == VAULTS.c.id)
            .where(VAULT_MEMBERS.c.checked_at < moment)
            .order_by(VAULTS.c.id, VAULT_MEMBERS.c.user_id)
        )
        async with self.database.engine.connect() as conn:
            rows = await conn.execute(stmt)
            return [(vault_info(r), int(r.member), r.checked_at) for r in rows]

    async def may_use(self, vault_id: int, user_id: int) -> bool:
        """Whether the person may read and change the vault: theirs, or their team's
        (recorded as a member, and still in its chat: see `member_check`)."""
        async with self.database.engine.connect() as conn:
            row = (await conn.execute(select(VAULTS).where(VAULTS.c.id == vault_id))).first()
            if row is None:
                return False
            vault = vault_info(row)
            if not vault.is_team:
                return bool(vault.user_id == user_id)
            checked_at = await conn.scalar(
                select(VAULT_MEMBERS.c.checked_at).where(
                    and_(VAULT_MEMBERS.c.vault_id == vault_id, VAULT_MEMBERS.c.user_id == user_id)
                )
            )
        if checked_at is None:
            return False
        return self.member_check is None or await self.member_check(vault, user_id, checked_at)

    async def first_member(self, vault_id: int) -> int | None:
        """The member who joined the team vault first (None: it has none yet)."""
        stmt = (
            select(VAULT_MEMBERS.c.user_id)
            .where(VAULT_MEMBERS.c.vault_id == vault_id)
            .order_by(VAULT_MEMBERS.c.joined_at)
            .limit(1)
        )
        async with self.database.engine.connect() as conn:
            member = (await conn.execute(stmt)).scalar()
        return None if member is None else int(member)

    async def teams_of(self, user_id: int) -> list[VaultInfo]:
        """The team vaults the person belongs to (see `may_use`), by name."""
        stmt = (
            select(VAULTS, VAULT_MEMBERS.c.checked_at)
            .join(VAULT_MEMBERS, VAULT_MEMBERS.c.vault_id == VAULTS.c.id)
            .where(VAULT_MEMBERS.c.user_id == user_id)
            .order_by(VAULTS.c.name)
        )
        async with self.database.engine.connect() as conn:
            rows = [(vault_info(r), r.checked_at) for r in await conn.execute(stmt)]
        check = self.member_check
        return [v for v, at in rows if check is None or await check(v, user_id, at)]

    async def get(self, vault_id: int) -> VaultInfo | None:
        async with self.database.engine.connect() as conn:
            row = (await conn.execute(select(VAULTS).where(VAULTS.c.id == vault_id))).first()
        return None if row is None else vault_info(row)

    async def named(self, name: str) -> VaultInfo | None:
        async with self.database.engine.connect() as conn:
            row = (await conn.execute(select(VAULTS).where(VAULTS.c.name == name))).first()
        return None if row is None else vault_info(row)

    async def note_counts(self) -> dict[int, int]:
        """How many notes each vault's index holds, without opening the vaults."""
        async with self.database.engine.connect() as conn:
            rows = await conn.execute(text("SELECT vault_id, doc_count FROM index_meta"))
            return {int(r.vault_id): int(r.doc_count) for r in rows}

    async def all(self) -> list[VaultInfo]:
        async with self.database.engine.connect() as conn:
            rows = await conn.execute(select(VAULTS).order_by(VAULTS.c.id))
            return [vault_info(r) for r in rows]

    # ---- stores -------------------------------------------------------------------

    def root(self, vault: VaultInfo) -> Path:
        """Where the vault's files live."""
        if vault.id == OWNER_VAULT:
            return self.settings.owner_dir
        return self.settings.data_dir / "vaults" / vault.name

    async def store(self, vault: VaultInfo | int) -> Store:
        """The vault's Store, opened (and brought up to date) on first use."""
        vault_id = vault if isinstance(vault, int) else vault.id
        async with self._lock:
            store = self._open.get(vault_id)
            if store is not None:
                self._open.move_to_end(vault_id)
                return store
            pending = self._opening.get(vault_id)
            if pending is None:
                pending = asyncio.ensure_future(self._open_store(vault))
                self._opening[vault_id] = pending
        try:
            store = await asyncio.shield(pending)
        finally:
            self._opening.pop(vault_id, None)
        evicted: list[Store] = []
        async with self._lock:
            self._open[vault_id] = store
            self._open.move_to_end(vault_id)
            while len(self._open) > self.keep_open:
                evicted.append(self._open.popitem(last=False)[1])
        for old in evicted:
            # Its embedding goes on when it opens again (a Store holds nothing else).
            await old.index.stop_embedding()
        return store

    async def _open_store(self, vault: VaultInfo | int) -> Store:
        info = vault if isinstance(vault, VaultInfo) else await self.get(vault)
        if info is None:
            raise LookupError(f"there is no vault {vault}")
        s = self.settings
        store = await Store.open(
            vault_dir=self.root(info),
            categories=s.categories,
            database=self.database,
            embedder=self.embedder,
            max_bytes=s.max_bytes,
            max_attachment_bytes=s.max_attachment_bytes,
            reembed=self.reembed,
            vault_id=info.id,
            embed_in_background=self.embed_in_background,
            on_written=self.on_written,
        )
        for listener in self.on_open:
            await listener(info, store)
        return store

    def opened(self) -> list[Store]:
        """The stores open now (the sync loop keeps them up to date)."""
        return list(self._open.values())

    async def close(self) -> None:
        """Stop each open store's background embedding, then release the embedder's
        client (shared by every store)."""
        for store in self._open.values():
            await store.index.stop_embedding()
        self._open.clear()
        if isinstance(self.embedder, Closable):
            await self.embedder.close()
