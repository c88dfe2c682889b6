"""What a declared header may hold. A tools file is written by whoever can write its
vault, so it may not set the headers that steer or frame the request (brainbot sets
those), a credential header carries a `{secret:NAME}` or nothing, and a secret fills
a header only in the vaults BRAINBOT_SECRET_<NAME>_VAULTS names (unset: the owner's)."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from bot.config import SECRET_PREFIX, SECRET_VAULTS_SUFFIX, allowance_of, secret_variables
from storage import OWNER_VAULT_NAME

SECRET = re.compile(r"\{secret:([A-Za-z][A-Za-z0-9_]*)\}")
# Where the request goes and how its body is framed: brainbot's, never a file's.
STEERING = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "te"}
    | {"trailer", "upgrade"}
)
# Headers that carry a credential: only the one with the tool's declared secret.
_CREDENTIAL = re.compile(r"^(authorization|cookie|proxy-.*)$", re.I)
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110's header name
# Header names whose literal values would be credentials.
_SECRET_NAMES = re.compile(r"auth|token|key|secret|password|signature|cookie", re.I)
# A long run of key-like characters: a token pasted in where a placeholder belongs.
SECRET_LOOKING = re.compile(r"[A-Za-z0-9_\-+/=.]{24,}")


def secret_values(env_file: str = ".env") -> dict[str, str]:
    """The values of the BRAINBOT_SECRET_* secrets (not the _VAULTS allowances), read
    like every other setting: from the environment, else from `.env`."""
    return {
        key: value
        for key, value in secret_variables(env_file).items()
        if value and allowance_of(key) is None
    }


def allowed_vaults(secret: str, secret_vaults: Mapping[str, Collection[str]]) -> Collection[str]:
    """The vaults whose tools may use `secret` (Settings.secret_vaults)."""
    return secret_vaults.get(secret, (OWNER_VAULT_NAME,))


@dataclass(frozen=True, slots=True)
class HeaderProblem:
    """Why a header is refused, and for a secret the vault may not use, what the admin
    can change in the settings."""

    message: str
    fix: str = ""


def header_problem(
    header: str,
    value: object,
    *,
    vault: str,
    env: Mapping[str, str],
    secret_vaults: Mapping[str, Collection[str]],
) -> HeaderProblem | None:
    """What is wrong with one declared header of a tool in the vault called `vault`."""
    if not _TOKEN.match(header):
        return HeaderProblem(f"header {header!r}: not a header name (letters, digits, -)")
    if header.lower() in STEERING:
        return HeaderProblem(f"header {header}: brainbot sets it; a tools file may not")
    if not isinstance(value, str):
        return HeaderProblem(f"header {header}: the value must be text")
    if "\n" in value or "\r" in value:
        return HeaderProblem(f"header {header}: line breaks are not allowed")
    secrets = SECRET.findall(value)
    pasted = HeaderProblem(
        f"header {header}: its value looks like a secret written into the vault; write "
        f'"{{secret:NAME}}" and set {SECRET_PREFIX}NAME in the environment instead'
    )
    if SECRET_LOOKING.search(SECRET.sub("", value)):
        return pasted
    if _CREDENTIAL.match(header) and not secrets:
        return HeaderProblem(
            f"header {header}: it carries a credential, so its value must hold a "
            f'"{{secret:NAME}}" (set {SECRET_PREFIX}NAME in the environment)'
        )
    if _SECRET_NAMES.search(header) and not secrets:
        return pasted
    for secret in secrets:
        variable = SECRET_PREFIX + secret
        if allowance_of(variable) is not None:
            return HeaderProblem(
                f"header {header}: {variable} names the vaults that may use a secret, not a secret"
            )
        if not env.get(variable):
            return HeaderProblem(f"header {header}: {variable} is not set")
        allowed = allowed_vaults(secret, secret_vaults)
        if vault not in allowed:
            setting = f"{variable}{SECRET_VAULTS_SUFFIX}"
            now = ", ".join(allowed) if secret in secret_vaults else "unset: the owner's vault"
            return HeaderProblem(
                f"header {header}: {variable} is not allowed for the vault {vault} "
                f"({setting}: {now})",
                f"to allow it, add {vault} to {setting}; or take {{secret:{secret}}} out of "
                "this file",
            )
    return None
