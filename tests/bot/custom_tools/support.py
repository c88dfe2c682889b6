"""What the tests of a vault's HTTP tools share: the tools file they declare, a
running brain with it, and reading what the fake model was sent."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from app.runtime import Runtime
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.tool_server import ToolServer

TOKEN = "weather-token-from-the-environment"


def tools_yaml(server: ToolServer) -> str:
    return f"""\
tools:
  - name: weather
    description: The weather now in a city.
    method: GET
    url: {server.url}/weather/{{city}}
    headers:
      Authorization: "Bearer {{secret:WEATHER_TOKEN}}"
    parameters:
      type: object
      properties:
        city: {{type: string, description: the city's name}}
        units: {{type: [string, "null"], enum: [metric, imperial, null]}}
      required: [city, units]
      additionalProperties: false
    needs_approval: false
  - name: post_note
    description: Post a short note to the team board.
    method: POST
    url: {server.url}/notes
    parameters:
      type: object
      properties:
        text: {{type: string, maxLength: 200}}
      required: [text]
  - name: huge
    description: Something that answers at length.
    url: {server.url}/huge
    parameters: {{type: object, properties: {{}}}}
    needs_approval: false
  - name: here
    description: A service that moved within its host.
    url: {server.url}/here
    parameters: {{type: object, properties: {{}}}}
    needs_approval: false
  - name: away
    description: A service that moved elsewhere.
    url: {server.url}/away
    parameters: {{type: object, properties: {{}}}}
    needs_approval: false
"""


@asynccontextmanager
async def brain_with_tools(
    tmp_path: Path,
    database_url: str,
    openai_fake: FakeOpenAI,
    server: ToolServer,
    hosts: str | None = None,
) -> AsyncIterator[Runtime]:
    """A running brain whose vault declares `tools_yaml(server)`, calls allowed to
    `hosts` (the service's own host unless named)."""
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=hosts or server.host
    ) as brain:
        declare(brain.settings.vault_dir, tools_yaml(server))
        yield brain


def declare(vault: Path, text: str) -> None:
    (vault / ".brainbot").mkdir(exist_ok=True)
    (vault / ".brainbot" / "tools.yaml").write_text(text)


def offered(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def tool_result(request: dict[str, Any]) -> dict[str, Any]:
    """The last tool message the model was sent, as JSON."""
    (last,) = [m for m in request["messages"] if m["role"] == "tool"][-1:]
    data: dict[str, Any] = json.loads(last["content"])
    return data
