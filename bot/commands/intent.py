"""What a message is, told without a model: a question, a change request, small talk,
or a thought to keep; a leave word; and the words of a question worth searching for.
Without a model the router answers a question instead of filing it; with one, the
verdict (bot.turn.verdict) uses it to decide what a turn that wrote nothing means: a
thought the model failed to file is kept in the inbox, a question or a greeting is
not filed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bot.tools import asks_to_change

Kind = Literal["question", "change", "small_talk", "thought"]

QUESTION_WORDS = frozenset(
    {"what", "where", "when", "who", "which", "how", "did", "find", "show", "search"}
)
# "do" starts a to-do as often as a question: only "do I / do we ..." asks something.
_DO_QUESTION = re.compile(r"^(?:do|does)\s+(?:i|we|you|they|he|she|it|my|our)\b", re.IGNORECASE)
# Openings of a thought that merely start with a question word.
_THOUGHT_OPENINGS = re.compile(r"^(?:what if|how about)\b", re.IGNORECASE)
_QUESTION_WORD = re.compile(r"[\w'\u2019-]+")
_CONTRACTED = re.compile(r"['\u2019]")  # "what's": "what" and its "is"
_FILLER = frozenset(
    re.findall(
        r"\S+",
        """a about all an and any anything are did do does find for from give have how i
        i've in is it me my note notes of on or remind said say search show something tell
        that the there to was we were what when where which who with write written wrote
        you your""",
    )
)
LEAVE_WORDS = frozenset({"exit", "quit", "bye", "goodbye", "/quit", "/exit", ":q", "logout"})


def is_leave_word(text: str) -> bool:
    """ "exit", "quit", "/quit"... : a person trying to end the chat, not a thought."""
    return text.strip().strip(".!").lower() in LEAVE_WORDS


# Other openings that ask about the notes, in English, German and French, typed
# without a "?": "tell me about the budget", "anything on Sarah", "wann ist das
# Treffen", "quand est la réunion". A question filed as a thought is a note nobody
# wanted and an answer nobody got.
_ASKS = re.compile(
    r"^(?:please\s+|bitte\s+|s'il te pla[iî]t,?\s+)?(?:"
    r"tell\s+me\s+(?:about|what|where|when|who|how|which)\b|"
    r"remind\s+me\s+(?:what|who|where|when|how|which)\b|"
    r"(?:is|are)\s+there\s+(?:any|anything|a|notes?)\b|"
    r"(?:anything|something)\s+(?:on|about|regarding)\b|"
    r"(?:all\s+)?my\s+notes?\s+(?:on|about|regarding)\b|"
    r"give\s+me\s+(?:my|the|all)\b|have\s+i\b|look\s+up\b|"
    r"was\s+(?:hab|habe|habt|ist|sind|war|waren|weiß|steht|stand)\b|"
    r"(?:wo|wer|wie|wann|welche\w*|gibt\s+es|habe?\s+ich)\b|"
    r"qu['\u2019]est-ce\b|est-ce\s+que\b|(?:quand|où|qui|quoi|quel\w*)\b|"
    r"comment\s+(?:est|s['\u2019]|va|faire|ai)|ai-je\b|y\s+a-t-il\b)",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    """A line ending in `?`, or opening with what/where/when/who/which/how/did/find/show
    ("what's" too), or "do I/we...", or another way to ask (see _ASKS); "what if ..."
    and "how about ..." are ideas, not questions."""
    text = text.strip()
    if _THOUGHT_OPENINGS.match(text) and not text.endswith("?"):
        return False
    if text.endswith("?"):
        return True
    first = _QUESTION_WORD.match(text)
    if first and _CONTRACTED.split(first.group().lower())[0] in QUESTION_WORDS:
        return True
    # "Wer: Sarah, wann: Montag" is a note with fields, not a question.
    return bool(_DO_QUESTION.match(text) or (_ASKS.match(text) and ":" not in text))


# A message's parts that each ask or tell: its sentences, and the clauses of one
# ("got the milk, what's left?").
_PARTS = re.compile(r"(?<=[.!?])\s+|[,;]\s+|\n+")
# A request put as a question: "can you add eggs to my list?", "kannst du ...".
_POLITE = re.compile(
    r"^(?:please\s+|bitte\s+)?(?:(?:can|could|would|will)\s+you|(?:kannst|könntest)\s+du|"
    r"(?:können|könnten)\s+sie|(?:peux|pourrais)-tu|(?:pouvez|pourriez)-vous|tu\s+peux)\b",
    re.IGNORECASE,
)
# "did the laundry" says it was done; "did Sarah call" asks.
_DID_IT = re.compile(r"^did\s+(?:the|a|an|some|all|my|our)\b", re.IGNORECASE)


def only_asks(text: str) -> bool:
    """Whether a message asks and asks for nothing to be done: a part of it is a
    question, and no other part asks for a change ("add", "tag", "done", "got":
    bot.tools.asks_to_change). "What's new about the budget?" and "did I pay the
    invoice?" only ask; "got the milk, what's left?" and "can you add eggs to my
    list?" ask for a change too. What a model changes answering a message that only
    asks waits for Approve."""
    parts = [part for part in (p.strip() for p in _PARTS.split(text)) if part]
    asking = [is_question(p) and (p.endswith("?") or not _DID_IT.match(p)) for p in parts]
    if not any(asking):
        return False  # nothing is asked: what it asks to change does not matter
    for part, asks in zip(parts, asking, strict=True):
        polite = _POLITE.match(part)
        if polite is not None and asks_to_change(part[polite.end() :]):
            return False
        if not asks and asks_to_change(part):
            return False
    return True


def search_words(question: str) -> str:
    """The words of a question worth searching for: "what did I write about tomatoes?"
    → "tomatoes"; the whole question when nothing else is left."""
    words = [w for w in _QUESTION_WORD.findall(question) if w.lower() not in _FILLER]
    return " ".join(words) or question.strip(" ?")


# A request to change notes opens with a verb and points at a note ("move that to
# projects", "delete the tea note"); "update Sarah on the budget" is a thought. When
# unsure, a message counts as a thought: keeping one too many beats losing one.
_CHANGE = re.compile(
    r"^(?:please\s+|bitte\s+)?(?:move|delete|remove|undo|revert|rename|update|change|edit|"
    r"append|prepend|replace|tag|untag|refile|archive|verschieb\w*|lösch\w*|ändere?|"
    r"entfern\w*|ersetz\w*)\b",
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
_LETTERS = re.compile(r"[^\W\d_]+")


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


@dataclass(frozen=True, slots=True)
class Intent:
    """What a message is, decided once and carried through its turn: its kind, and
    whether it only asks (`only_asks`: what a model changes answering it waits)."""

    kind: Kind
    only_asks: bool


def intent_of(text: str) -> Intent:
    """The kind of `text` and whether it only asks, read together."""
    return Intent(kind_of(text), only_asks(text))


def asks_for_digest(text: str) -> bool:
    return bool(_DIGEST.search(text))


def is_small_talk(text: str) -> bool:
    """A greeting, a thanks, an ok: a few words, every one of them small talk."""
    words = [w.lower() for w in _LETTERS.findall(text)]
    if not words:
        return not any(c.isalnum() for c in text)  # an emoji or "!!" alone
    return len(words) <= 4 and all(w in _SMALL_TALK for w in words)
