"""The tool registry: a typed async function is the single source of a tool's JSON
schema, its argument validation and its executor.

    @tool(needs_approval=True)
    async def delete_entry(ctx: ToolContext, path: str) -> ToolResult:
        '''Delete a note (git keeps it, so it can be undone).

        Args:
            path: the note's path in the vault, e.g. "ideas/tea.md".
        '''

The docstring's first paragraph is the tool's description and its `Args:` section
describes each parameter; that is what the model reads.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from bot.tools.change_kinds import ChangeKinds
from bot.tools.context import Proposal, ToolContext, ToolError, ToolResult

__all__ = ["REGISTRY", "Proposal", "ToolContext", "ToolError", "ToolResult", "ToolSpec", "tool"]

Executor = Callable[..., Awaitable[ToolResult]]
Previewer = Callable[[ToolContext, BaseModel], Awaitable[Proposal]]
Classifier = Callable[[ToolContext, BaseModel], Awaitable[ChangeKinds]]


@dataclass
class ToolSpec:
    name: str
    description: str
    arguments: type[BaseModel]
    executor: Executor
    needs_approval: bool
    previewer: Previewer | None = field(default=None)
    classifier: Classifier | None = field(default=None)
    # What a client may assume before calling (MCP tool annotations): it never writes;
    # it may overwrite or remove what is there; calling it twice does what once does.
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False

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


REGISTRY: dict[str, ToolSpec] = {}


def tool(
    *,
    needs_approval: bool = False,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool = False,
) -> Callable[[Executor], ToolSpec]:
    """Register a tool. `read_only`, `destructive` and `idempotent` describe it to
    clients that show or gate calls by them (MCP annotations); they decide nothing here."""

    def register(func: Executor) -> ToolSpec:
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
        )
        REGISTRY[spec.name] = spec
        return spec

    return register


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
