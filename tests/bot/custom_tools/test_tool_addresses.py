"""A vault's HTTP tools go through the same address guard as a shared link: a cloud
metadata address is never called, even when the admin's BRAINBOT_TOOL_HOSTS names it,
and no spelling of an address (in the tools file or in a redirect) reaches a host the
allow-list does not name. The fake model calls the tools through the real engine."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from tests.bot.custom_tools.support import declare, offered, tool_result
from tests.bot.helpers import message
from tests.bot.net.spellings import LOOPBACK
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, call, say
from tests.fakes.tool_server import ToolServer

# Spellings of the metadata address that BRAINBOT_TOOL_HOSTS accepts (host names and
# IPv4 forms; the setting takes no IPv6).
METADATA_HOSTS = ("169.254.169.254", "2852039166", "0251.0376.0251.0376", "169.254.170.2")


def _tool(name: str, url: str) -> str:
    return f"""\
  - name: {name}
    description: Whatever {name} answers.
    url: {url}
    timeout: 2
    parameters: {{type: object, properties: {{}}}}
    needs_approval: false
"""


async def test_a_metadata_address_is_never_called_even_when_the_admin_allows_it(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    """Nothing listens there in the test: an attempt would answer "could not reach" or
    "did not answer within 2 s" instead."""
    names = [f"meta{n}" for n in range(len(METADATA_HOSTS))]
    urls = [f"http://{host}/latest/meta-data/iam/" for host in METADATA_HOSTS]
    openai_fake.script = [step for name in names for step in (call(name), say("No."))]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=",".join(METADATA_HOSTS)
    ) as brain:
        declare(brain.settings.vault_dir, "tools:\n" + "".join(map(_tool, names, urls)))
        errors = {}
        for host, name in zip(METADATA_HOSTS, names, strict=True):
            await brain.engine.handle(message(f"Ask {name}"))
            errors[host] = tool_result(openai_fake.chat_requests()[-1])["error"]
    assert errors == {
        host: f"{host} was not called: {address} is a cloud metadata address; nothing was sent"
        for host, address in zip(
            METADATA_HOSTS,
            ["169.254.169.254"] * 3 + ["169.254.170.2"],
            strict=True,
        )
    }


async def test_no_spelling_of_an_allowed_address_in_a_tools_file_reaches_it(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    """Only 127.0.0.1:PORT is allowed; a tool written with another spelling of it is
    refused where the file is read (the allow-list is the admin's words, not a class of
    addresses), and the model's call of it sends nothing."""
    names = [f"t{n}" for n in range(len(LOOPBACK))]
    urls = [
        f"http://{quote(host, safe='[]:')}:{server.port}/weather/x" for host in LOOPBACK.values()
    ]
    openai_fake.script = [*(call(name) for name in names), say("None of them.")]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
    ) as brain:
        declare(brain.settings.vault_dir, "tools:\n" + "".join(map(_tool, names, urls)))
        await brain.engine.handle(message("Try every spelling"))
    assert not set(names) & set(offered(openai_fake.chat_requests()[0]))
    assert server.seen == []


async def test_a_redirect_to_any_spelling_of_a_host_not_allowed_is_not_followed(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    other = ToolServer()  # on 127.0.0.1 too, another port: not on the allow-list
    await other.start()
    try:
        names = [f"r{n}" for n in range(len(LOOPBACK))]
        urls = [
            f"{server.url}/redirect?to=" + quote(f"http://{host}:{other.port}/secret", safe="")
            for host in LOOPBACK.values()
        ]
        openai_fake.script = [step for name in names for step in (call(name), say("No."))]
        async with running_brain(
            tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
        ) as brain:
            declare(brain.settings.vault_dir, "tools:\n" + "".join(map(_tool, names, urls)))
            errors = {}
            for host, name in zip(LOOPBACK.values(), names, strict=True):
                await brain.engine.handle(message(f"Ask {name}"))
                errors[host] = tool_result(openai_fake.chat_requests()[-1]).get("error", "")
    finally:
        await other.stop()
    assert other.seen == []
    assert len(server.seen) == len(LOOPBACK)
    assert {host: "another host; not followed" in e for host, e in errors.items()} == dict.fromkeys(
        LOOPBACK.values(), True
    )
