"""A repository file as the tools see it: decoded exactly, so it can be encoded back byte for byte.

The model reads and writes text; the repository holds bytes in whatever encoding and newline
style its owner chose. Decoding here is lossless (strict codecs only, the byte-order mark kept
aside), so a file written back differs from the original only where the model's edit landed:
a latin-1 file stays latin-1, CRLF stays CRLF, and a file that is not text (a PNG, random bytes)
is refused instead of being "repaired" into something else.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

SNIFF_BYTES = 8192
"""How much of a file the binary test looks at: git's own heuristic looks at the first 8000."""
CONTROL_SHARE = 0.1
"""Above this share of control bytes, an 8-bit file is data, not text in a legacy encoding."""

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8 with BOM"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
_CONTROL_BYTES = bytes(b for b in [*range(0x20), 0x7F] if b not in b"\t\n\r\f\v\x1b")
_C1 = re.compile(rb"[\x80-\x9f]")


@dataclass(frozen=True)
class TextFile:
    """A text file's exact content: `bom + text.encode(codec) == the file's bytes`."""

    text: str
    codec: str
    label: str
    """The encoding as a person names it: UTF-8, latin-1, UTF-16, ..."""
    bom: bytes = b""

    @property
    def newline(self) -> str:
        """The newline new lines get: CRLF when most of the file's lines end that way."""
        crlf = self.text.count("\r\n")
        return "\r\n" if crlf and crlf >= self.text.count("\n") - crlf else "\n"

    @property
    def view(self) -> str:
        """The text as the model sees it: line ends without their `\\r`."""
        return self.text.replace("\r\n", "\n")

    def note(self) -> str:
        """What a reader should know about this file that plain UTF-8 with LF would not say."""
        if self.label == "UTF-8":
            parts = []
        elif self.codec in ("latin-1", "cp1252"):  # the 8-bit fallback: lossless, maybe not right
            parts = [f"not UTF-8, read byte for byte as {self.label}"]
        else:
            parts = [f"{self.label} text"]
        if self.newline == "\r\n":
            parts.append("CRLF line endings")
        return f"({'; '.join(parts)}; edits keep the file that way)" if parts else ""

    def encode(self, text: str) -> bytes | str:
        """The bytes for `text` in this file's encoding, or why it cannot be written in it."""
        try:
            return self.bom + text.encode(self.codec)
        except UnicodeEncodeError as exc:
            char = exc.object[exc.start]
            return (
                f"{char!r} (U+{ord(char):04X}) cannot be written in this {self.label} file; "
                "use characters the encoding has"
            )


NEW_FILE = TextFile("", "utf-8", "UTF-8")
"""What a file the model creates is: UTF-8, its text exactly as written."""


@dataclass(frozen=True)
class NotText:
    """A file the text tools refuse, and why (one phrase: `is a binary file (12 bytes)`)."""

    reason: str


def decode_file(data: bytes) -> TextFile | NotText:
    """Decode without loss, or say why the bytes are not text the tools can edit safely."""
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                return TextFile(data[len(bom) :].decode(codec), codec, label, bom)
            except UnicodeDecodeError:
                return NotText(f"starts with a {label} byte-order mark but is not valid {label}")
    if b"\0" in data[:SNIFF_BYTES]:
        return NotText(f"is a binary file ({len(data)} bytes)")
    try:
        return TextFile(data.decode("utf-8"), "utf-8", "UTF-8")
    except UnicodeDecodeError:
        pass
    sample = data[:SNIFF_BYTES]
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    if controls > CONTROL_SHARE * len(sample):
        return NotText(f"is a binary file ({len(data)} bytes)")
    if _C1.search(data):
        try:  # Windows' superset of latin-1: smart quotes and the euro sign live there
            return TextFile(data.decode("cp1252"), "cp1252", "cp1252")
        except UnicodeDecodeError:
            pass
    return TextFile(data.decode("latin-1"), "latin-1", "latin-1")


def with_newlines(text: str, newline: str) -> str:
    """`text` (from the model, line ends in any style) with every line end as `newline`."""
    plain = text.replace("\r\n", "\n")
    return plain if newline == "\n" else plain.replace("\n", newline)


def printable(text: str) -> str:
    """Text safe to send anywhere UTF-8 goes (a trace, a model's API): a lone surrogate, which
    a model's JSON may carry, becomes U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    return text
