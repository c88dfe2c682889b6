"""The MCP `tools/list` entries, built from the tool registry: the same description
and argument schema the model gets in chat, and annotations from the registry's flags."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, get_args

from bot.tools import ToolSpec
from bot.turn import MISSING, coerce, empty_value

if TYPE_CHECKING:
    from mcp import types

APPROVAL_NOTE = (
    " A change may wait for the user's Approve (in their Slack or Telegram, or with "
    "`brainbot approve ID`) before it happens; the result then says so and gives the "
    "approval id."
)


def defaults(spec: ToolSpec) -> dict[str, Any]:
    """The arguments a client may leave out, each with what leaving it out means: null
    for one that may be null, [] for a list, else what the tool declares (`mcp_defaults`).
    Chat's strict schema requires them all; an MCP client need not spell out every option."""
    found: dict[str, Any] = {}
    for name, field in spec.arguments.model_fields.items():
        default = spec.mcp_defaults.get(name, empty_value(field.annotation))
        if default is not MISSING:
            found[name] = default
    return found


def arguments_for(spec: ToolSpec, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """What the client sent, in the types the tool takes: the left-out arguments filled
    in, a name the tool declares for one of its arguments read as that argument, and
    text fitted to its argument's type ("a, b" or a JSON list for a list,
    "0.7" for a number, a JSON object for fields), as clients that send every argument
    as a string (the MCP Inspector's CLI) do. What still does not fit is left for the
    tool's validation to name."""
    fields = spec.arguments.model_fields
    # A name the tool's declaration takes for one of its own (`text` for `body`).
    named = {
        spec.argument_aliases.get(name, name)
        if name not in fields and spec.argument_aliases.get(name, name) not in arguments
        else name: value
        for name, value in arguments.items()
    }
    args = {**defaults(spec), **named}
    for name, value in args.items():
        field = fields.get(name)
        if field is None:
            continue
        if isinstance(value, str) and not _takes_text(field.annotation):
            value = _json_or_text(value)
        args[name] = coerce(value, field.annotation, [])
    return args


def _takes_text(annotation: Any) -> bool:
    return annotation is str or str in get_args(annotation)


def _json_or_text(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


def input_schema(spec: ToolSpec, categories: tuple[str, ...]) -> dict[str, Any]:
    """The schema chat uses, with only the arguments that cannot be left out required,
    and what leaving one out means as its default."""
    schema: dict[str, Any] = dict(spec.schema(categories)["function"]["parameters"])
    optional = defaults(spec)
    schema["required"] = [name for name in schema.get("required", []) if name not in optional]
    # A default its own enum does not hold (capture's "": the words decide) is left
    # unsaid: the argument is optional all the same.
    schema["properties"] = {
        name: {**prop, "default": optional[name]}
        if name in optional and optional[name] in prop.get("enum", [optional[name]])
        else prop
        for name, prop in schema["properties"].items()
    }
    return schema


def tool_annotations(spec: ToolSpec) -> types.ToolAnnotations:
    from mcp import types  # here: only a server lists tools (see server.build_server)

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
    from mcp import types  # here: only a server lists tools (see server.build_server)

    return [
        types.Tool(
            name=spec.name,
            description=spec.description + (APPROVAL_NOTE if spec.needs_approval else ""),
            inputSchema=input_schema(spec, categories),
            annotations=tool_annotations(spec),
        )
        for spec in registry.values()
    ]
