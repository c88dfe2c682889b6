"""A link to the machine's own network in a chat message, however its address is
spelled, through the real engine with the guard on: the note stays as sent, the person
is told why the page was not read, and the page server never receives a request."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import frontmatter

from app.runtime import Runtime
from bot.enrich import find_urls
from tests.bot.enrich.pages_server import page_server
from tests.bot.enrich.test_fetch_addresses import REFUSED, redirect
from tests.bot.enrich.test_shared_links import told_after
from tests.bot.helpers import git_log, notes, vault_of
from tests.bot.net.spellings import LOOPBACK, METADATA
from tests.fakes.brain import Told, running_brain

TRUSTED = {"BRAINBOT_FETCH_TRUSTED_HOSTS": "127.0.0.2"}


async def _outcome(brain: Runtime, text: str, n: int) -> str | None:
    """None when `text`, sent by a person of its own (`n`: links seen before in the same
    vault would be recognised instead), was saved as sent, not added to, and the person
    was told the link was refused; else what happened instead."""
    texts = await told_after(brain, text, user=f"U{n}")
    vault = await vault_of(brain, "test", f"U{n}")
    (path,) = notes(vault)
    content = frontmatter.load(vault / path).content
    if content != text or git_log(vault)[0].startswith("update "):
        return f"the note became {content!r}; told {texts}"
    if len(texts) != 1 or not texts[0].endswith(f"{REFUSED}."):
        return f"told {texts}"
    return None


async def test_a_chat_link_to_loopback_in_any_spelling_is_never_fetched(
    tmp_path: Path, database_url: str
) -> None:
    seen: list[str] = []
    async with (
        page_server(seen=seen) as site,
        running_brain(tmp_path, database_url, **TRUSTED, deliver=Told()) as brain,
    ):
        port = site.rsplit(":", 1)[1]
        happened = {}
        for n, (name, spelling) in enumerate(LOOPBACK.items()):
            text = f"router page http://{spelling}:{port}/compost?n={n}"
            happened[name] = await _outcome(brain, text, n), list(seen)
    assert happened == {name: (None, []) for name in LOOPBACK}


async def test_a_chat_link_redirected_to_loopback_in_any_spelling_is_never_fetched(
    tmp_path: Path, database_url: str
) -> None:
    seen: list[str] = []
    hops: list[str] = []
    async with (
        page_server(seen=seen) as site,
        page_server({"/redirect": redirect}, host="127.0.0.2", seen=hops) as allowed,
        running_brain(tmp_path, database_url, **TRUSTED, deliver=Told()) as brain,
    ):
        port = site.rsplit(":", 1)[1]
        happened = {}
        for n, (name, spelling) in enumerate(LOOPBACK.items()):
            target = quote(f"http://{spelling}:{port}/compost?n={n}", safe="")
            text = f"router page {allowed}/redirect?to={target}"
            happened[name] = await _outcome(brain, text, n), list(seen)
        assert len(hops) == len(LOOPBACK)  # the trusted page was asked every time
        # ... and its own pages are read: trusted by name, not by address class.
        (said,) = await told_after(brain, f"compost guide {allowed}/compost")
        assert "Composting in small gardens" in said
    assert happened == {name: (None, []) for name in LOOPBACK}


async def test_a_chat_link_to_cloud_metadata_is_refused_with_private_addresses_allowed(
    tmp_path: Path, database_url: str
) -> None:
    """Directly and through a redirect from an allowed page. Nothing listens on the
    metadata address here: an attempt would be told "could not be reached" or the time
    limit instead of the refusal."""
    async with (
        page_server({"/redirect": redirect}) as site,
        running_brain(
            tmp_path,
            database_url,
            BRAINBOT_FETCH_ALLOW_PRIVATE="true",
            BRAINBOT_FETCH_TIMEOUT="2",
            deliver=Told(),
        ) as brain,
    ):
        happened = {}
        for n, (name, spelling) in enumerate(METADATA.items()):
            url = f"http://{spelling}/latest/meta-data/iam/?n={n}"
            direct = f"creds {url}"
            if find_urls(direct) == [url]:
                happened[name] = await _outcome(brain, direct, n)
            else:  # a full stop ends a link in chat: `http://169` names no metadata
                assert name in ("ideographic full stops", "full-width full stops")
            redirected = f"creds {site}/redirect?to={quote(url, safe='')}"
            happened[f"{name}, redirected"] = await _outcome(brain, redirected, 100 + n)
    assert happened == dict.fromkeys(happened) and len(happened) == 2 * len(METADATA) - 2
