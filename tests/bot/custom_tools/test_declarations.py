"""What `.brainbot/tools.yaml` may declare: each bad tool is named with its line and
the reason, and skipped; the good ones still load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.config import Settings
from bot.custom_tools.declarations import parse_tools, secret_values
from bot.custom_tools.http_call import headers_for, plan_request
from bot.custom_tools.http_tool import is_strict
from bot.logs import redact, secrets_of
from bot.tools import REGISTRY
from storage.errors import UnsafePath
from storage.vault.paths import check_relpath

HOSTS = ("api.example.org",)
ENV = {"BRAINBOT_SECRET_TOKEN": "t0ken"}
# The owner's vault, which may use a secret no BRAINBOT_SECRET_<NAME>_VAULTS names.
OWNER: dict[str, Any] = {"vault": "vault", "secret_vaults": {}, "environ": ENV}
GOOD = """\
  - name: {name}
    description: Look something up.
    url: https://api.example.org/things/{{id}}
    parameters:
      type: object
      properties: {{id: {{type: string}}}}
"""


def problems(text: str, hosts: tuple[str, ...] = HOSTS) -> list[str]:
    return [str(p) for p in parse_tools(text, hosts=hosts, taken=REGISTRY, **OWNER).problems]


def one_tool(extra: str, *, url: str = "https://api.example.org/x") -> str:
    return f"""\
