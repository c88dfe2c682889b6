"""brainbot as an MCP server (`brainbot mcp`): the tool registry served over the Model
Context Protocol with the official `mcp` SDK, on stdio for desktop clients and over
streamable HTTP at `/mcp` on the server of `brainbot run`.

Each call acts as the person its bearer token belongs to, on their vault, through the
same ToolRunner as chat: reads and captures run at once; a change that asks for
approval in chat sends its Approve / Reject card to the person's Slack or Telegram and
changes nothing until it is pressed there (or decided with `brainbot approve ID`).
"""

from bot.mcp_server.calls import APPROVE, PENDING, REJECT, EventDoor, McpCalls, NoChat, SendCard
from bot.mcp_server.server import REFUSED, build_server

__all__ = [
    "APPROVE",
    "PENDING",
    "REFUSED",
    "REJECT",
    "EventDoor",
    "McpCalls",
    "NoChat",
    "SendCard",
    "build_server",
]
