"""Several `brainbot run` processes on one database and one data folder (a shared
volume), Slack in HTTP mode, events spread over them round-robin the way a load
balancer would; a share of the events is delivered twice (Slack's retries), the
second time to another process. Used by a test and by `bench.processes`."""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from storage.db.connection import async_url
from tests.bot.helpers import notes
from tests.fakes.slack_payloads import dm_event, event_body, post_signed
from tests.production.conftest import Fakes
from tests.production.process import Brainbot


@dataclass(frozen=True, slots=True)
class FleetRun:
    messages: int  # distinct messages sent
    deliveries: int  # requests made, duplicates included
    seconds: float  # first send until the last reply
    misfiled: list[str]  # notes not in their sender's vault, or missing, or doubled

    @property
    def per_second(self) -> float:
        return self.messages / self.seconds


def _text(person: int, number: int) -> str:
    return f"note {number} of person {person:03d}"


async def run_fleet(
    tmp_path: Path,
    database_url: str,
    fakes: Fakes,
    *,
    processes: int,
    people: int,
    conversations: int,
    per_conversation: int,
    duplicate_every: int = 10,
) -> FleetRun:
    """`conversations` senders at once, each sending `per_conversation` messages in
    turn, from `people` people; every `duplicate_every`-th is delivered twice."""
    env = fakes.env(tmp_path, database_url, slack="http", telegram=False, BRAINBOT_RATE_LIMIT="0")
    for key in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "BRAINBOT_HTTP_PORT"):
        env.pop(key, None)  # no model: the command router files plain text (the engine's speed)
    bots = [Brainbot(tmp_path, env, name=f"bot{n}") for n in range(processes)]
    for bot in bots:
        await bot.start()
    try:
        await asyncio.gather(*(bot.wait_ready() for bot in bots))
        turn = itertools.count()
        sent: list[tuple[int, str]] = []
        before = len(fakes.slack.ok_calls("chat.postMessage"))

        async def deliver(session: aiohttp.ClientSession, body: tuple[str, str]) -> None:
            bot = bots[next(turn) % len(bots)]
            status, _ = await post_signed(session, f"{bot.url}/slack/events", body)
            assert status == 200

        async def conversation(session: aiohttp.ClientSession, c: int) -> None:
            for m in range(per_conversation):
                n = c * per_conversation + m
                person = n % people
                words = _text(person, n)
                body = event_body(dm_event(words, user=f"U{person:03d}", channel=f"D{person:03d}"))
                sent.append((person, words))
                await deliver(session, body)
                if n % duplicate_every == 0:
                    await deliver(session, body)  # the retry reaches the next process

        started = time.perf_counter()
        async with aiohttp.ClientSession() as session:
            await asyncio.gather(*(conversation(session, c) for c in range(conversations)))
        total = conversations * per_conversation
        await fakes.slack.wait_for("chat.postMessage", before + total, within=600)
        seconds = time.perf_counter() - started
        await asyncio.sleep(1.0)  # a doubled message would have been answered by now
        replies = len(fakes.slack.ok_calls("chat.postMessage")) - before
        misfiled = [] if replies == total else [f"{replies} replies to {total} messages"]
        misfiled += await _check_vaults(tmp_path / "data", database_url, sent)
        deliveries = total + len(range(0, total, duplicate_every))
        return FleetRun(total, deliveries, seconds, misfiled)
    finally:
        for bot in bots:
            await bot.stop()


async def _check_vaults(data: Path, database_url: str, sent: list[tuple[int, str]]) -> list[str]:
    """Each message is one note, in its sender's own vault."""
    engine = create_async_engine(async_url(database_url))
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT i.platform_user_id, v.id, v.name FROM identities i"
                    " JOIN vaults v ON v.user_id = i.user_id WHERE i.platform = 'slack'"
                )
            )
            folder = {
                r.platform_user_id: data / "vault" if r.id == 1 else data / "vaults" / r.name
                for r in rows
            }
    finally:
        await engine.dispose()
    problems: list[str] = []
    for person in sorted({p for p, _ in sent}):
        user = f"U{person:03d}"
        if user not in folder:
            problems.append(f"{user} has no vault")
            continue
        names = [n.rpartition("/")[2] for n in notes(folder[user])]
        wanted = sorted(f"{w.replace(' ', '-')}.md" for p, w in sent if p == person)
        if sorted(names) != wanted:
            problems.append(f"{user}: {len(names)} notes, wanted {len(wanted)}")
    return problems
