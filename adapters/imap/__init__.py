"""Email in: the IMAP folder BRAINBOT_IMAP_URL names, followed (IDLE, else polls).
The transport only: which mail is whose, and what becomes of it, is bot.mail's."""

from adapters.imap.mailbox import Checked, Mailbox, MailboxError, OnMail, Taken
from adapters.imap.url import EXAMPLE, BadMailboxUrl, MailboxUrl, mailbox_url

__all__ = [
    "EXAMPLE",
    "BadMailboxUrl",
    "Checked",
    "Mailbox",
    "MailboxError",
    "MailboxUrl",
    "OnMail",
    "Taken",
    "mailbox_url",
]
