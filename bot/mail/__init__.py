"""Email in: which mail is a person's (a verified address the receiving server vouches
for), and filing it as their note through the engine, like a chat message."""

from bot.mail.as_note import Mail, read_mail
from bot.mail.filing import MailFiler, MailRules, Taken
from bot.mail.trust import TOPMOST, Verdict, authenticated, authserv_id_of

__all__ = [
    "TOPMOST",
    "Mail",
    "MailFiler",
    "MailRules",
    "Taken",
    "Verdict",
    "authenticated",
    "authserv_id_of",
    "read_mail",
]
