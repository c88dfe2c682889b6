"""The mailbox as its owner meets it: a server without IDLE is polled, STARTTLS
works, a lost connection is taken up again, and a bad URL, a wrong password or an
untrusted certificate is said plainly by `doctor` (and never the password)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from app.mail import mail_check
from app.settings_check import SettingsInvalid, load_settings
from tests.bot.mail.conftest import MX, mail, mail_in, until
from tests.fakes.brain import make_settings
from tests.fakes.imap_server import PASSWORD, ImapServer


async def test_a_server_without_idle_is_polled_over_starttls(
    tmp_path: Path, database_url: str
) -> None:
    root = tmp_path / "imap"
    root.mkdir()
    server = ImapServer(root, tls=False, idle=False)
    server.start()
    try:
        assert server.url.startswith("imap://")
        async with mail_in(tmp_path, database_url, server) as box:
            await box.verify()
            mailbox = box.follow()
            box.imap.append(mail("polled", message_id="<polled@x>"))
            await until(lambda: box.imap.flags().get("polled@x") is True)
            assert mailbox.idles is False and len(box.notes()) == 1
    finally:
        server.stop()


async def test_a_lost_connection_is_taken_up_again(
    tmp_path: Path, database_url: str, imap: ImapServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "adapters.imap")
    async with mail_in(tmp_path, database_url, imap) as box:
        await box.verify()
        mailbox = box.follow()
        await until(lambda: mailbox.connected)
        imap.stop()  # the server goes away (its mail with it: pymap keeps it in memory)
        await until(lambda: "trying again" in caplog.text)
        assert not mailbox.connected
        imap.start()
        imap.append(mail("after the outage", message_id="<back@x>"))
        await until(lambda: imap.flags().get("back@x") is True, seconds=30)
        assert len(box.notes()) == 1


def test_a_bad_url_is_one_clear_line_without_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAINBOT_DATA_DIR", str(tmp_path))
    for url, says in (
        (f"https://brain:{PASSWORD}@imap.example.org", "must start with imaps://"),
        ("imaps://imap.example.org", "names no user"),
        ("imaps://brain@imap.example.org", "has no password"),
        (f"imaps://brain:{PASSWORD}@imap.example.org:99999", "is not a URL"),
        (f"imaps://brain:{PASSWORD}@imap.example.org/?insecure=1", "takes no ?options"),
    ):
        monkeypatch.setenv("BRAINBOT_IMAP_URL", url)
        with pytest.raises(SettingsInvalid) as raised:
            load_settings()
        [line] = raised.value.lines
        assert line.startswith("BRAINBOT_IMAP_URL=") and says in line, line
        assert PASSWORD not in line
    monkeypatch.setenv("BRAINBOT_IMAP_URL", f"imaps://brain:{PASSWORD}@imap.example.org")
    monkeypatch.setenv("BRAINBOT_IMAP_CA_FILE", str(tmp_path / "nope.pem"))
    with pytest.raises(SettingsInvalid) as raised:
        load_settings()
    assert "BRAINBOT_IMAP_CA_FILE=" in raised.value.lines[0]


async def test_doctor_says_what_is_wrong_with_the_mailbox(
    tmp_path: Path, database_url: str, imap: ImapServer
) -> None:
    def settings(**values: str) -> object:
        base = {
            "BRAINBOT_IMAP_URL": imap.url,
            "BRAINBOT_IMAP_CA_FILE": imap.ca_file,
            "BRAINBOT_IMAP_AUTHSERV_ID": MX,
        }
        return make_settings(tmp_path, database_url, **{**base, **values})

    imap.append(mail("waiting", message_id="<w@x>"))
    [ok] = await mail_check(settings())  # type: ignore[arg-type]
    assert ok.level == "ok" and "INBOX on 127.0.0.1: 1 unread; IDLE" in ok.detail
    wrong = imap.url.replace(PASSWORD, "wrong-password")
    [bad] = await mail_check(settings(BRAINBOT_IMAP_URL=wrong))  # type: ignore[arg-type]
    assert bad.level == "problem" and "refused the login of brain@example.net" in bad.detail
    assert "wrong-password" not in bad.detail
    [untrusted] = await mail_check(settings(BRAINBOT_IMAP_CA_FILE=""))  # type: ignore[arg-type]
    assert "certificate is not trusted" in untrusted.detail
    assert "BRAINBOT_IMAP_CA_FILE" in untrusted.fix
    no_folder = imap.url.replace("/INBOX", "/Brain")
    [missing] = await mail_check(settings(BRAINBOT_IMAP_URL=no_folder))  # type: ignore[arg-type]
    assert "cannot open the folder 'Brain'" in missing.detail
    closed = imap.url.replace(str(imap.port), "1")
    [down] = await mail_check(settings(BRAINBOT_IMAP_URL=closed))  # type: ignore[arg-type]
    assert "cannot reach 127.0.0.1:1" in down.detail
    trusting = await mail_check(settings(BRAINBOT_IMAP_TRUST_UNAUTHENTICATED="true"))  # type: ignore[arg-type]
    assert [f.level for f in trusting] == ["ok", "warning"]
