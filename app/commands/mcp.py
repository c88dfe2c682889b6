"""`brainbot mcp`: serve the tools to an MCP client over stdio (a desktop assistant
starts it as a subprocess), and `brainbot mcp token` to make, list and revoke the
bearer tokens that say which person a client acts as.

On stdio the protocol owns standard output: the real stdout is kept for it and
file descriptor 1 is pointed at stderr, so no print, log line or child process
(the embedded Postgres) can write into the protocol stream.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import io
import logging
import os
import sys
from collections.abc import Sequence
from typing import TextIO

import anyio

from adapters.base import Adapter
from adapters.platform import ConfigurationError
from app.brain_data import brain_settings
from app.commands.digest import UsageError, find_person, outbound
from app.commands.run import configure_logs
from app.mcp_wiring import mcp_calls
from app.platforms import chat_members, configured, deliver_via, how_to_claim
from app.recovery import resume_unfinished
from app.runtime import Runtime
from bot.config import Settings
from bot.events import Conversation, Deliver, Reply, Sender
from bot.mcp_server import REFUSED, build_server
from storage import OWNER_VAULT
from storage.db import Person, TokenInfo

log = logging.getLogger(__name__)

TOKEN_ENV = "BRAINBOT_MCP_TOKEN"
OWNER = "me"  # `brainbot mcp token me`: the owner's token
NO_TOKEN = (
    f"No MCP token was given, so nothing ran. Set {TOKEN_ENV} (or --token) in the "
    "client's settings to a token from `brainbot mcp token me`."
)


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
    runtime = await Runtime.open(settings)  # StorageError: one line (cli.main)
    try:
        tokens = runtime.records.mcp_tokens
        now = runtime.engine.clock()
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


async def owner(runtime: Runtime) -> Person | None:
    """The owner: whom the configured vault (vault 1) belongs to. On a fresh install,
    the console's person (whoever has this terminal), made as their first console
    message would make them and given vault 1 now, so the token and the console share
    it (else the first stranger to write would take it, and "me" would be them). A
    closed install waiting for its claim code is claimed in a chat first: UsageError."""
    now = runtime.engine.clock()
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
    person = await runtime.engine.people.resolve(
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


def main_stdio(args: argparse.Namespace) -> int:
    token = (args.token or os.environ.get(TOKEN_ENV, "")).strip()
    settings = brain_settings()
    protocol = _take_stdout()
    configure_logs(settings, console=False)
    return asyncio.run(serve_stdio(settings, token, protocol))


async def _resume(runtime: Runtime, deliver: Deliver) -> None:
    """File what a crash cut short (an MCP capture recorded but never filed, as a chat
    message of a process that died), so a desktop client alone loses nothing."""

    async def deliver_one(conversation: Conversation, reply: Reply) -> None:
        try:
            await deliver(conversation, reply)
        except Exception as exc:  # the reply of a capture: the note is what matters
            log.info("reply to a resumed %s event not sent: %s", conversation.platform, exc)

    try:
        resumed = await resume_unfinished(runtime.engine, runtime.liveness, deliver_one)
    except Exception:
        log.exception("re-processing the events a restart cut short failed")
        return
    if resumed:
        log.info("re-processed %d event(s) a restart had cut short", resumed)


def _take_stdout() -> TextIO:
    """The real stdout for the protocol; fd 1 (and `sys.stdout`) now go to stderr."""
    sys.stdout.flush()
    kept = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return io.TextIOWrapper(kept, encoding="utf-8", write_through=True)


async def serve_stdio(settings: Settings, token: str, protocol: TextIO) -> int:
    """Serve one client on stdin / `protocol` until it closes stdin."""
    try:
        async with outbound(settings) as senders:
            # A team note needs its reader still in the team's chat: the platforms say.
            runtime = await Runtime.open(settings, chats=chat_members(senders))
            try:
                return await _serve(runtime, senders, token, protocol)
            finally:
                await runtime.close()
    except ConfigurationError as exc:
        print(f"brainbot mcp: {exc}", file=sys.stderr)
        return 2


async def _serve(runtime: Runtime, senders: Sequence[Adapter], token: str, protocol: TextIO) -> int:
    from mcp.server.stdio import stdio_server

    tokens = runtime.records.mcp_tokens
    clock = runtime.engine.clock
    # A client shows what a call answers, not what goes to stderr: with no token or
    # a wrong one the server still starts, and every call answers why nothing ran.
    refused = NO_TOKEN if not token else REFUSED
    if not token or await tokens.find(token, clock()) is None:
        print(f"brainbot mcp: {refused}", file=sys.stderr)

    async def identify(request: object) -> TokenInfo | None:
        if not token:
            return None
        return await tokens.find(token, clock())  # a revoke takes effect at once

    deliver = deliver_via(senders)
    await _resume(runtime, deliver)
    server = build_server(mcp_calls(runtime, deliver), identify, refused)
    async with stdio_server(stdout=anyio.wrap_file(protocol)) as (read, write):
        await server.run(read, write, server.create_initialization_options())
    return 0
