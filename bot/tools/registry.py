"""The tool registry: a typed async function is the single source of a tool's JSON
schema, its argument validation and its executor.

    @tool(needs_approval=True)
    async def delete_entry(ctx: ToolContext, path: str) -> ToolResult:
        '''Delete a note (git keeps it, so it can be undone).

        Args:
            path: the note's path in the vault, e.g. "ideas/tea.md".
        '''

The docstring's first paragraph is the tool's description and its `Args:` section
describes each parameter; that is what the model reads. Everything else brainbot knows
of a tool is said on its `@tool(...)` line (see `tool`), and nowhere else.

`@tool` only makes the spec: the tools are registered by name, in one list
(`bot.tools.REGISTRY`, made with `registered`), and a plugin's when it loads.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from bot.tools.change_kinds import ChangeKinds
from bot.tools.context import Proposal, ToolContext, ToolError, ToolResult

__all__ = [
    "Proposal",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "registered",
    "tool",
]

Executor = Callable[..., Awaitable[ToolResult]]
Previewer = Callable[[ToolContext, BaseModel], Awaitable[Proposal]]
Classifier = Callable[[ToolContext, BaseModel], Awaitable[ChangeKinds]]
# Whether one call waits for Approve, as openai-agents' `needs_approval` callable says it.
ApprovalRule = Callable[[ToolContext, BaseModel], Awaitable[bool]]


@dataclass
class ToolSpec:
    name: str
    description: str
    arguments: type[BaseModel]
    executor: Executor
    # Whether a call waits for Approve (where BRAINBOT_APPROVAL_TOOLS lets it): always,
    # never, or as a rule says of the call (see `needs_approval` and `waits`).
    approval: bool | ApprovalRule
    previewer: Previewer | None = field(default=None)
    classifier: Classifier | None = field(default=None)
    # What a client may assume before calling (MCP tool annotations): it never writes;
    # it may overwrite or remove what is there; calling it twice does what once does.
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    # Other names a model gives the tool ("save_note"), and its arguments ("text" for
    # `body`); bot.turn.mending maps them to ours.
    aliases: tuple[str, ...] = ()
    argument_aliases: Mapping[str, str] = field(default_factory=dict)
    # What an argument an MCP client leaves out means, where it is neither null (for
    # one that may be null) nor [] (for a list).
    mcp_defaults: Mapping[str, Any] = field(default_factory=dict)
    # Another tool whose naming in BRAINBOT_APPROVAL_TOOLS names this one too.
    approval_follows: str | None = None
    # A call files the person's thought as a new note: a capture (the metrics count
    # it, a turn that made one has filed the thought, its arguments are mended to one).
    captures: bool = False

    @property
    def needs_approval(self) -> bool:
        """Whether a call of this tool can wait for Approve at all."""
        return self.approval is not False

    async def waits(self, ctx: ToolContext, args: BaseModel) -> bool:
        """Whether this call asks for Approve (the settings decide whether it may)."""
        if callable(self.approval):
            return await self.approval(ctx, args)
        return self.approval

    def preview(self, func: Previewer) -> Previewer:
        """Register the function that describes this tool's change before approval."""
        self.previewer = func
        return func

    def change_kinds(self, func: Classifier) -> Classifier:
        """Register the function that tells a small change (run at once, with Undo)
        from one that waits for approval."""
        self.classifier = func
        return func

    async def run(self, ctx: ToolContext, args: BaseModel) -> ToolResult:
        return await self.executor(
            ctx, **{name: getattr(args, name) for name in type(args).model_fields}
        )

    def schema(self, categories: tuple[str, ...]) -> dict[str, Any]:
        """The OpenAI `tools` entry, strict: every property required, optional ones nullable."""
        params = _strict(self.arguments.model_json_schema(), categories)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "strict": True,
                "parameters": params,
            },
        }


def tool(
    *,
    needs_approval: bool | ApprovalRule = False,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool = False,
    aliases: tuple[str, ...] = (),
    argument_aliases: Mapping[str, str] | None = None,
    mcp_defaults: Mapping[str, Any] | None = None,
    approval_follows: str | None = None,
    captures: bool = False,
) -> Callable[[Executor], ToolSpec]:
    """Make a tool's spec, with every fact of it (ToolSpec says what each means).
    `needs_approval` may be a rule that looks at the call (an async predicate);
    `read_only`, `destructive` and `idempotent` describe it to clients that show or
    gate calls by them (MCP annotations); they decide nothing here."""

    def make(func: Executor) -> ToolSpec:
        description, arg_docs = _parse_docstring(inspect.getdoc(func) or "")
        hints = get_type_hints(func)
        fields: dict[str, Any] = {}
        for name, param in list(inspect.signature(func).parameters.items())[1:]:
            default = ... if param.default is inspect.Parameter.empty else param.default
            fields[name] = (hints[name], Field(default, description=arg_docs.get(name)))
        model = create_model(
            f"{func.__name__}_arguments",
            __config__=ConfigDict(extra="forbid"),
            **fields,
        )
        spec = ToolSpec(
            func.__name__,
            description,
            model,
            func,
            needs_approval,
            read_only=read_only,
            destructive=destructive,
            idempotent=idempotent,
            aliases=aliases,
            argument_aliases=dict(argument_aliases or {}),
            mcp_defaults=dict(mcp_defaults or {}),
            approval_follows=approval_follows,
            captures=captures,
        )
        return spec

    return make


def registered(*specs: ToolSpec) -> dict[str, ToolSpec]:
    """The tools by name, in the order given (the order the model is offered them);
    ValueError when two share a name."""
    tools: dict[str, ToolSpec] = {}
    for spec in specs:
        if spec.name in tools:
            raise ValueError(f"two tools are named {spec.name!r}")
        tools[spec.name] = spec
    return tools


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    head, _, args = doc.partition("\nArgs:\n")
    arg_docs: dict[str, str] = {}
    current = ""
    for line in args.splitlines():
        match = re.match(r"\s{2,}(\w+):\s*(.*)", line)
        if match and not line.startswith(" " * 8):
            current = match.group(1)
            arg_docs[current] = match.group(2).strip()
        elif current and line.strip():
            arg_docs[current] += " " + line.strip()
    return " ".join(head.split()), arg_docs


def _strict(schema: dict[str, Any], categories: tuple[str, ...]) -> dict[str, Any]:
    """Rewrite a pydantic JSON schema into OpenAI's strict subset."""
    defs = schema.pop("$defs", {})

    def fix(node: Any, name: str = "") -> Any:
        if isinstance(node, list):
            return [fix(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return fix(defs[node["$ref"].split("/")[-1]], name)
        out = {k: fix(v) for k, v in node.items() if k not in ("title", "default")}
        if out.get("type") == "object" and "properties" in out:
            out["properties"] = {k: fix(v, k) for k, v in node["properties"].items()}
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        if name == "category" and out.get("type") == "string":
            out["enum"] = list(categories)
        if "anyOf" in out and name == "category":
            out["anyOf"] = [fix(v, "category") for v in node["anyOf"]]
        return out

    return dict(fix(schema))
