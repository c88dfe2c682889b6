"""What a message is, told without a model: a question, a change request, small talk,
or a thought to keep. The engine uses it to decide what a turn that wrote nothing
means: a thought the model failed to file is kept in the inbox; a question or a
greeting is not filed."""

from __future__ import annotations

import re
from typing import Literal

from bot.commands.questions import is_question

Kind = Literal["question", "change", "small_talk", "thought"]

# A request to change notes opens with a verb and points at a note ("move that to
# projects", "delete the tea note"); "update Sarah on the budget" is a thought. When
# unsure, a message counts as a thought: keeping one too many beats losing one.
_CHANGE = re.compile(
    r"^(?:please\s+|bitte\s+)?(?:move|delete|remove|undo|revert|rename|update|change|edit|"
    r"append|tag|untag|refile|archive|verschieb\w*|lösch\w*|ändere?|entfern\w*)\b",
    re.IGNORECASE,
)
_POINTS_AT_A_NOTE = re.compile(
    r"\b(?:note|notes|entry|that|this|it|last|notiz\w*|eintrag|das|dies\w*|letzte\w*)\b|\[\[|\.md\b",
    re.IGNORECASE,
)
_ONLY_UNDO = re.compile(r"^\s*(?:undo|revert|rückgängig)\W*$", re.IGNORECASE)
_CHANGE_KO = re.compile(r"(?:삭제|지워|옮겨|이동|취소|되돌려|수정|바꿔)")
# Opening words of a request to be shown something, beyond the question words.
_SHOW = re.compile(
    r"^(?:please\s+|bitte\s+)?(?:list\s+(?:my|all|the)|summari[sz]e|recap|digest|"
    r"zeig\w*|suche|finde|gib\s+mir|wer|wie|wann|welche\w*)\b",
    re.IGNORECASE,
)
_DIGEST = re.compile(r"\b(?:digest|zusammenfassung)\b|요약", re.IGNORECASE)
_ASK_KO = re.compile(r"(?:뭐|무엇|어디|언제|누구|어떻게|알려|보여|찾아)")
_SMALL_TALK = frozenset(
    re.findall(
        r"\S+",
        """hi hello hey hiya yo thanks thank you thx ty ok okay k cool great nice good
        morning evening night bye cheers sure yes yeah yep no nope fine awesome perfect
        lol haha hallo danke servus moin tschüss gut guten morgen abend nacht ja nein
        super 안녕 안녕하세요 고마워 고마워요 감사합니다 네 응 좋아 좋아요""",
    )
)
_WORD = re.compile(r"[^\W\d_]+")


def kind_of(text: str) -> Kind:
    text = text.strip()
    if is_small_talk(text):
        return "small_talk"
    if _ONLY_UNDO.match(text) or (_CHANGE.match(text) and _POINTS_AT_A_NOTE.search(text)):
        return "change"
    if _CHANGE_KO.search(text) and len(text) < 60:
        return "change"
    if is_question(text) or _SHOW.match(text) or _DIGEST.search(text):
        return "question"
    if _ASK_KO.search(text) and len(text) < 60:
        return "question"
    return "thought"


def asks_for_digest(text: str) -> bool:
    return bool(_DIGEST.search(text))


def is_small_talk(text: str) -> bool:
    """A greeting, a thanks, an ok: a few words, every one of them small talk."""
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return not any(c.isalnum() for c in text)  # an emoji or "!!" alone
    return len(words) <= 4 and all(w in _SMALL_TALK for w in words)
