"""The MCP `tools/list` entries, built from the tool registry: the same description
and argument schema the model gets in chat, and annotations from the registry's flags."""

from __future__ import annotations

from collections.abc import Mapping
from types import NoneType, UnionType
from typing import Any, Union, get_args, get_origin

from mcp import types

from bot.tools import ToolSpec

APPROVAL_NOTE = (
    " A change may wait for the user's Approve in their Slack or Telegram before it "
    "happens; the result then says so and gives the approval id."
)


def optional_arguments(spec: ToolSpec) -> frozenset[str]:
    """The arguments that may be null. Chat's strict schema requires them all (as
    null); over MCP they may be left out, so a client need not spell out every option."""
    optional = set()
    for name, field in spec.arguments.model_fields.items():
        annotation = field.annotation
        if get_origin(annotation) in (Union, UnionType) and NoneType in get_args(annotation):
            optional.add(name)
    return frozenset(optional)


def with_nulls(spec: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """`arguments` with each optional argument the client left out set to null."""
    return {**dict.fromkeys(optional_arguments(spec)), **arguments}


def input_schema(spec: ToolSpec, categories: tuple[str, ...]) -> dict[str, Any]:
    """The schema chat uses, with only the arguments that cannot be null required."""
    schema: dict[str, Any] = dict(spec.schema(categories)["function"]["parameters"])
    optional = optional_arguments(spec)
    schema["required"] = [name for name in schema.get("required", []) if name not in optional]
    return schema


def tool_annotations(spec: ToolSpec) -> types.ToolAnnotations:
    title = spec.name.replace("_", " ").capitalize()
    if spec.read_only:
        return types.ToolAnnotations(
            title=title, readOnlyHint=True, idempotentHint=spec.idempotent, openWorldHint=False
        )
    return types.ToolAnnotations(
        title=title,
        readOnlyHint=False,
        destructiveHint=spec.destructive,
        idempotentHint=spec.idempotent,
        openWorldHint=False,
    )


def tool_list(registry: Mapping[str, ToolSpec], categories: tuple[str, ...]) -> list[types.Tool]:
    return [
        types.Tool(
            name=spec.name,
            description=spec.description + (APPROVAL_NOTE if spec.needs_approval else ""),
            inputSchema=input_schema(spec, categories),
            annotations=tool_annotations(spec),
        )
        for spec in registry.values()
    ]
