#!/usr/bin/env python3
"""Independent decoder and player of DMC3 motions (.mot) and archives (.pac).

Written from the motion and archive layouts alone (the team's format notes, which
`docs/formats.md` now publishes, including what the game's executable does with a motion), not
from rigtrip's sources. Standard library only.

    python3 motdecode.py FILE...   # prints one JSON document: {"files": [...]}

Per file: "kind" ("mot" or "pac"); a motion lists its tracks in file order, each with node,
channel name, compression, signed time offset, every key as
[frame, bit15, time, segment, value, in, out] and "plays": the curve's value at every whole frame
from one before its first key to one after its last (at most 400 of them), as the game plays the
keys. Key values and tangents are given as f32 bit patterns ("0x%08x") so that NaN and
infinities compare exactly; "plays" values are plain numbers (null when not finite). An archive
lists, per slot, its offset, and per member (offset order) its decoded motion or "opaque".

The executable's reading (EXE):
- mask bits 0x040, 0x080, 0x100 are translation X, Y, Z; 0x008, 0x010, 0x020 rotation X, Y, Z;
  0x001, 0x002, 0x004 scale X, Y, Z; a node's tracks come in that order (tx ty tz rx ry rz sx sy
  sz), not in bit order;
- track head: u16 span, u16 key count (read as signed), u16 compression, i16 time offset, f32
  min, f32 range; compression 3 then four f32 tangent ranges; compressions 0 and 1 are f32 keys
  of 8 and 16 bytes (their inner layout is the notes' assumption: u16 time, u16 padding, f32
  value [, f32 in, f32 out]);
- a key plays at (time & 0x7FFF) + time offset;
- between two keys, compression 3 is Hermite when the left key's bit 15 is set and linear when
  clear; compression 2 and 0 are linear, 1 Hermite; Hermite: h00 v0 + h10 d out0 + h01 v1 +
  h11 d in1 with tangents per frame; end values held (two keys at one frame: from that frame
  on the segment after the later one plays).

Decoding: q * range / 65535 + min, computed in double precision and rounded once to f32.
"""
import json
import math
import struct
import sys

CHANNELS = ["tx", "ty", "tz", "rx", "ry", "rz", "sx", "sy", "sz"]
BITS = [0x040, 0x080, 0x100, 0x008, 0x010, 0x020, 0x001, 0x002, 0x004]
MAX_PLAYS = 400


def to_f32(x):
    """Round a Python float to f32 (overflow to infinity)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def f32bits(x):
    """The f32 bit pattern of a float already rounded to f32, as 0x hex."""
    try:
        b = struct.pack("<f", x)
    except OverflowError:
        b = struct.pack("<f", float("inf") if x > 0 else float("-inf"))
    return "0x%08x" % struct.unpack("<I", b)[0]


def f32(b, at):
    return struct.unpack_from("<f", b, at)[0]


class Bad(Exception):
    pass


def need(b, at, n):
    if at < 0 or at + n > len(b):
        raise Bad("read of %d bytes at 0x%x past end 0x%x" % (n, at, len(b)))


def value_at(keys, f):
    """The value keys [time, hermite, value, in, out] play at frame f."""
    if not keys:
        return None
    if f < keys[0][0]:
        return keys[0][2]
    if f >= keys[-1][0]:
        return keys[-1][2]
    k = max(i for i, key in enumerate(keys) if key[0] <= f)
    t0, hermite, v0, _, out0 = keys[k]
    t1, _, v1, in1, _ = keys[k + 1]
    d = t1 - t0
    u = (f - t0) / d
    if not hermite:
        return v0 + (v1 - v0) * u
    h00 = (1 + 2 * u) * (1 - u) ** 2
    h10 = u * (1 - u) ** 2
    h01 = u * u * (3 - 2 * u)
    h11 = u * u * (u - 1)
    return h00 * v0 + h10 * d * out0 + h01 * v1 + h11 * d * in1


def plays(keys):
    """[frame, value] at whole frames from one before the first key to one after the last."""
    if not keys:
        return []
    first = math.floor(keys[0][0]) - 1
    last = min(math.ceil(keys[-1][0]) + 1, first + MAX_PLAYS - 1)
    out = []
    for f in range(first, last + 1):
        v = value_at(keys, float(f))
        out.append([f, v if v is not None and math.isfinite(v) else None])
    return out


def read_track(b, at, node, ch):
    need(b, at, 16)
    span, count, comp, offset = struct.unpack_from("<HhHh", b, at)
    if count < 0:
        raise Bad("negative key count")
    vmin, vrange = f32(b, at + 8), f32(b, at + 12)
    if comp > 3:
        raise Bad("compression")
    keylen = {0: 8, 1: 16, 2: 4, 3: 8}[comp]
    fixed = 32 if comp == 3 else 16
    if span < fixed + keylen * count:
        raise Bad("span")
    need(b, at, span)
    if comp == 3:
        imin, irange, omin, orange = struct.unpack_from("<4f", b, at + 16)
    keys = []
    played = []
    k = at + fixed
    for _ in range(count):
        t = struct.unpack_from("<H", b, k)[0]
        frame, flag = t & 0x7FFF, bool(t >> 15)
        time = frame + offset
        if comp == 0:
            v, i, o, hermite = f32(b, k + 4), 0.0, 0.0, False
        elif comp == 1:
            v, i, o = struct.unpack_from("<3f", b, k + 4)
            hermite = True
        elif comp == 2:
            q = struct.unpack_from("<H", b, k + 2)[0]
            v, i, o, hermite = to_f32(q * vrange / 65535.0 + vmin), 0.0, 0.0, False
        else:
            q, qi, qo = struct.unpack_from("<3H", b, k + 2)
            v = to_f32(q * vrange / 65535.0 + vmin)
            i = to_f32(qi * irange / 65535.0 + imin)
            o = to_f32(qo * orange / 65535.0 + omin)
            hermite = flag
        segment = "hermite" if hermite else "linear"
        keys.append([frame, flag, time, segment, f32bits(v), f32bits(i), f32bits(o)])
        played.append([time, hermite, v, i, o])
        k += keylen
    track = {
        "node": node,
        "channel": ch,
        "compression": comp,
        "time_offset": offset,
        "keys": keys,
        "plays": plays(played),
    }
    return track, span


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
        for ch, bit in zip(CHANNELS, BITS):
            if m & bit:
                targets.append((node, ch))
    need(b, hsize, 4)
    if struct.unpack_from("<I", b, hsize)[0] != len(targets):
        raise Bad("track count")
    at = hsize + 4
    tracks = []
    for node, ch in targets:
        track, span = read_track(b, at, node, ch)
        tracks.append(track)
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
    json.dump({"files": out}, sys.stdout, allow_nan=False)


if __name__ == "__main__":
    main()
