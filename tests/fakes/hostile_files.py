"""Files written to exhaust a reader, built here from their recipe (none is kept in the
repository): a PDF page whose one content stream inflates to a gibibyte, Word files of
63 MB of XML or 200,000 nested elements, a PNG that declares 10 gigapixels, a GIF of
10,000 frames, a 5 MB page of tiny elements. For the tests of bounded reading and for
`bench.readers`."""

from __future__ import annotations

import functools
import io
import struct
import zipfile
import zlib

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@functools.cache
def pdf_stream_bomb(inflated: int = 1 << 30) -> bytes:
    """One page whose content stream is FlateDecode of `inflated` bytes of "q Q "
    (save and restore the graphics state: valid, and nothing to draw), about 1 MB."""
    pattern = b"q Q " * (1 << 18)  # 1 MiB
    packer = zlib.compressobj(9)
    stream = b"".join(packer.compress(pattern) for _ in range(inflated // len(pattern)))
    stream += packer.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def docx_of(body_xml: str | bytes, *, styles_xml: str | None = None) -> bytes:
    """A Word file whose `word/document.xml` holds `body_xml` inside `<w:body>`."""
    body = body_xml.encode() if isinstance(body_xml, str) else body_xml
    document = (
        (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            f'<w:document xmlns:w="{_W}"><w:body>'
        ).encode()
        + body
        + b"</w:body></w:document>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/'
            'package/2006/content-types"/>',
        )
        archive.writestr("word/document.xml", document)
        if styles_xml is not None:
            archive.writestr("word/styles.xml", styles_xml)
    return out.getvalue()


@functools.cache
def docx_of_63_mb_xml() -> bytes:
    """About 190 KB zipped: two million short paragraphs, 63 MB of XML (under the
    64 MiB a document.xml may unpack to)."""
    paragraph = b"<w:p><w:r><w:t>word</w:t></w:r></w:p>"
    return docx_of(paragraph * (63_000_000 // len(paragraph)))


@functools.cache
def docx_nested(depth: int = 200_000) -> bytes:
    """About 21 KB zipped: content controls nested `depth` deep around one paragraph."""
    opening = b"<w:sdt><w:sdtContent>" * depth
    closing = b"</w:sdtContent></w:sdt>" * depth
    return docx_of(opening + b"<w:p><w:r><w:t>deep</w:t></w:r></w:p>" + closing)


def docx_billion_laughs() -> bytes:
    """Entities that each expand ten of the one before: a gigabyte from 1 KB."""
    entities = '<!ENTITY a0 "lol">' + "".join(
        f'<!ENTITY a{n} "{("&a" + str(n - 1) + ";") * 10}">' for n in range(1, 10)
    )
    document = (
        f'<?xml version="1.0"?><!DOCTYPE w:document [{entities}]>'
        f'<w:document xmlns:w="{_W}"><w:body><w:p><w:r><w:t>&a9;</w:t></w:r></w:p>'
        "</w:body></w:document>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("word/document.xml", document)
    return out.getvalue()


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_declaring(width: int = 100_000, height: int = 100_000) -> bytes:
    """A PNG header that declares `width` by `height` grey pixels, with one row of data."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    row = zlib.compress(b"\x00" + b"\x00" * min(width, 1000))
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", row)
        + _png_chunk(b"IEND", b"")
    )


@functools.cache
def gif_of_frames(frames: int = 10_000, size: int = 64) -> bytes:
    """An animated GIF of `frames` frames of `size` by `size`, each a dot further on."""
    from PIL import Image

    images = []
    for n in range(frames):
        image = Image.new("L", (size, size), 255)
        image.putpixel((n % size, n // size % size), 0)
        images.append(image)
    out = io.BytesIO()
    images[0].save(out, "GIF", save_all=True, append_images=images[1:], duration=10, loop=0)
    return out.getvalue()


@functools.cache
def page_of_tiny_elements(size: int = 5_000_000) -> bytes:
    """A page of about `size` bytes of nested tiny elements, each holding a word."""
    cell = b"<div><span><b>a</b></span></div>"
    return (
        b"<html><head><title>tiny</title></head><body>"
        + cell * (size // len(cell))
        + (b"</body></html>")
    )
