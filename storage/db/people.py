"""People and their identities on each platform, and the one-time codes that link
a second identity (`/link`) to a person."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, and_, delete, exists, select, update
from sqlalchemy.dialects.postgresql import Insert, insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.admission import new_code, normal_code
from storage.db.chat_tables import (
    APPROVALS,
    BUTTON_ACTIONS,
    IDENTITIES,
    LINK_CODES,
    USERS,
    Identity,
)

LINK_CODE_LENGTH = 8  # ~40 bits; with the lockout after wrong codes, not guessable


@dataclass(frozen=True, slots=True)
class Person:
    """A user as the engine sees them, resolved from one platform identity."""

    id: int
    name: str
    timezone: str | None
    digest_enabled: bool
    digest_time: str | None
    weekly_day: int
    created_at: datetime | None = None  # None: not read (a digest slot before it is not theirs)


def person_of(row: Row[Any]) -> Person:
    """The person of a row with the users table's columns."""
    m = row._mapping
    return Person(
        id=m["id"],
        name=m["name"],
        timezone=m["timezone"],
        digest_enabled=m["digest_enabled"],
        digest_time=m["digest_time"],
        weekly_day=m["weekly_day"],
        created_at=m.get("created_at"),
    )


def _identity_is(platform: str, platform_user_id: str) -> Any:
    return and_(
        IDENTITIES.c.platform == platform, IDENTITIES.c.platform_user_id == platform_user_id
    )


def new_identity(
    user_id: int,
    platform: str,
    platform_user_id: str,
    name: str,
    home_chat_id: str | None,
    now: datetime,
) -> Insert:
    """The insert of one identity of a person; nothing when it exists already."""
    return (
        insert(IDENTITIES)
        .values(
            platform=platform,
            platform_user_id=platform_user_id,
            user_id=user_id,
            display_name=name,
            home_chat_id=home_chat_id,
            created_at=now,
        )
        .on_conflict_do_nothing()
    )


class PeopleRecords:
    """People, identities and link codes."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def person_for(self, platform: str, platform_user_id: str) -> Person | None:
        stmt = (
            select(USERS)
            .join(IDENTITIES, IDENTITIES.c.user_id == USERS.c.id)
            .where(_identity_is(platform, platform_user_id))
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else person_of(row)

    async def add(
        self,
        *,
        platform: str,
        platform_user_id: str,
        name: str,
        timezone: str | None,
        home_chat_id: str | None,
        now: datetime,
    ) -> Person:
        """Create a user with one identity; a concurrent creation of the same identity wins once."""
        async with self.engine.begin() as conn:
            user_id = (
                await conn.execute(
                    insert(USERS)
                    .values(name=name, timezone=timezone, created_at=now)
                    .returning(USERS.c.id)
                )
            ).scalar_one()
            identity = new_identity(user_id, platform, platform_user_id, name, home_chat_id, now)
            inserted = (await conn.execute(identity.returning(IDENTITIES.c.user_id))).first()
            if inserted is None:
                await conn.execute(delete(USERS).where(USERS.c.id == user_id))
        person = await self.person_for(platform, platform_user_id)
        assert person is not None
        return person

    async def add_identity(
        self, user_id: int, platform: str, platform_user_id: str, name: str, now: datetime
    ) -> None:
        """One more identity of a person (kept if it exists): e.g. `api:<id>`, which the
        person's API token stands for."""
        identity = new_identity(user_id, platform, platform_user_id, name, None, now)
        async with self.engine.begin() as conn:
            await conn.execute(identity)

    async def identities_of(self, user_id: int) -> list[Identity]:
        stmt = select(IDENTITIES).where(IDENTITIES.c.user_id == user_id)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [Identity.model_validate(row._mapping) for row in rows]

    async def get(self, user_id: int) -> Person | None:
        stmt = select(USERS).where(USERS.c.id == user_id)
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else person_of(row)

    async def all(self) -> list[Person]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(USERS).order_by(USERS.c.id))).all()
        return [person_of(row) for row in rows]

    async def update(self, user_id: int, **values: Any) -> Person:
        stmt = update(USERS).where(USERS.c.id == user_id).values(**values).returning(*USERS.c)
        async with self.engine.begin() as conn:
            row = (await conn.execute(stmt)).one()
        return person_of(row)

    async def new_link_code(self, user_id: int, expires_at: datetime) -> str:
        code = new_code(LINK_CODE_LENGTH)
        async with self.engine.begin() as conn:
            await conn.execute(delete(LINK_CODES).where(LINK_CODES.c.user_id == user_id))
            await conn.execute(
                insert(LINK_CODES).values(code=code, user_id=user_id, expires_at=expires_at)
            )
        return code

    async def redeem_link_code(
        self, code: str, *, platform: str, platform_user_id: str, name: str, now: datetime
    ) -> Person | None:
        """Attach this identity to the user who asked for `code`; None if the code is bad."""
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    delete(LINK_CODES)
                    .where(
                        and_(LINK_CODES.c.code == normal_code(code), LINK_CODES.c.expires_at > now)
                    )
                    .returning(LINK_CODES.c.user_id)
                )
            ).first()
            if row is None:
                return None
            user_id = row[0]
            previous = (
                await conn.execute(
                    select(IDENTITIES.c.user_id).where(_identity_is(platform, platform_user_id))
                )
            ).scalar()
            await conn.execute(
                insert(IDENTITIES)
                .values(
                    platform=platform,
                    platform_user_id=platform_user_id,
                    user_id=user_id,
                    display_name=name,
                    created_at=now,
                )
                .on_conflict_do_update(
                    index_elements=["platform", "platform_user_id"], set_={"user_id": user_id}
                )
            )
            if previous is not None and previous != user_id:
                await conn.execute(_delete_if_unused(previous))
        return await self.person_for(platform, platform_user_id)


def _delete_if_unused(user_id: int) -> Any:
    """Delete the user made on first contact from an account that has since been linked,
    if nothing refers to it any more."""
    referrers = (IDENTITIES, APPROVALS, BUTTON_ACTIONS, LINK_CODES)
    unused = [~exists().where(t.c.user_id == USERS.c.id) for t in referrers]
    return delete(USERS).where(and_(USERS.c.id == user_id, *unused))
