"""`brainbot token` and `brainbot mcp token`: make, list and revoke the bearer tokens
that say which person a client acts as (the capture API, MCP).

They open only what a token needs: the settings, the database (migrated, as `brainbot
run` would) and the records of people and vaults; not the engine, the model's client
or a vault's index, so the command answers about as fast as it connects.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

from app.brain_data import brain_settings
from app.commands.people_named import UsageError, find_person
from app.platforms import configured, how_to_claim
from app.vaults_from_settings import make_vaults
from bot.config import Settings
from bot.events import Conversation, Sender
from bot.people import People
from storage import OWNER_VAULT, Vaults, migrate
from storage.db import Database, Person, Records, TokenInfo

if TYPE_CHECKING:
    from app.runtime import Runtime

TOKEN_ENV = "BRAINBOT_MCP_TOKEN"
OWNER = "me"  # `brainbot token me`: the owner's token


@dataclass
class TokenBrain:
    """What a token command needs of a brain, and nothing it does not."""

    settings: Settings
    database: Database
    vaults: Vaults
    records: Records
    people: People

    @classmethod
    async def open(cls, settings: Settings) -> TokenBrain:
        """Connect the database (the embedded one when no DATABASE_URL; a running one
        is joined), bring its schema up to date, and read people and vaults from it."""
        database = await Database.connect(settings.database_url, settings.data_dir)
        try:
            await migrate(database.engine)
            records = Records(database.engine)
            await records.create_schema()
        except BaseException:
            await database.close()
            raise
        people = People(records, default_time=settings.digest_time, default_zone=settings.timezone)
        return cls(settings, database, make_vaults(settings, database), records, people)

    async def close(self) -> None:
        await self.vaults.close()
        await self.database.close()


def main_token(args: argparse.Namespace) -> int:
    """`brainbot token` (a new token is the output's last line) and `brainbot mcp token`."""
    settings = brain_settings()
    return asyncio.run(manage_tokens(args, settings, sys.stdout, token_last=args.token_last))


async def manage_tokens(
    args: argparse.Namespace, settings: Settings, out: TextIO, *, token_last: bool = False
) -> int:
    """Make, list or revoke tokens; `token_last`: a new token is the output's last line
    (for scripts: `brainbot token me | tail -1`), as `brainbot token` prints it; else
    as `brainbot mcp token` does, the name errors give."""
    typed = "brainbot token" if token_last else "brainbot mcp token"
    runtime = await TokenBrain.open(settings)  # StorageError: one line (cli.main)
    try:
        tokens = runtime.records.mcp_tokens
        now = datetime.now(UTC)
        if args.revoke:
            if not await tokens.revoke(args.revoke, now):
                print(f"{typed}: no live token {args.revoke!r}", file=sys.stderr)
                return 2
            print(f"Revoked token {args.revoke}; clients using it are refused from now.", file=out)
            return 0
        if args.list:
            person = await find_person(runtime.records, args.person) if args.person else None
            listed = await tokens.list(person.id if person else None)
            names = {p.id: p.name for p in await runtime.records.people.all()}
            for info in listed:
                print(_describe(info, names.get(info.user_id, "nobody now")), file=out)
            if not listed:
                print("No MCP tokens.", file=out)
            return 0
        if args.owner or args.person == OWNER:
            person = await owner(runtime)
        elif not args.person:
            raise UsageError(
                f"name the person the token acts as: `{OWNER}`, a user id or platform:id"
            )
        else:
            person = await find_person(runtime.records, args.person)
        if person is None:
            raise UsageError("nobody uses this brainbot yet")
        info, token = await tokens.create(person.id, args.label, now)
        if token_last:
            print(
                f"Token {info.id} for {person.name} (user {person.id}), for the capture API "
                f"(`Authorization: Bearer ...` at /api/v1) and MCP (/mcp, or {TOKEN_ENV} for "
                "`brainbot mcp`). It is shown only now, on the next line:",
                file=out,
            )
            print(token, file=out)
            return 0
        print(
            f"Token {info.id} for {person.name} (user {person.id}). It is shown only now:\n"
            f"{token}\nUse it as {TOKEN_ENV} for `brainbot mcp`, or as "
            "`Authorization: Bearer ...` at /mcp and /api/v1.",
            file=out,
        )
        return 0
    except UsageError as exc:
        asked_owner = args.owner or args.person == OWNER
        hint = "" if asked_owner else f" (`{typed} {OWNER}` makes the owner's)"
        print(f"{typed}: {exc}{hint}", file=sys.stderr)
        return 2
    finally:
        await runtime.close()


async def owner(runtime: TokenBrain | Runtime) -> Person | None:
    """The owner: whom the configured vault (vault 1) belongs to. On a fresh install,
    the console's person (whoever has this terminal), made as their first console
    message would make them and given vault 1 now, so the token and the console share
    it (else the first stranger to write would take it, and "me" would be them). A
    closed install waiting for its claim code is claimed in a chat first: UsageError."""
    now = datetime.now(UTC)
    vault = await runtime.vaults.get(OWNER_VAULT)
    if vault is not None and vault.user_id is not None:
        return await runtime.records.people.get(vault.user_id)
    settings = runtime.settings
    if not settings.allowed_users and configured(settings):
        code = await runtime.records.admission.claim_code(now)
        if code is not None:
            raise UsageError(
                f"nobody has claimed this brainbot yet: {how_to_claim(code)} to become its "
                "owner, then make the token"
            )
    user = getpass.getuser()
    person = await runtime.people.resolve(
        Sender("console", user, user), Conversation("console", user), now
    )
    if person is None:
        return None
    mine = await runtime.vaults.of_person(person.id, person.name, now)
    if mine.id != OWNER_VAULT:
        raise UsageError(
            f"the owner's vault ({settings.vault_dir}) is not the console's: {person.name} at "
            f"this terminal has the vault {mine.name}; name the person the token is for"
        )
    return person


def _describe(info: TokenInfo, name: str) -> str:
    state = f"revoked {info.revoked_at:%Y-%m-%d %H:%M}" if info.revoked_at else "live"
    used = f"last used {info.last_used_at:%Y-%m-%d %H:%M}" if info.last_used_at else "never used"
    label = f" {info.label!r}" if info.label else ""
    return (
        f"{info.id}  {name} (user {info.user_id}){label}  "
        f"made {info.created_at:%Y-%m-%d}  {used}  {state}"
    )
