"""`brainbot approvals`, `brainbot approve ID` and `brainbot reject ID`: decide a held
change where no chat shows its card (an MCP client over stdio, with no Slack or
Telegram). Whoever has the terminal has the data folder, so any person's approval may
be decided here; it runs as its requester's press of Approve or Reject would."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TextIO

from app.brain_data import brain_settings
from app.commands.digest import outbound
from app.commands.people_named import UsageError, find_person
from app.mcp_wiring import mcp_calls
from app.platforms import deliver_via
from app.runtime import Runtime
from bot.config import Settings


def main(args: argparse.Namespace) -> int:
    return asyncio.run(approvals(args, brain_settings(), sys.stdout))


async def approvals(args: argparse.Namespace, settings: Settings, out: TextIO) -> int:
    """List (`approvals`) or decide (`approve`, `reject`) held changes."""
    runtime = await Runtime.open(settings, serving=False)  # StorageError: one line (cli.main)
    try:
        now = runtime.engine.clock()
        if args.command == "approvals":
            person = await find_person(runtime.records, args.person) if args.person else None
            waiting = await runtime.records.approvals.pending(person.id if person else None, now)
            for approval in waiting:
                print(
                    f"{approval.id}  user {approval.user_id}  {approval.tool}  "
                    f"{approval.summary}  (until {approval.expires_at:%Y-%m-%d %H:%M})",
                    file=out,
                )
            if not waiting:
                print("Nothing waits for approval.", file=out)
            return 0
        async with outbound(settings) as senders:
            calls = mcp_calls(runtime, deliver_via(senders))
            decided, said = await calls.decide(args.approval_id, args.command == "approve")
        if not decided:
            print(f"brainbot {args.command}: {said} Nothing changed.", file=sys.stderr)
            return 2
        print(said, file=out)
        return 0
    except UsageError as exc:
        print(f"brainbot {args.command}: {exc}", file=sys.stderr)
        return 2
    finally:
        await runtime.close()
