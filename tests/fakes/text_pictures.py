"""Pictures of known text, for the OCR tests and `bench.ocr`: notes in English, German and
Japanese (and Chinese) drawn the way a phone photo looks (slightly turned, soft, with
grain, as JPEG at about one megapixel), the real photos kept in tests/data/photos with
what they say, and the character error rate that scores a reading."""

from __future__ import annotations

import io
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import noto_cjk_sans_jp_regular
import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageFont

PHOTOS = Path(__file__).parent.parent / "data" / "photos"
# One font from the package index draws Latin with umlauts, kana and hanzi alike.
FONT = str(noto_cjk_sans_jp_regular.FONT_PATH)

NOTES: dict[str, tuple[str, ...]] = {
    "en": (
        "Meeting notes Tuesday 14 March",
        "Budget review moved to Friday afternoon",
        "Call the plumber about the kitchen sink",
        "Total amount due: 42.50 EUR",
        "Remember to buy milk, eggs and bread",
    ),
    "de": (
        "Größere Änderungen am Dachboden",
        "Übermorgen Straßenfest in München",
        "Schöne Grüße an die Großeltern",
        "Fußgängerzone ab 18 Uhr gesperrt",
        "Bitte die Rechnung prüfen und zahlen",
    ),
    "ja": (
        "東京駅で午後三時に待ち合わせ",
        "明日までに報告書を提出してください",
        "会議室の予約を忘れないでね",
        "新しいプロジェクトの打ち合わせ",
        "牛乳と卵とパンを買うこと",
    ),
    "zh": (
        "今天下午三点在会议室开会",
        "请在周五之前提交报告",
        "别忘了给妈妈打电话",
        "新项目的预算需要重新审核",
        "明天早上去超市买牛奶",
    ),
}


@dataclass(frozen=True, slots=True)
class Photo:
    file: str
    language: str
    kind: str  # "document", "screenshot", "poster" (flat, printed) or "sign" (a scene)
    text: str  # what it says, in reading order

    def data(self) -> bytes:
        return (PHOTOS / self.file).read_bytes()


REAL_PHOTOS = (
    Photo(
        "screenshot-paper-en.jpg",
        "en",
        "document",
        "3 MovieShots Dataset To facilitate the shot type analysis in videos, we collect "
        "MovieShots, a large-scale shot type annotation set that contains 46K shots from "
        "7858 movies. The details of this dataset are specified as follows.",
    ),
    Photo(
        "poster-who-en.jpg",
        "en",
        "poster",
        "Reduce your risk of coronavirus infection: Clean hands with soap and water or "
        "alcohol-based hand rub Cover nose and mouth when coughing and sneezing with tissue "
        "or flexed elbow Avoid close contact with anyone with cold or flu-like symptoms "
        "Thoroughly cook meat and eggs No unprotected contact with live wild or farm "
        "animals World Health Organization",
    ),
    Photo(
        "screenshot-news-ja.jpg",
        "ja",
        "screenshot",
        "【素敵な四季を探す旅】 春分 農村の学校で、伝統演劇の特別クラス 浙江省 "
        "週間時事用語(政府間覚書、マイクロドラマ、脳型知能など) "
        "三星堆の文化財レプリカが大阪・関西万博で展示へ "
        "中国テイストのストリートダンスでダンスバトルを盛り上げる...",
    ),
    Photo(
        "sign-minato-ja.jpg",
        "ja",
        "sign",
        "ポイ捨て禁止! NO LITTER 清潔できれいな港区を 港区 MINATO CITY",
    ),
    # Stored upside down, with EXIF orientation 3 saying so, as a phone does.
    Photo("upside-down-exif-zh.jpg", "zh", "document", "我是中国人"),
    Photo("sign-yuyuan-zh.jpg", "zh", "sign", "西 315 愚园路 东 309 W Yuyuan Rd. E"),
    Photo(
        "sign-louvre-fr.jpg",
        "fr",
        "sign",
        "Mairie du Ier Palais du LOUVRE LES ARTS DÉCORATIFS Musée du LOUVRE "
        "Théâtre du PALAIS-ROYAL",
    ),
)


def note_photo(lines: tuple[str, ...], *, size: tuple[int, int] = (1200, 860)) -> bytes:
    """`lines` drawn as a phone would photograph a printed note: ~1 MP JPEG."""
    background = (238, 236, 230)
    image = Image.new("RGB", size, background)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 44)
    for row, line in enumerate(lines):
        draw.text((70, 80 + row * 114), line, font=font, fill=(30, 30, 40))
    image = image.rotate(1.5, resample=Image.Resampling.BICUBIC, fillcolor=background)
    image = image.filter(ImageFilter.GaussianBlur(0.8))
    grain = random.Random(7)
    pixels = image.load()
    assert pixels is not None
    for _ in range(20_000):
        value = grain.randrange(150, 255)
        pixels[grain.randrange(size[0]), grain.randrange(size[1])] = (value, value, value)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


def char_error_rate(expected: str, read: str) -> float:
    """Edits (Levenshtein) per expected character, whitespace ignored: a line break
    where the picture had a space, or none between CJK characters, is not an error."""
    want = "".join(expected.split())
    got = "".join(read.split())
    previous = list(range(len(got) + 1))
    for i, a in enumerate(want, 1):
        current = [i]
        for j, b in enumerate(got, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1] / max(1, len(want))


def words_found(expected: str, read: str) -> float:
    """The share of the expected words that are words of the reading: what a word search
    finds. Run-together words ("Cleanhandswithsoap") count as missed."""
    strip = ".,:;!?()\"'"
    want = [word.strip(strip) for word in expected.split() if word.strip(strip)]
    got = {word.strip(strip) for word in read.split()}
    return sum(word in got for word in want) / max(1, len(want))


# A test whose photo must be read needs Tesseract (`make test` installs it where it can).
needs_ocr = pytest.mark.skipif(
    shutil.which("tesseract") is None,
    reason="OCR is not installed here; `make test` installs Tesseract as root on Debian",
)
