"""A declared HTTP tool as the runner and the model see every other tool: a ToolSpec
whose arguments are checked against the declared JSON schema (not a pydantic model
made from type hints), with a preview for its approval card."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator

from bot.custom_tools.declarations import TOOLS_FILE, HttpTool
from bot.tools import Proposal, ToolContext, ToolError, ToolResult, ToolSpec

if TYPE_CHECKING:  # loaded when a vault declares tools (`arguments_model`)
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

MAX_ERRORS = 5
STRICT_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "const"}
    | {"anyOf", "description", "title"}
)


class SchemaArguments(BaseModel):
    """Arguments checked by a JSON schema; every key the schema allows is kept."""

    model_config = ConfigDict(extra="allow")
    validator: ClassVar[Draft202012Validator]

    @model_validator(mode="before")
    @classmethod
    def _against_schema(cls, data: Any) -> Any:
        errors = sorted(cls.validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        if errors:
            detail = "; ".join(_describe(e) for e in errors[:MAX_ERRORS])
            raise ValueError(detail)
        return data


def _describe(error: ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def arguments_model(tool: HttpTool) -> type[SchemaArguments]:
    from jsonschema import Draft202012Validator

    return type(
        f"{tool.name}_arguments",
        (SchemaArguments,),
        {"validator": Draft202012Validator(tool.parameters), "__module__": __name__},
    )


def is_strict(schema: Any, *, inside: str = "") -> bool:
    """Whether OpenAI's strict mode accepts `schema` as it is: only keywords it knows,
    and every object lists all its properties as required and allows no others.
    Otherwise it is offered non-strict (a keyword strict mode refuses would fail every
    request), and only our own validation holds the model to it."""
    if isinstance(schema, list):
        return all(is_strict(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    if inside == "properties":  # property names, not keywords
        return all(is_strict(value) for value in schema.values())
    if not set(schema) <= STRICT_KEYWORDS:
        return False
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return False
        if sorted(schema.get("required", [])) != sorted(properties):
            return False
    return all(is_strict(value, inside=key) for key, value in schema.items())


@dataclass
class HttpToolSpec(ToolSpec):
    """A ToolSpec for a declared HTTP tool of one vault."""

    http: HttpTool = field(kw_only=True)

    async def run(self, ctx: ToolContext, args: BaseModel) -> ToolResult:
        return await self.executor(ctx, **args.model_dump())

    def schema(self, categories: tuple[str, ...]) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "strict": is_strict(self.http.parameters),
                "parameters": self.http.parameters,
            },
        }


def http_spec(tool: HttpTool, hosts: Collection[str]) -> HttpToolSpec:
    """The runnable spec of a checked declaration; `hosts` is BRAINBOT_TOOL_HOSTS."""
    spec = HttpToolSpec(
        tool.name,
        tool.description,
        arguments_model(tool),
        functools.partial(_execute, tool, tuple(hosts)),
        tool.needs_approval,
        read_only=tool.method == "GET",
        http=tool,
    )
    spec.previewer = functools.partial(_preview, tool)
    return spec


def fingerprint(tool: HttpTool) -> str:
    """What an approval was shown: a declaration edited since then does not run."""
    shown = [tool.method, tool.url, sorted(tool.headers.items()), tool.parameters]
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()[:16]


async def _execute(
    tool: HttpTool, hosts: tuple[str, ...], ctx: ToolContext, **arguments: Any
) -> ToolResult:
    if ctx.expected_hash is not None and ctx.expected_hash != fingerprint(tool):
        raise ToolError(f"{tool.name} was changed in {TOOLS_FILE} after the preview; ask again")
    # aiohttp, with the call: a process whose vaults declare tools but call none skips it.
    from bot.custom_tools.http_call import plan_request, send

    request = plan_request(tool, arguments)
    data = await send(tool, request, hosts, ctx.settings.max_redirects)
    text = f"{tool.name}: {request.method} {request.url} answered {data['status']}."
    return ToolResult(data, text)


async def _preview(tool: HttpTool, ctx: ToolContext, args: BaseModel) -> Proposal:
    from bot.custom_tools.http_call import plan_request  # see _execute

    request = plan_request(tool, args.model_dump())
    host = request.url.split("/")[2]
    summary = f"Send {request.method} to {host} ({tool.name})"
    return Proposal(summary, request.describe(), fingerprint(tool))