tools:
  - name: lookup
    description: Look something up.
    url: {url}
    parameters: {{type: object, properties: {{q: {{type: string}}}}}}
{extra}"""


def test_a_good_file_gives_its_tools_with_approval_by_default() -> None:
    text = "tools:\n" + GOOD.format(name="first") + GOOD.format(name="second")
    declared = parse_tools(text, hosts=HOSTS, taken=REGISTRY, **OWNER)
    assert declared.problems == ()
    assert [(t.name, t.method, t.needs_approval, t.timeout) for t in declared.tools] == [
        ("first", "GET", True, 10.0),
        ("second", "GET", True, 10.0),
    ]
    assert [t.line for t in declared.tools] == [2, 8]


def test_a_yaml_error_is_reported_with_its_line() -> None:
    assert problems("tools:\n  - name: x\n    url: [unclosed\n") == [
        "line 4: not valid YAML: expected ',' or ']', but got '<stream end>'"
    ]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("    colour: red\n", "unknown keys ['colour']"),
        ("    method: TRACE\n", "`method` must be one of GET, POST, PUT, PATCH, DELETE"),
        ("    timeout: soon\n", "`timeout` must be a number of seconds"),
        ("    needs_approval: maybe\n", "`needs_approval` must be true or false"),
        (
            "    headers: {Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456}\n",
            "header Authorization: its value looks like a secret written into the vault",
        ),
        ("    headers: {X-Api-Key: hunter2}\n", "looks like a secret written into the vault"),
        (
            '    headers: {Authorization: "Bearer {secret:MISSING}"}\n',
            "header Authorization: BRAINBOT_SECRET_MISSING is not set",
        ),
    ],
)
def test_a_bad_field_is_named_and_the_tool_skipped(extra: str, expected: str) -> None:
    text = one_tool(extra)
    (problem,) = problems(text)
    assert problem.startswith("line 2 (lookup): ") and expected in problem
    assert parse_tools(text, hosts=HOSTS, taken=REGISTRY, **OWNER).tools == ()


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ("{Host: evil.example.net}", "header Host: brainbot sets it; a tools file may not"),
        ("{content-length: '0'}", "header content-length: brainbot sets it"),
        ("{Transfer-Encoding: chunked}", "header Transfer-Encoding: brainbot sets it"),
        ("{Connection: close}", "header Connection: brainbot sets it"),
        ("{Authorization: Basic x}", "header Authorization: it carries a credential"),
        ("{Cookie: session=1}", "header Cookie: it carries a credential"),
        ("{Proxy-Authorization: x}", "header Proxy-Authorization: it carries a credential"),
        (
            '{Authorization: "Bearer {secret:TOKEN}", authorization: other}',
            "headers ['authorization'] are given twice",
        ),
        ("{'X Board': ops}", "header 'X Board': not a header name"),
        (
            '{X-Token: "{secret:TOKEN_VAULTS}"}',
            "BRAINBOT_SECRET_TOKEN_VAULTS names the vaults that may use a secret, not a secret",
        ),
    ],
)
def test_a_header_that_steers_the_request_or_a_bare_credential_is_refused(
    headers: str, expected: str
) -> None:
    (problem,) = problems(one_tool(f"    headers: {headers}\n"))
    assert problem.startswith("line 2 (lookup): ") and expected in problem


def test_the_credential_header_with_the_secret_and_plain_headers_load() -> None:
    text = one_tool(
        '    headers: {Authorization: "Bearer {secret:TOKEN}", Accept: application/json}\n'
    )
    (tool,) = parse_tools(text, hosts=HOSTS, taken=REGISTRY, **OWNER).tools
    assert headers_for(tool, ENV) == {
        "User-Agent": "brainbot",
        "Authorization": "Bearer t0ken",
        "Accept": "application/json",
    }


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("ftp://api.example.org/x", "must start with http:// or https://"),
        ("https://{q}.example.org/x", "the host of `url` must be written out"),
        ("https://api.example.org/{other}", "`url` names ['other']"),
        ("https://evil.example.net/x", "evil.example.net is not in BRAINBOT_TOOL_HOSTS"),
        ("https://user:pw@api.example.org/x", "must not carry a user name or password"),
        ("https://api.example.org/x?api_key=abc", "looks like a credential"),
        ("https://api.example.org/café menu", "must be written URL-encoded"),
        ("https://api.example.org/{q!r}", "only {argument} placeholders"),
    ],
)
def test_a_bad_url_is_named(url: str, expected: str) -> None:
    (problem,) = problems(one_tool("", url=url))
    assert expected in problem


def test_without_an_allow_list_no_host_is_allowed() -> None:
    (problem,) = problems(one_tool(""), hosts=())
    assert "BRAINBOT_TOOL_HOSTS is not set, so no host is allowed" in problem


def test_a_bad_schema_a_missing_field_and_clashing_names_are_reported() -> None:
    text = (
        "tools:\n"
        + GOOD.format(name="capture")  # a built-in
        + GOOD.format(name="lookup")
        + GOOD.format(name="lookup")  # twice
        + "  - name: no_url\n    description: d\n    parameters: {type: object}\n"
        + "  - name: bad_schema\n    description: d\n    url: https://api.example.org/\n"
        + "    parameters: {type: object, properties: {a: {type: strong}}}\n"
        + "  - name: 'has space'\n    description: d\n    url: https://api.example.org/\n"
        + "    parameters: {type: object}\n"
    )
    declared = parse_tools(text, hosts=HOSTS, taken=REGISTRY, **OWNER)
    assert [t.name for t in declared.tools] == ["lookup"]
    found = [str(p) for p in declared.problems]
    assert found[0].startswith("line 2 (capture): the name is taken")
    assert found[1].startswith("line 14 (lookup): the name is taken")
    assert found[2] == "line 20 (no_url): `url` is missing"
    assert found[3].startswith("line 23 (bad_schema): `parameters` is not a valid JSON schema")
    assert found[4].startswith("line 27 (has space): `name` must be letters")


def test_only_a_get_may_skip_approval_and_timeouts_are_capped() -> None:
    text = one_tool("    method: POST\n    needs_approval: false\n    timeout: 120\n")
    declared = parse_tools(text, hosts=HOSTS, taken=REGISTRY, **OWNER)
    (tool,) = declared.tools
    assert tool.needs_approval is True and tool.timeout == 30.0
    assert [(p.message, p.skipped) for p in declared.problems] == [
        ("timeout 120 s is cut to 30 s", False),
        ("only GET tools may run without approval; this POST waits for Approve", False),
    ]


def test_arguments_fill_the_url_encoded_and_the_rest_goes_in_query_or_body() -> None:
    text = one_tool("", url="https://api.example.org/q/{q}?fixed=1")
    (get,) = parse_tools(text, hosts=HOSTS, taken=REGISTRY, **OWNER).tools
    request = plan_request(get, {"q": "a b/c?&#", "page": 2, "skip": None})
    assert request.url == "https://api.example.org/q/a%20b%2Fc%3F%26%23?fixed=1&page=2"
    assert request.body is None
    (post,) = parse_tools(
        text.replace("    parameters", "    method: POST\n    parameters"),
        hosts=HOSTS,
        taken=REGISTRY,
        **OWNER,
    ).tools
    request = plan_request(post, {"q": "x", "text": "hello"})
    assert request.url == "https://api.example.org/q/x?fixed=1"
    assert request.body == {"text": "hello"}


@pytest.mark.parametrize(
    "path", [".brainbot/tools.yaml", ".brainbot/notes.md", "ideas/../.brainbot/tools.yaml"]
)
def test_the_vault_path_rules_refuse_the_tools_folder(path: str) -> None:
    with pytest.raises(UnsafePath):
        check_relpath(path)


@pytest.mark.parametrize(
    ("schema", "strict"),
    [
        ({"type": "object", "properties": {}, "required": [], "additionalProperties": False}, True),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, False),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string", "maxLength": 5}},
                "required": ["a"],
                "additionalProperties": False,
            },
            False,  # a keyword strict mode may refuse: offered non-strict
        ),
        (
            {
                "type": "object",
                "properties": {"format": {"type": ["string", "null"]}},  # a name, not a keyword
                "required": ["format"],
                "additionalProperties": False,
            },
            True,
        ),
    ],
)
def test_a_schema_is_offered_strict_only_when_strict_mode_takes_it(
    schema: dict[str, object], strict: bool
) -> None:
    assert is_strict(schema) is strict


def test_the_tools_secrets_are_redacted_from_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAINBOT_SECRET_WEATHER_TOKEN", "wx-9f8e7d6c")
    secrets = secrets_of(Settings(_env_file=None))
    assert redact("sent Bearer wx-9f8e7d6c", secrets) == "sent Bearer [redacted]"


def test_a_secret_in_dotenv_fills_the_header_and_is_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`.env` holds the secret, as it holds every other setting; the environment wins."""
    (tmp_path / ".env").write_text(
        "BRAINBOT_SECRET_WEATHER_TOKEN=wx-from-dotenv-1\nBRAINBOT_SECRET_MAPS=mp-dotenv-22\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BRAINBOT_SECRET_WEATHER_TOKEN", raising=False)
    monkeypatch.setenv("BRAINBOT_SECRET_MAPS", "mp-environment-3")
    text = one_tool('    headers: {Authorization: "Bearer {secret:WEATHER_TOKEN}"}\n')
    (tool,) = parse_tools(text, hosts=HOSTS, taken=REGISTRY, vault="vault", secret_vaults={}).tools
    assert headers_for(tool)["Authorization"] == "Bearer wx-from-dotenv-1"
    assert secret_values()["BRAINBOT_SECRET_MAPS"] == "mp-environment-3"
    secrets = secrets_of(Settings(_env_file=None))
    assert redact("Bearer wx-from-dotenv-1", secrets) == "Bearer [redacted]"
