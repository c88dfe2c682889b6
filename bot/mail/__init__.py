"""Email in: which mail is a person's (a verified address the receiving server vouches
for), and filing it as their note through the engine, like a chat message."""

from bot.mail.filing import MailFiler, MailRules, Taken
from bot.mail.reading import Mail, read_mail
from bot.mail.trust import Verdict, authenticated

__all__ = [
    "Mail",
    "MailFiler",
    "MailRules",
    "Taken",
    "Verdict",
    "authenticated",
    "read_mail",
]
