"""What the MCP tests share: making a token with the real command, and reading the
approval card the fake Slack received."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from storage.db.connection import Database
from storage.db.records import Records
from storage.migrations import migrate
from tests.bot.helpers import notes_by_vault
from tests.fakes.slack_api import FakeSlack, Posted
from tests.in_process import brainbot_in_thread
from tests.production.process import ROOT


async def cli(env: Mapping[str, str], *args: str) -> tuple[int, str, str]:
    """`brainbot ARGS` run in this process (tests.in_process), not `chat` or `run`:
    exit code, stdout, stderr."""
    done = await brainbot_in_thread(args, env, Path.cwd())
    return done.returncode, done.stdout, done.stderr


async def cli_process(env: Mapping[str, str], *args: str) -> tuple[int, str, str]:
    """`python -m app.cli ARGS`, a real process: exit code, stdout, stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli",
        *args,
        env={**env, "PYTHONPATH": str(ROOT)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def make_brain(env: Mapping[str, str]) -> None:
    """A brain where `env` points, made as a person's first `brainbot chat` makes it
    (nothing typed): `brainbot mcp` and its tokens read a brain and never make one."""
    vault = Path(env.get("BRAINBOT_VAULT_DIR") or Path(env["BRAINBOT_DATA_DIR"]) / "vault")
    if await asyncio.to_thread(vault.is_dir):
        return
    code, out, err = await cli_process(env, "chat")  # its Ctrl-C handler wants a main thread
    assert code == 0 and "making a new brain" in out + err, (code, out, err)


async def make_token(env: Mapping[str, str], person: str) -> str:
    """A new token for `person` from `brainbot mcp token`, as a person would copy it
    once their brain is there."""
    await make_brain(env)
    code, out, err = await cli(env, "mcp", "token", person, "--label", "laptop")
    assert code == 0, err
    return next(line for line in out.splitlines() if line.startswith("bbmcp_"))


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def card_with(slack: FakeSlack, approval_id: str, within: float = 20.0) -> Posted:
    """The message in the fake Slack whose Approve button carries `approval_id`."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        for posted in slack.messages.values():
            if any(b.get("value") == approval_id for b in buttons(posted)):
                return posted
        assert asyncio.get_running_loop().time() < deadline, "no approval card reached Slack"
        await asyncio.sleep(0.05)


def buttons(posted: Posted) -> list[dict[str, Any]]:
    return [
        element
        for block in posted.blocks
        if block.get("type") == "actions"
        for element in block.get("elements", [])
    ]


def vault_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.md") if ".git" not in p.parts)


async def add_people(env: Mapping[str, str], tmp_path: Path) -> None:
    """Alice, who talks to the bot in a Slack DM, Cleo in Telegram, and Bo, who has no
    chat with it, in a brain made as a first `brainbot chat` makes it."""
    await make_brain(env)
    database = await Database.connect(env["DATABASE_URL"], tmp_path / "data")
    try:
        await migrate(database.engine)
        records = Records(database.engine)
        await records.create_schema()
        now = datetime.now(UTC)
        for platform, user, name, home in (
            ("slack", "U0ALICE", "Alice", "D0ALICE"),
            ("telegram", "77", "Bo", None),
            ("telegram", "42", "Cleo", "42"),
        ):
            await records.people.add(
                platform=platform,
                platform_user_id=user,
                name=name,
                timezone=None,
                home_chat_id=home,
                now=now,
            )
    finally:
        await database.close()


@asynccontextmanager
async def stdio_session(
    env: Mapping[str, str], token: str, errors: Path
) -> AsyncIterator[ClientSession]:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "app.cli", "mcp"],
        env={**env, "PYTHONPATH": str(ROOT), "BRAINBOT_MCP_TOKEN": token},
        cwd=errors.parent,
    )
    with errors.open("a") as errlog:
        async with (
            stdio_client(server, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def vault_holding(data: Path, path: str) -> Path:
    (name,) = [name for name, notes in notes_by_vault(data).items() if path in notes]
    return next(p for p in [data / "vault", *(data / "vaults").glob("*")] if p.name == name)
