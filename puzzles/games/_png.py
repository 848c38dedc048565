"""PNG images put together from horizontal bands of rows, each compressed once: a board image then costs a join, not
a deflate of the whole picture (SuperplyM and SudoKillM show one with every observation). Standard library only.

A band is a zlib raw-deflate stream ended by a full flush, so bands concatenate into one valid stream; the zlib
trailer's Adler-32 is combined from the bands' own checksums (zlib's adler32_combine).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

_ADLER_BASE = 65521


@dataclass(frozen=True)
class Band:
    """Scanlines of a PNG image (each with its filter byte), compressed on their own."""

    size: int
    adler: int
    deflated: bytes


def band(scanlines: bytes) -> Band:
    """The band holding `scanlines`: filter byte 0 and the packed pixels of each row, rows in order."""
    packer = zlib.compressobj(1, zlib.DEFLATED, -15)
    return Band(len(scanlines), zlib.adler32(scanlines), packer.compress(scanlines) + packer.flush(zlib.Z_FULL_FLUSH))


def palette_png(width: int, height: int, depth: int, palette: Sequence[tuple[int, int, int]], bands: Sequence[Band]) -> bytes:
    """A palette PNG of `depth` bits a pixel whose rows are the bands' rows, top to bottom."""
    adler = 1  # the Adler-32 of nothing
    for part in bands:
        adler = _adler_combine(adler, part.adler, part.size)
    last = b"\x03\x00"  # a final, empty block
    stream = b"\x78\x01" + b"".join(part.deflated for part in bands) + last + struct.pack(">I", adler)
    header = struct.pack(">IIBBBBB", width, height, depth, 3, 0, 0, 0)
    colours = bytes(value for colour in palette for value in colour)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"PLTE", colours) + _chunk(b"IDAT", stream) + _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _adler_combine(first: int, second: int, second_size: int) -> int:
    """The Adler-32 of two byte strings joined, from theirs and the second one's length."""
    rem = second_size % _ADLER_BASE
    low = (first & 0xFFFF) + (second & 0xFFFF) + _ADLER_BASE - 1
    high = (rem * (first & 0xFFFF)) % _ADLER_BASE + (first >> 16) + (second >> 16) + _ADLER_BASE - rem
    return (low % _ADLER_BASE) | ((high % _ADLER_BASE) << 16)
