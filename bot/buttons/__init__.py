"""What a button press does: approve or reject a held change, file an inbox note,
undo a change, act on a digest item (an older note it brought back, or a mention
it found) or a reminder, open an answer's source, settle a sync conflict."""

from bot.buttons.approvals import Approvals
from bot.buttons.digest import DigestButtons
from bot.buttons.dispatch import ButtonHandler, Buttons, Refused, pressed
from bot.buttons.filing import Filing
from bot.buttons.reminders import ReminderButtons
from bot.buttons.resurface import PastButtons
from bot.buttons.sources import SourceButtons
from bot.buttons.sync_conflicts import ConflictButtons, conflict_message
from bot.buttons.undo import UndoButton
from bot.buttons.unlinked_mentions import MentionLinks

__all__ = [
    "Approvals",
    "ButtonHandler",
    "Buttons",
    "ConflictButtons",
    "DigestButtons",
    "Filing",
    "MentionLinks",
    "PastButtons",
    "Refused",
    "ReminderButtons",
    "SourceButtons",
    "UndoButton",
    "conflict_message",
    "pressed",
]
