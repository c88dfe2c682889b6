"""What a new note is connected to: the notes it is most related to, suggested (or
linked) after its capture's reply."""

from bot.connect.link_button import LinkButton
from bot.connect.related import Related, most_related, related_enough, with_related

__all__ = ["LinkButton", "Related", "most_related", "related_enough", "with_related"]
