"""`brainbot digest [--user PERSON] [--date DAY] [--weekly] [--send]`: print a digest
now, or send it to the person's home conversation (and keep it in the vault). The day
is read as a chat reads a due day: YYYY-MM-DD, or words ("tomorrow", "next friday")."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date, datetime
from typing import TextIO
from zoneinfo import ZoneInfo

from adapters.base import Adapter
from adapters.platform import ConfigurationError
from app.brain_data import brain_settings
from app.commands.people_named import UsageError, find_person
from app.platforms import GRACE_SECONDS, build_adapters, deliver_via
from app.runtime import Runtime
from bot.config import Settings
from bot.digest import compose_digest, with_summary
from scheduler.delivery import DigestDelivery
from storage.text.dates import OutOfRange, local_zone, read_due


def main(args: argparse.Namespace) -> int:
    """`brainbot digest`."""
    return asyncio.run(run_digest(args, brain_settings()))


def _day(text: str, now: datetime, zone: ZoneInfo) -> date:
    """The day `--date` names, in the person's zone, read as a chat reads a due day."""
    try:
        day = read_due(text, now=now, zone=zone)
    except OutOfRange as exc:
        raise UsageError(f"--date {text!r}: {exc}") from None
    if day is None:
        raise UsageError(
            f"--date {text!r} is not a day: write YYYY-MM-DD, or words such as "
            "today, tomorrow, friday or next monday"
        )
    return day


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
    runtime = await Runtime.open(settings, serving=False)  # StorageError: one line (cli.main)
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
    day = _day(args.date, now, zone) if args.date else now.astimezone(zone).date()
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
