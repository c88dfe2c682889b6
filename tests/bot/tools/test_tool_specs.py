"""A tool's spec is the only home of its facts: the names small models give it and its
arguments, what an MCP client's left-out argument means, and when it waits for Approve
are said on its `@tool` line, and the turn, MCP and the runner read them there. No
module decides anything by comparing with a tool's name."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from bot.mcp_server.tools import input_schema
from bot.tools import REGISTRY, UNSURE, ToolContext, ToolResult, approval_tools, tool
from bot.turn.arguments import mended
from bot.turn.mending import tool_name
from storage.vault import DEFAULT_CATEGORIES
from tests.bot.helpers import message
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, Step, ToolCall, say

ROOT = Path(__file__).resolve().parents[3]
ALIASED = [(spec.name, alias) for spec in REGISTRY.values() for alias in spec.aliases]
ARGUMENT_ALIASED = [
    (spec.name, alias, target)
    for spec in REGISTRY.values()
    for alias, target in spec.argument_aliases.items()
]


@pytest.mark.parametrize(("name", "alias"), ALIASED)
def test_every_name_a_tool_declares_calls_that_tool(name: str, alias: str) -> None:
    assert tool_name(alias) == (name, "tool_name")
    assert tool_name(alias.upper().replace("_", "-")) == (name, "tool_name")


def test_no_declared_name_is_another_tools_or_declared_twice() -> None:
    aliases = [alias for _, alias in ALIASED]
    assert len(aliases) == len(set(aliases))
    assert not set(aliases) & set(REGISTRY)
    assert len(ALIASED) >= 50  # the names small models were seen to use


@pytest.mark.parametrize(("name", "alias", "target"), ARGUMENT_ALIASED)
def test_every_argument_name_a_tool_declares_reaches_its_argument(
    name: str, alias: str, target: str
) -> None:
    fields = REGISTRY[name].arguments.model_fields
    assert target in fields and alias not in fields
    value = "ideas" if target == "category" else "tea with Sam"
    raw = json.dumps({alias: value})
    args, fixes = mended(name, raw, json.loads(raw), DEFAULT_CATEGORIES, "tea with Sam")
    assert args is not None and "argument_name" in fixes
    assert args[target] in (value, [value])


def test_an_mcp_client_may_leave_out_what_the_tool_declares_a_default_for() -> None:
    schema = input_schema(REGISTRY["capture"], DEFAULT_CATEGORIES)
    assert schema["properties"]["confidence"]["default"] == UNSURE
    assert "confidence" not in schema["required"]
    for spec in REGISTRY.values():
        assert set(spec.mcp_defaults) <= set(spec.arguments.model_fields)


def test_a_tool_that_follows_anothers_approval_waits_where_that_one_does() -> None:
    followers = {spec.name: spec.approval_follows for spec in REGISTRY.values()}
    assert followers["tick_tasks"] == "update_entry"
    assert all(f is None or f in REGISTRY for f in followers.values())
    assert approval_tools(["update"], REGISTRY) == ("update_entry", "tick_tasks")
    assert approval_tools(["delete"], REGISTRY) == ("delete_entry",)


def test_a_tool_is_registered_by_name_not_by_its_decorator() -> None:
    @tool(aliases=("stray_alias",))
    async def stray(ctx: ToolContext, text: str) -> ToolResult:
        """A tool nobody registered.

        Args:
            text: anything.
        """
        return ToolResult({}, text)

    assert stray.name == "stray" and "stray" not in REGISTRY
    assert tool_name("stray_alias") == (None, None)


async def _only_the_safe(ctx: ToolContext, args: BaseModel) -> bool:
    """The rule of the test's tool: opening the safe waits for Approve, a door does not."""
    return bool(args.model_dump()["door"] == "safe")


@pytest.fixture
def door_tool() -> Iterator[list[str]]:
    """A plugin's tool whose approval is a rule on the call, and no preview."""
    opened: list[str] = []

    @tool(needs_approval=_only_the_safe)
    async def open_door(ctx: ToolContext, door: str) -> ToolResult:
        """Open a door.

        Args:
            door: which one.
        """
        opened.append(door)
        return ToolResult({"opened": door}, f"Opened the {door}.")

    REGISTRY[open_door.name] = open_door  # as loading the plugin registers it
    try:
        yield opened
    finally:
        REGISTRY.pop(open_door.name)


async def test_a_tools_approval_rule_decides_each_call(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, door_tool: list[str]
) -> None:
    openai_fake.script = [
        Step(tool_calls=[ToolCall("open_door", {"door": "garden"})]),
        say("The garden door is open."),
        Step(tool_calls=[ToolCall("open_door", {"door": "safe"})]),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("Could you open the garden door?"))
        assert door_tool == ["garden"]  # ran at once: the rule says a door needs no Approve
        replies = await brain.engine.handle(message("Could you open the safe?"))
    (card,) = [r for r in replies if r.buttons]
    assert card.text == "Run open_door? This needs your approval."
    assert door_tool == ["garden"]


# Words that are a tool's name but are compared as something else: the small-model
# route's action word, and the `undo` key of a tool's result.
NOT_TOOL_NAMES = {
    ("bot/turn/routed.py", "action == 'undo'"),
    ("bot/mcp_server/calls.py", "'undo' in data"),
}


def test_no_module_decides_by_comparing_with_a_tools_name() -> None:
    """`name == "capture"`, `"move_entry" in tools`, `c.tool.in_(("capture", …))`: a
    fact of a tool kept outside its spec. A call by name (`runner.call(ctx, "capture",
    …)`) addresses the tool and is fine."""
    found: set[tuple[str, str]] = set()
    for package in ("app", "adapters", "bot", "scheduler", "storage"):
        for path in sorted((ROOT / package).rglob("*.py")):
            module = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Compare):
                    parts = [node.left, *node.comparators]
                elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "in_":
                    parts = list(node.args)
                else:
                    continue
                if any(_names_a_tool(part) for part in parts):
                    found.add((module, ast.unparse(node)))
    assert found == NOT_TOOL_NAMES


def _names_a_tool(node: ast.expr) -> bool:
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return any(isinstance(i, ast.Constant) and i.value in REGISTRY for i in items)
