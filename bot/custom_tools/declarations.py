"""`.brainbot/tools.yaml`: HTTP tools a person or an admin declares in a vault.

The file lives in the vault, so whoever can write the vault (a git push, Obsidian sync,
a team member) writes it. What it may ask for is therefore bounded by settings it
cannot change: hosts outside BRAINBOT_TOOL_HOSTS are refused, header values come only
from `{secret:NAME}` placeholders filled from BRAINBOT_SECRET_NAME, in the vaults
BRAINBOT_SECRET_NAME_VAULTS allows (see bot.custom_tools.headers), and a literal value
that looks like a secret is refused rather than sent. Each bad tool is reported with
its line and skipped; the others still load.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import yaml

from bot.custom_tools.headers import SECRET_LOOKING, header_problem, secret_values

TOOLS_FILE = ".brainbot/tools.yaml"
DEFAULT_TIMEOUT = 10.0
MAX_TIMEOUT = 30.0
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# OpenAI's rule for function names.
TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
KEYS = frozenset(
    {"name", "description", "method", "url", "headers", "parameters", "timeout", "needs_approval"}
)
# Query names whose literal values would be credentials.
_SECRET_NAMES = re.compile(r"auth|token|key|secret|password|signature|cookie", re.I)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a declaration: where, which tool, what to do."""

    line: int | None
    tool: str | None
    message: str
    skipped: bool = True  # False: the tool loads, adjusted as the message says
    # What to change in the install's settings (a secret the vault may not use): the
    # admin's to decide, so `brainbot doctor` reports it as a problem, not a warning.
    fix: str = ""

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else TOOLS_FILE
        who = f" ({self.tool})" if self.tool else ""
        return f"{where}{who}: {self.message}"


@dataclass(frozen=True, slots=True)
class HttpTool:
    """A declared HTTP tool, checked: it may be offered to the model as it is."""

    name: str
    description: str
    method: str
    url: str  # a template: `{argument}` placeholders, filled URL-encoded
    headers: Mapping[str, str]  # values may hold `{secret:NAME}` placeholders
    parameters: dict[str, Any]  # the JSON schema of the arguments
    timeout: float
    needs_approval: bool
    line: int | None = None

    @property
    def placeholders(self) -> tuple[str, ...]:
        return url_placeholders(self.url)


@dataclass(frozen=True, slots=True)
class Declared:
    """What a tools file holds: the tools that passed, and what was wrong with the rest."""

    tools: tuple[HttpTool, ...] = ()
    problems: tuple[Problem, ...] = ()


def url_placeholders(template: str) -> tuple[str, ...]:
    """The argument names a URL template fills in, e.g. `{city}`."""
    return tuple(dict.fromkeys(PLACEHOLDER.findall(template)))


def host_allowed(netloc: str, hosts: Collection[str]) -> bool:
    """`netloc` (`host` or `host:port`) is on the allow-list: an entry without a port
    allows the host on any port, one with a port only that port."""
    netloc = netloc.lower()
    hostname = netloc.rsplit(":", 1)[0] if not netloc.endswith("]") else netloc
    return any(entry.lower() in (netloc, hostname) for entry in hosts)


def parse_tools(
    text: str,
    *,
    hosts: Collection[str],
    taken: Collection[str],
    vault: str,
    secret_vaults: Mapping[str, Collection[str]],
    environ: Mapping[str, str] | None = None,
) -> Declared:
    """Check every tool in `text`, the file's content in the vault called `vault`.
    `hosts` is the allow-list, `taken` the names already in use (built-ins and
    plugins), `secret_vaults` which vaults may use which secret (Settings.secret_vaults);
    `environ` holds the BRAINBOT_SECRET_* values the headers name."""
    limits = _Limits(hosts, vault, secret_vaults, secret_values() if environ is None else environ)
    try:
        root = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        reason = getattr(exc, "problem", None) or str(exc)
        return Declared(problems=(Problem(line, None, f"not valid YAML: {reason}"),))
    if data is None:
        return Declared()
    if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
        return Declared(problems=(Problem(1, None, "expected `tools:` with a list of tools"),))
    lines = _item_lines(root)
    tools: list[HttpTool] = []
    problems: list[Problem] = []
    seen = set(taken)
    for index, item in enumerate(data["tools"]):
        line = lines[index] if index < len(lines) else None
        checked, found = _check(item, line, limits)
        problems += found
        if checked is None:
            continue
        if checked.name in seen:
            problems.append(
                Problem(
                    line,
                    checked.name,
                    "the name is taken (a built-in, a plugin or an "
                    "earlier tool in this file); rename it",
                )
            )
            continue
        seen.add(checked.name)
        tools.append(checked)
    return Declared(tuple(tools), tuple(problems))


def _item_lines(root: yaml.Node | None) -> list[int]:
    """The line of each item under `tools:`, for messages a person can act on."""
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if getattr(key, "value", None) == "tools" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


@dataclass(frozen=True, slots=True)
class _Limits:
    """What the settings allow the file being checked."""

    hosts: Collection[str]
    vault: str
    secret_vaults: Mapping[str, Collection[str]]
    env: Mapping[str, str]


