"""What the MCP tests share: making a token with the real command, and reading the
approval card the fake Slack received."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcp import types

from tests.fakes.slack_api import FakeSlack, Posted
from tests.production.process import ROOT


async def cli(env: Mapping[str, str], *args: str) -> tuple[int, str, str]:
    """`python -m bot.app.cli ARGS`: exit code, stdout, stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.app.cli",
        *args,
        env={**env, "PYTHONPATH": str(ROOT)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def make_token(env: Mapping[str, str], person: str) -> str:
    """A new token for `person` from `brainbot mcp token`, as a person would copy it."""
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
