"""`brainbot mcp` as a desktop assistant meets it: calls that leave the options out,
arguments sent as text (the MCP Inspector's CLI sends every one as a string), and the
owner's token made without knowing how the console names them."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
import yaml

from bot.mcp_server.server import REFUSED
from tests.bot.mcp.support import (
    add_people,
    cli,
    make_brain,
    make_token,
    stdio_session,
    text_of,
    vault_holding,
)
from tests.production.conftest import Fakes
from tests.production.process import ROOT

pytestmark = pytest.mark.slow  # starts brainbot processes

# The Inspector's command-line half: `mcp-inspector-cli --cli` is the command that
# `npx @modelcontextprotocol/inspector --cli` runs, without the web client and its
# server (a clean clone's first run downloaded 238 MB for them, not 64 MB: ~6 s).
INSPECTOR = "@modelcontextprotocol/inspector-cli@0.15.0"


def frontmatter(note: Path) -> dict[str, object]:
    _, head, _ = note.read_text().split("---\n", 2)
    found = yaml.safe_load(head)
    assert isinstance(found, dict)
    return found


async def test_options_may_be_left_out_and_text_is_read_as_its_type(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, telegram=False)
    await add_people(env, tmp_path)
    token = await make_token(env, "slack:U0ALICE")
    async with stdio_session(env, token, tmp_path / "mcp-stderr.log") as session:
        schema = {t.name: t.inputSchema for t in (await session.list_tools()).tools}
        # The person's words alone will do (issue 40: it required all three).
        assert schema["capture"]["required"] == []
        defaults = {k: v.get("default") for k, v in schema["capture"]["properties"].items()}
        assert defaults["confidence"] == 0.5 and defaults["tags"] == []
        assert schema["search_entries"]["required"] == ["query"]

        # A category given is honoured, not sent to the inbox for want of confidence.
        plain = {"category": "ideas", "title": "Tea walk", "body": "A walk for tea"}
        filed = await session.call_tool("capture", plain)
        assert not filed.isError, text_of(filed)
        path = (filed.structuredContent or {})["saved"]["path"]
        assert path.startswith("ideas/"), path
        vault = vault_holding(tmp_path / "data", path)
        assert "tags" not in frontmatter(vault / path)  # no empty property is written

        # `text` alone: the words name the title; nothing said where, so the inbox.
        alone = await session.call_tool("capture", {"text": "Ask the bakery about rye flour"})
        assert not alone.isError, text_of(alone)
        kept = (alone.structuredContent or {})["saved"]
        assert kept["title"] == "Ask the bakery about rye flour", kept
        assert "Pick a category" not in text_of(alone) and "move_entry" in text_of(alone)

        # A category that is none is refused with the list, and nothing is written.
        notes_before = sorted(vault.rglob("*.md"))
        wrong_place = await session.call_tool("capture", {"text": "x", "category": "nonsense"})
        assert wrong_place.isError and "people, projects, ideas, admin" in text_of(wrong_place)
        assert sorted(vault.rglob("*.md")) == notes_before

        as_text = {
            **plain,
            "title": "Lantern walk",
            "confidence": "0.9",
            "tags": "walks, Autumn",
            "fields": '{"due": "2026-12-01"}',
        }
        filed = await session.call_tool("capture", as_text)
        assert not filed.isError, text_of(filed)
        path = (filed.structuredContent or {})["saved"]["path"]
        assert path.startswith("ideas/"), path
        front = frontmatter(vault / path)
        assert front["tags"] == ["walks", "Autumn"] and str(front["due"]) == "2026-12-01"

        found = await session.call_tool(
            "search_entries", {"query": "lantern", "tags": "walks", "limit": "3"}
        )
        assert not found.isError, text_of(found)
        assert [h["path"] for h in (found.structuredContent or {})["results"]] == [path]

        wrong = await session.call_tool("capture", {**plain, "confidence": "very"})
        assert wrong.isError and "confidence" in text_of(wrong)


@pytest.mark.slow(seconds=10)
async def test_the_owners_token_is_made_by_me_or_owner(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    """A fresh install: nobody has written yet; `me` is whoever has this terminal, the
    person the console talks as, and their notes go to the configured vault."""
    env = fakes.env(tmp_path, database_url, slack=None, telegram=False)
    await make_brain(env)
    code, _, err = await cli(env, "mcp", "token", "console")
    assert code == 2 and "`brainbot mcp token me` makes the owner's" in err, err
    code, out, err = await cli(env, "mcp", "token", "me", "--label", "desktop")
    assert code == 0, err
    token = next(line for line in out.splitlines() if line.startswith("bbmcp_"))
    code, again, err = await cli(env, "mcp", "token", "--owner")
    assert code == 0, err
    assert again.split("(user ")[1].split(")")[0] == out.split("(user ")[1].split(")")[0]
    async with stdio_session(env, token, tmp_path / "mcp-stderr.log") as session:
        filed = await session.call_tool(
            "capture", {"category": "ideas", "title": "Mine", "body": "The owner's own"}
        )
        assert not filed.isError, text_of(filed)
        path = (filed.structuredContent or {})["saved"]["path"]
    assert (tmp_path / "data" / "vault" / path).exists()


def inspector_env(env: Mapping[str, str], token: str) -> list[str]:
    """The server's settings as the Inspector's `-e KEY=VALUE` options: it starts the
    server with only these (and a few such as PATH). It refuses `KEY=` with no value
    (as `make` leaves MAKEFLAGS), and an empty variable means nothing to brainbot."""
    server_env = {**env, "PYTHONPATH": str(ROOT), "BRAINBOT_MCP_TOKEN": token}
    return [arg for key, value in server_env.items() if value for arg in ("-e", f"{key}={value}")]


async def inspector(
    tmp_path: Path, env: Mapping[str, str], token: str, *args: str
) -> tuple[int, str, str]:
    """The MCP Inspector's CLI (`mcp-inspector-cli --cli`) against `brainbot mcp`; npm's
    cache in the repository's git-ignored .cache, so a second run needs no network."""
    process = await asyncio.create_subprocess_exec(
        "npx",
        "-y",
        "--package",
        INSPECTOR,
        "mcp-inspector-cli",
        "--cli",
        *inspector_env(env, token),
        sys.executable,
        "-m",
        "app.cli",
        "mcp",
        *args,
        env={**os.environ, "npm_config_cache": str(ROOT / ".cache" / "npm")},
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 300)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.mark.slow(seconds=15)
@pytest.mark.skipif(shutil.which("npx") is None, reason="npx (Node.js) is not installed")
async def test_the_inspector_cli_files_a_thought_with_every_argument_as_text(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, telegram=False)
    await add_people(env, tmp_path)
    token = await make_token(env, "slack:U0ALICE")
    code, out, err = await inspector(
        tmp_path,
        env,
        token,
        "--method",
        "tools/call",
        "--tool-name",
        "capture",
        "--tool-arg",
        "category=ideas",
        "title=Canal walk",
        "body=A lantern walk along the canal",
        "confidence=0.9",
        "tags=walks, autumn",
    )
    assert code == 0, out + err
    result = json.loads(out)
    assert not result.get("isError"), out
    path = result["structuredContent"]["saved"]["path"]
    vault = vault_holding(tmp_path / "data", path)
    assert frontmatter(vault / path)["tags"] == ["walks", "autumn"]

    code, out, err = await inspector(
        tmp_path, env, "bbmcp_wrong", "--method", "tools/call", "--tool-name", "list_entries"
    )
    assert REFUSED in out + err
