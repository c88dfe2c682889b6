"""Several `brainbot run` processes on one database and one data folder, Slack in
HTTP mode, events spread over them round-robin: 200 people, 50 conversations at
once x 20 messages, every 10th delivered a second time (to the other process).

Prints throughput for 1 process and for 2, and fails (exit 1) when a message is
missing, doubled or filed in another person's vault. No model: the command router
files each message, so the figures are the engine's, git's and Postgres' own.

Run: `python -m bench.processes [--people N] [--conversations N] [--messages N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import psycopg

from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.postgres import start_postgres
from tests.fakes.slack_api import FakeSlack
from tests.fakes.telegram_api import FakeTelegram
from tests.production.conftest import Fakes
from tests.production.fleet import FleetRun, run_fleet


async def _one_run(root: Path, uri: str, processes: int, args: argparse.Namespace) -> FleetRun:
    database = f"fleet{processes}"
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {database}")
    url = uri.replace("/postgres?", f"/{database}?")
    fakes = Fakes(FakeSlack(), FakeTelegram(), FakeOpenAI())
    await fakes.slack.start()
    try:
        work = root / f"p{processes}"
        work.mkdir()
        return await run_fleet(
            work,
            url,
            fakes,
            processes=processes,
            people=args.people,
            conversations=args.conversations,
            per_conversation=args.messages,
        )
    finally:
        await fakes.slack.close()


async def run(args: argparse.Namespace) -> int:
    root = Path(tempfile.mkdtemp(prefix="brainbot-fleet-"))
    server, uri = start_postgres(root / "pg")
    try:
        runs = {n: await _one_run(root, uri, n, args) for n in (1, 2)}
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"{args.people} people, {args.conversations} conversations x {args.messages} messages,"
        " every 10th delivered twice (to the next process)"
    )
    print(f"{'processes':>9}  {'messages':>8}  {'deliveries':>10}  {'seconds':>7}  {'msg/s':>6}")
    for n, result in runs.items():
        print(
            f"{n:>9}  {result.messages:>8}  {result.deliveries:>10}  {result.seconds:>7.1f}"
            f"  {result.per_second:>6.1f}"
        )
    print(f"2 processes vs 1: {runs[2].per_second / runs[1].per_second:.2f}x")
    problems = [p for result in runs.values() for p in result.misfiled]
    for problem in problems[:20]:
        print("PROBLEM:", problem)
    return 1 if problems else 0


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.processes")
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--conversations", type=int, default=50)
    parser.add_argument("--messages", type=int, default=20, help="per conversation")
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
