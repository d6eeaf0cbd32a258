#!/usr/bin/env python3
"""Independent decoder of DMC3 motions (.mot) and archives (.pac).

Written from the motion and archive layouts alone (the team's format notes, which
`docs/formats.md` now publishes), not from rigtrip's sources.
Standard library only.

    python3 motdecode.py FILE...   # prints one JSON document: {"files": [...]}

Per file: "kind" ("mot" or "pac"); a motion lists its tracks in file order, each with node,
channel name (tx ty tz rx ry rz sx sy sz for mask bits 8..0), compression, signed start and
every key as [frame, bit15, value, in, out], numbers given as f32 bit patterns ("0x%08x") so
that NaN and infinities compare exactly. An archive lists, per slot, its offset, and per member
(offset order) its decoded motion or "opaque".

Decoding: q * range / 65535 + min, computed in double precision and rounded once to f32.
Compressions 0 and 1 are never seen in the census; this decoder takes the layout rigtrip
documents as its assumption (u16 time, u16 padding, then f32 value [, f32 in, f32 out];
compression 1 carries the 16 bytes of tangent ranges like compression 3).
"""
import json
import struct
import sys

CHANNELS = ["tx", "ty", "tz", "rx", "ry", "rz", "sx", "sy", "sz"]


def f32bits(x):
    """Round a Python float to f32 and return its bit pattern as 0x hex."""
    try:
        b = struct.pack("<f", x)
    except OverflowError:
        b = struct.pack("<f", float("inf") if x > 0 else float("-inf"))
    return "0x%08x" % struct.unpack("<I", b)[0]


def rawbits(b, at):
    return "0x%08x" % struct.unpack_from("<I", b, at)[0]


def f32(b, at):
    return struct.unpack_from("<f", b, at)[0]


class Bad(Exception):
    pass


def need(b, at, n):
    if at < 0 or at + n > len(b):
        raise Bad("read of %d bytes at 0x%x past end 0x%x" % (n, at, len(b)))


def decode_mot(b):
    need(b, 0, 0x1E)
    if b[4:8] != b"MOT\0":
        raise Bad("magic")
    hsize = struct.unpack_from("<I", b, 0)[0]
    n = struct.unpack_from("<H", b, 0x1C)[0]
    if hsize < 0x1E + 2 * n:
        raise Bad("header size")
    need(b, 0x1E, 2 * n)
    masks = list(struct.unpack_from("<%dH" % n, b, 0x1E))
    targets = []
    for node, m in enumerate(masks):
        if m & ~0x1FF:
            raise Bad("mask")
        for bit in range(8, -1, -1):
            if m & (1 << bit):
                targets.append((node, CHANNELS[8 - bit]))
    need(b, hsize, 4)
    if struct.unpack_from("<I", b, hsize)[0] != len(targets):
        raise Bad("track count")
    at = hsize + 4
    tracks = []
    for node, ch in targets:
        need(b, at, 16)
        span, count, comp, start = struct.unpack_from("<HHHh", b, at)
        vmin, vrange = f32(b, at + 8), f32(b, at + 12)
        if comp > 3:
            raise Bad("compression")
        hermite = comp in (1, 3)
        keylen = {0: 8, 1: 16, 2: 4, 3: 8}[comp]
        fixed = 32 if hermite else 16
        if span < fixed + keylen * count:
            raise Bad("span")
        need(b, at, span)
        if hermite:
            imin, irange, omin, orange = struct.unpack_from("<4f", b, at + 16)
        keys = []
        k = at + fixed
        for _ in range(count):
            t = struct.unpack_from("<H", b, k)[0]
            frame, flag = t & 0x7FFF, bool(t >> 15)
            zero = "0x00000000"
            if comp == 0:
                keys.append([frame, flag, rawbits(b, k + 4), zero, zero])
            elif comp == 1:
                keys.append([frame, flag, rawbits(b, k + 4), rawbits(b, k + 8), rawbits(b, k + 12)])
            elif comp == 2:
                q = struct.unpack_from("<H", b, k + 2)[0]
                keys.append([frame, flag, f32bits(q * vrange / 65535.0 + vmin), zero, zero])
            else:
                q, qi, qo = struct.unpack_from("<3H", b, k + 2)
                keys.append([
                    frame,
                    flag,
                    f32bits(q * vrange / 65535.0 + vmin),
                    f32bits(qi * irange / 65535.0 + imin),
                    f32bits(qo * orange / 65535.0 + omin),
                ])
            k += keylen
        tracks.append({"node": node, "channel": ch, "compression": comp, "start": start, "keys": keys})
        at += span
    return {"kind": "mot", "tracks": tracks}


def decode_pac(b):
    need(b, 0, 8)
    if b[0:4] != b"PAC\0":
        raise Bad("magic")
    count = struct.unpack_from("<I", b, 4)[0]
    need(b, 8, 4 * count)
    offsets = list(struct.unpack_from("<%dI" % count, b, 8))
    table_end = 8 + 4 * count
    for o in offsets:
        if o and (o < table_end or o >= len(b)):
            raise Bad("slot offset")
    starts = sorted(set(o for o in offsets if o))
    members = []
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else len(b)
        try:
            m = decode_mot(b[s:e])
        except Bad:
            m = "opaque"
        except struct.error:
            m = "opaque"
        members.append({"offset": s, "motion": m})
    return {"kind": "pac", "offsets": offsets, "members": members}


def main():
    out = []
    for path in sys.argv[1:]:
        b = open(path, "rb").read()
        try:
            doc = decode_pac(b) if b[:4] == b"PAC\0" else decode_mot(b)
        except (Bad, struct.error) as e:
            doc = {"kind": "rejected", "why": str(e)}
        doc["path"] = path
        out.append(doc)
    json.dump({"files": out}, sys.stdout)


if __name__ == "__main__":
    main()