def _check(item: Any, line: int | None, limits: _Limits) -> tuple[HttpTool | None, list[Problem]]:
    if not isinstance(item, dict):
        return None, [Problem(line, None, "each tool is a mapping with name, url, ...")]
    name = item.get("name")
    label = name if isinstance(name, str) else None
    problems: list[Problem] = []

    def bad(message: str, fix: str = "") -> tuple[None, list[Problem]]:
        return None, [*problems, Problem(line, label, message, fix=fix)]

    unknown = sorted(str(k) for k in item if k not in KEYS)
    if unknown:
        return bad(f"unknown keys {unknown}; known: {', '.join(sorted(KEYS))}")
    for key in ("name", "description", "url", "parameters"):
        if key not in item:
            return bad(f"`{key}` is missing")
    if not isinstance(name, str) or not TOOL_NAME.match(name):
        return bad("`name` must be letters, digits, _ or - (at most 64), starting with a letter")
    description = item["description"]
    if not isinstance(description, str) or not description.strip():
        return bad("`description` must be text: it is what the model reads")
    method = str(item.get("method", "GET")).upper()
    if method not in METHODS:
        return bad(f"`method` must be one of {', '.join(METHODS)}")
    parameters = item["parameters"]
    schema_problem = _schema_problem(parameters)
    if schema_problem:
        return bad(schema_problem)
    url = item["url"]
    if not isinstance(url, str):
        return bad("`url` must be text")
    url_problem = _url_problem(url, parameters, limits.hosts)
    if url_problem:
        return bad(url_problem)
    headers = item.get("headers") or {}
    if not isinstance(headers, dict):
        return bad("`headers` must be a mapping of header name to value")
    names = [str(header).lower() for header in headers]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        return bad(f"headers {twice} are given twice (header names ignore case)")
    for header, value in headers.items():
        refused = header_problem(
            str(header),
            value,
            vault=limits.vault,
            env=limits.env,
            secret_vaults=limits.secret_vaults,
        )
        if refused:
            return bad(refused.message, refused.fix)
    timeout = item.get("timeout", DEFAULT_TIMEOUT)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        return bad("`timeout` must be a number of seconds")
    if timeout > MAX_TIMEOUT:
        cut = f"timeout {timeout} s is cut to {MAX_TIMEOUT:g} s"
        problems.append(Problem(line, name, cut, skipped=False))
    needs_approval = item.get("needs_approval", True)
    if not isinstance(needs_approval, bool):
        return bad("`needs_approval` must be true or false")
    if not needs_approval and method != "GET":
        problems.append(
            Problem(
                line,
                name,
                f"only GET tools may run without approval; this {method} waits for Approve",
                skipped=False,
            )
        )
        needs_approval = True
    tool = HttpTool(
        name,
        " ".join(description.split()),
        method,
        url,
        {str(k): str(v) for k, v in headers.items()},
        parameters,
        float(min(timeout, MAX_TIMEOUT)),
        needs_approval,
        line,
    )
    return tool, problems


def _schema_problem(parameters: Any) -> str | None:
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        return "`parameters` must be a JSON schema with `type: object`"
    if not isinstance(parameters.get("properties", {}), dict):
        return "`parameters.properties` must be a mapping"
    # Loaded here, for a vault that declares tools: 50 ms of every start otherwise.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(parameters)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "parameters"
        return f"`parameters` is not a valid JSON schema at {where}: {exc.message}"
    return None


def _url_problem(url: str, parameters: dict[str, Any], hosts: Collection[str]) -> str | None:
    names = url_placeholders(url)
    literal = PLACEHOLDER.sub("", url)
    if "{" in literal or "}" in literal:
        return "`url` may hold only {argument} placeholders (letters, digits and _)"
    if not literal.isascii() or any(c.isspace() for c in literal):
        return "`url` must be written URL-encoded (no spaces or letters outside ASCII)"
    properties = parameters.get("properties", {})
    unknown = [n for n in names if n not in properties]
    if unknown:
        return f"`url` names {unknown}, which `parameters.properties` does not declare"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return "`url` must start with http:// or https://"
    if "{" in parts.netloc or "}" in parts.netloc or not parts.hostname:
        return "the host of `url` must be written out, not filled from an argument"
    if parts.username or parts.password:
        return "`url` must not carry a user name or password; use a header with {secret:NAME}"
    if not hosts:
        return (
            f"BRAINBOT_TOOL_HOSTS is not set, so no host is allowed; add {parts.netloc} "
            "to it to use this tool"
        )
    if not host_allowed(parts.netloc, hosts):
        return f"{parts.netloc} is not in BRAINBOT_TOOL_HOSTS; add it there to allow it"
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if "{" not in value and (_SECRET_NAMES.search(key) or SECRET_LOOKING.search(value)):
            return (
                f"the query parameter {key!r} looks like a credential written into the vault; "
                "send it in a header with {secret:NAME} instead"
            )
    return None
