"""`brainbot digest [--user ID] [--date YYYY-MM-DD] [--weekly] [--send]`: print a
digest now, or send it to the person's home conversation (and keep it in the vault)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date
from typing import Any, TextIO

from adapters.base import Adapter
from adapters.platform import ConfigurationError
from app.platforms import build_adapters, deliver_via
from app.runtime import Runtime
from app.serve import GRACE_SECONDS
from app.settings_check import load_settings
from bot.config import Settings
from bot.digest import compose_digest, with_summary
from notetext.dates import iso_day, local_zone
from scheduler.delivery import DigestDelivery
from storage.db import Person, Records


def _day(text: str) -> date:
    day = iso_day(text)
    if day is None:
        raise argparse.ArgumentTypeError(f"not a day written YYYY-MM-DD: {text!r}")
    return day


def register(subparsers: Any) -> None:
    digest = subparsers.add_parser(
        "digest", help="print a digest now (or send it with --send)", description=__doc__
    )
    digest.add_argument(
        "--user", help="whose digest: a user id, or platform:id (default: the only person)"
    )
    digest.add_argument(
        "--date",
        type=_day,
        help="the day, YYYY-MM-DD (default: today in the person's time zone)",
    )
    digest.add_argument("--weekly", action="store_true", help="the weekly review")
    digest.add_argument(
        "--send",
        action="store_true",
        help="send it to the person's direct chat and keep it as digests/YYYY-MM-DD.md",
    )
    digest.set_defaults(func=lambda args: asyncio.run(run_digest(args, load_settings())))


class UsageError(Exception):
    """The command line names no usable person."""


async def find_person(records: Records, wanted: str | None) -> Person | None:
    """The person `--user` names (a user id or platform:id), else the only one."""
    people = await records.people.all()
    if wanted is None:
        if len(people) > 1:
            known = ", ".join(f"{p.id} ({p.name})" for p in people)
            raise UsageError(f"several people use this brainbot; pick one with --user: {known}")
        return people[0] if people else None
    if wanted.isdigit():
        found = [p for p in people if p.id == int(wanted)]
        if found:
            return found[0]
    elif ":" in wanted:
        platform, _, platform_id = wanted.partition(":")
        person = await records.people.person_for(platform, platform_id)
        if person is not None:
            return person
    raise UsageError(f"no person {wanted!r}; known: {', '.join(str(p.id) for p in people)}")


@asynccontextmanager
async def outbound(settings: Settings) -> AsyncIterator[list[Adapter]]:
    """The configured platforms, for sending only. They are not started: a started
    adapter would compete with the running bot for Telegram updates and Slack events."""
    senders = build_adapters(settings, GRACE_SECONDS, fallback=False)
    try:
        yield senders
    finally:
        for sender in senders:
            await sender.stop()


async def run_digest(args: argparse.Namespace, settings: Settings, out: TextIO = sys.stdout) -> int:
    """Print (or send) one digest; the exit code says whether it worked."""
    runtime = await Runtime.open(settings)  # StorageError: one line (cli.main)
    try:
        return await _digest(runtime, args, out)
    except (UsageError, ConfigurationError) as exc:
        print(f"brainbot digest: {exc}", file=sys.stderr)
        return 2
    finally:
        await runtime.close()


async def _digest(runtime: Runtime, args: argparse.Namespace, out: TextIO) -> int:
    settings = runtime.settings
    person = await find_person(runtime.records, args.user)
    kind = "weekly" if args.weekly else "daily"
    zone = local_zone(person.timezone if person else None, settings.timezone)
    now = runtime.engine.clock()
    day: date = args.date or now.astimezone(zone).date()
    if not args.send:
        # The person's own vault (the owner's when nobody is named).
        store = (
            await runtime.vaults.store(await runtime.vaults.of_person(person.id, person.name))
            if person is not None
            else runtime.store
        )
        digest = await compose_digest(store, day=day, kind=kind, zone=zone, now=now)
        digest = await with_summary(runtime.llm, digest)
        print(digest.text, file=out)
        return 0
    if person is None:
        raise UsageError("nobody has talked to this brainbot yet, so there is no one to send to")
    async with outbound(settings) as senders:
        delivery = DigestDelivery(
            vaults=runtime.vaults,
            records=runtime.records,
            ledger=runtime.records.send_ledger,
            messages=runtime.records.digest_messages,
            settings=settings,
            llm=runtime.llm,
            deliver=deliver_via(senders),
            clock=runtime.engine.clock,
        )
        digest = await delivery.compose(person, day, kind)
        sent, _ = await delivery.send_now(person, digest)
        if sent.status != "sent" or sent.conversation is None:
            print(f"brainbot digest: not sent: {sent.detail}", file=sys.stderr)
            return 1
        await delivery.keep(person, digest)
    where = sent.conversation
    print(f"Sent the {kind} digest for {day} to {where.platform}:{where.chat_id}.", file=out)
    return 0
