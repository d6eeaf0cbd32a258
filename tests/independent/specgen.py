#!/usr/bin/env python3
"""Independent corpus generator / acceptance oracle for the DMC3 node-domain
block, the DMC3 MOD/SCM container and DBnnHIE.BIN.

Written only from the team's format notes (published as docs/formats.md) and
public research on the DMC3 node domain and DBnnHIE.BIN.  No code of the tool under
test was consulted.  Standard library only.

    python3 specgen.py OUTDIR [--seed S] [--count N]
    python3 specgen.py --selftest

Expected skeletons are never taken from the generator's intentions: every
accepted file is parsed back from its bytes and the gate / world positions are
computed from the stored values (f32 widened to double).  Every file is also run
through a small spec-level structural validator, and its accept/reject verdict
must agree with the "expect" written into the manifest.
"""

import argparse
import json
import math
import os
import random
import struct

# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------


def align4(n):
    return (n + 3) & ~3


def align16(n):
    return (n + 15) & ~15


def f32_round(x):
    """The double value of x after storing it as an f32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def u16(data, off):
    return struct.unpack_from("<H", data, off)[0]


def s16(data, off):
    return struct.unpack_from("<h", data, off)[0]


def u32(data, off):
    return struct.unpack_from("<I", data, off)[0]


def u64(data, off):
    return struct.unpack_from("<Q", data, off)[0]


# --------------------------------------------------------------------------
# row-vector 4x4 matrix math (plain Python floats, double precision)
# --------------------------------------------------------------------------

IDENTITY = [[1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0]]


def mat_mul(a, b):
    """Plain matrix product a*b (4x4, row-major lists)."""
    return [[a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j] + a[i][3] * b[3][j]
             for j in range(4)] for i in range(4)]


# Row-vector matrices are the transposes of the usual column-vector ones:
# a point p (row) is transformed as p' = p * M.
def rot_x_row(a):
    c, s = math.cos(a), math.sin(a)
    return [[1.0, 0.0, 0.0, 0.0],
            [0.0, c, s, 0.0],
            [0.0, -s, c, 0.0],
            [0.0, 0.0, 0.0, 1.0]]


def rot_y_row(a):
    c, s = math.cos(a), math.sin(a)
    return [[c, 0.0, -s, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [s, 0.0, c, 0.0],
            [0.0, 0.0, 0.0, 1.0]]


def rot_z_row(a):
    c, s = math.cos(a), math.sin(a)
    return [[c, s, 0.0, 0.0],
            [-s, c, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0]]


def translate_row(tx, ty, tz):
    return [[1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [tx, ty, tz, 1.0]]


def local_row(tx, ty, tz, rx, ry, rz, order="XYZ"):
    """Row-vector local matrix: rotate about the axes in `order` (first letter
    applied first), then translate.  For order XYZ this is the transpose of the
    column-vector T * Rz * Ry * Rx."""
    rot = {"X": rot_x_row(rx), "Y": rot_y_row(ry), "Z": rot_z_row(rz)}
    m = IDENTITY
    for axis in order:
        m = mat_mul(m, rot[axis])
    return mat_mul(m, translate_row(tx, ty, tz))


def row3(m):
    return [m[3][0], m[3][1], m[3][2]]


# --------------------------------------------------------------------------
# DMC3 node-domain block: reader, gate, world positions (spec section 1)
# --------------------------------------------------------------------------


def block_layout(data, X, N):
    """(rel dict, sizes dict) of a node-domain block at absolute offset X."""
    prel, orel, grel, trel = struct.unpack_from("<4I", data, X)
    rel = {"parent": prel, "order": orel, "group": grel, "xforms": trel}
    sizes = {"parent": N, "order": N, "group": N, "xforms": 0x20 * N}
    return rel, sizes


def read_block(data, X, N):
    rel, _ = block_layout(data, X, N)
    parents = list(struct.unpack_from("<%db" % N, data, X + rel["parent"]))
    order = list(data[X + rel["order"]:X + rel["order"] + N])
    xf = [struct.unpack_from("<8f", data, X + rel["xforms"] + 0x20 * k) for k in range(N)]
    return parents, order, xf


def dmc3_gate(parents, order, xf):
    """The six gate conditions of spec section 1.  Returns (ok, reason)."""
    n = len(order)
    # 1. the order array is a full permutation
    if sorted(order) != list(range(n)):
        return False, "1: order array is not a permutation of 0..N-1"
    if n == 0:
        return False, "no nodes"
    # 2/3. the root stands at order position 0 and its parent is -1
    if parents[0] != -1:
        return False, "2/3: order position 0 does not hold a root with parent -1"
    # 4/5. every non-root parent already evaluated (=> acyclic)
    evaluated = {order[0]}
    for i in range(1, n):
        p = parents[i]
        if p == -1:
            # never generated: a second root at a later position is not
            # described by the spec; treat conservatively as a failure.
            return False, "2/3: second parent -1 at order position %d" % i
        if p not in evaluated:
            return False, "4: parent %d of order position %d not evaluated earlier" % (p, i)
        evaluated.add(order[i])
    # 6. every local transform record complete and finite (the fields the
    #    local path reads: tx ty tz rx ry rz; +0x0C and +0x1C are not read)
    for node, rec in enumerate(xf):
        for k in (0, 1, 2, 4, 5, 6):
            if not math.isfinite(rec[k]):
                return False, "6: transform of node %d field +0x%02X not finite" % (node, 4 * k)
    return True, ""


def dmc3_world(parents, order, xf):
    """World positions per NODE index, row-vector composition."""
    n = len(order)
    world = [None] * n
    for i in range(n):
        node = order[i]
        tx, ty, tz, _mag, rx, ry, rz, _w = xf[node]
        local = local_row(tx, ty, tz, rx, ry, rz)
        if i == 0:
            world[node] = local  # rootBase = identity
        else:
            world[node] = mat_mul(local, world[parents[i]])  # parent is a NODE index
    return [row3(m) for m in world]


def dmc3_skeleton(data, X, N):
    parents, order, xf = read_block(data, X, N)
    ok, why = dmc3_gate(parents, order, xf)
    sk = {"offset": X, "gate_ok": ok, "world": dmc3_world(parents, order, xf) if ok else None}
    if not ok:
        sk["note"] = why
    return sk


# --------------------------------------------------------------------------
# DBnnHIE.BIN reader (spec section 3)
# --------------------------------------------------------------------------


def hie_extent(parts):
    return 0x34 + 0x28 * max(parts, 0)


def hie_skeleton(data, off):
    parts = s16(data, off)
    depths = []
    offs = []
    for i in range(max(parts, 0)):
        p = off + 0x34 + 0x28 * i
        depths.append(u16(data, p + 2))
        offs.append(struct.unpack_from("<3i", data, p + 0x14))
    ok, why = True, ""
    if parts < 0:
        ok, why = False, "parts < 0"
    elif parts > 0 and depths[0] != 1:
        ok, why = False, "first part depth %d != 1" % depths[0]
    else:
        for i in range(1, parts):
            if depths[i] < 1:
                ok, why = False, "part %d depth %d < 1" % (i, depths[i])
                break
            if depths[i] > depths[i - 1] + 1:
                ok, why = False, "part %d depth jumps %d -> %d" % (i, depths[i - 1], depths[i])
                break
    sk = {"offset": off, "gate_ok": ok, "world": None}
    if not ok:
        sk["note"] = why
        return sk
    world = []
    last_at_depth = {}  # depth -> index of the most recent part with that depth
    for i in range(parts):
        d = depths[i]
        if d == 1:
            w = [0, 0, 0]  # a root sits at the object's position; own offset left out
        else:
            parent = last_at_depth[d - 1]  # nearest EARLIER part one level up
            pw = world[parent]
            w = [pw[0] + offs[i][0], pw[1] + offs[i][1], pw[2] + offs[i][2]]
        world.append(w)
        last_at_depth[d] = i
    sk["world"] = world
    return sk


# --------------------------------------------------------------------------
# spec-level structural validators (accept / reject)
# --------------------------------------------------------------------------


def validate_block(data, X, N):
    size = len(data)
    if X + 0x20 > size:
        return False, "block header past the end"
    rel, sizes = block_layout(data, X, N)
    for name in ("parent", "order", "group", "xforms"):
        if X + rel[name] + sizes[name] > size:
            return False, "block %s array past the end" % name
    return True, ""


MOD_STREAMS = (("pos", 0x10, 12), ("nrm", 0x18, 12), ("uv", 0x20, 4), ("bone", 0x28, 4), ("weight", 0x30, 2))
SCM_STREAMS = (("pos", 0x10, 12), ("nrm", 0x18, 12), ("uv", 0x20, 4), ("colour", 0x38, 4))


def validate_model(data):
    size = len(data)
    if size < 0x40:
        return False, "shorter than the 0x40 header"
    magic = bytes(data[:4])
    if magic not in (b"MOD ", b"SCM "):
        return False, "bad magic"
    streams = MOD_STREAMS if magic == b"MOD " else SCM_STREAMS
    nobj = data[0x10]
    N = data[0x11]
    boff = u64(data, 0x20)
    if 0x40 + 0x40 * nobj > size:
        return False, "object records past the end"
    for o in range(nobj):
        rec = 0x40 + 0x40 * o
        mc = data[rec]
        moff = u64(data, rec + 8)
        if moff + 0x50 * mc > size:
            return False, "mesh records of object %d past the end" % o
        for m in range(mc):
            mr = moff + 0x50 * m
            vc = u16(data, mr)
            for name, field, stride in streams:
                so = u64(data, mr + field)
                if vc and so + vc * stride > size:
                    return False, "object %d mesh %d %s stream past the end" % (o, m, name)
    if N or boff:
        return validate_block(data, boff, N)
    return True, ""


def validate_hie(data):
    size = len(data)
    if size < 1024:
        return False, "shorter than the 1024-byte slot table"
    spans = {}
    for slot, off in enumerate(struct.unpack_from("<256I", data, 0)):
        if off == 0:
            continue
        if off < 1024:
            return False, "slot %d points into the slot table" % slot
        if off + 0x34 > size:
            return False, "slot %d offset 0x%X past the end" % (slot, off)
        ext = hie_extent(s16(data, off))
        if off + ext > size:
            return False, "hierarchy at 0x%X runs past the end" % off
        spans[off] = ext
    prev_end = None
    for off in sorted(spans):
        if prev_end is not None and off < prev_end:
            return False, "hierarchies overlap at 0x%X" % off
        prev_end = off + spans[off]
    return True, ""


# --------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------


class Layout:
    """Append-only byte buffer that remembers where structures are."""

    def __init__(self, rng, initial=b""):
        self.rng = rng
        self.buf = bytearray(initial)
        self.structs = []  # (start, end, label) absolute

    def gap(self, maxlen=24, align_p=0.35):
        rng = self.rng
        if rng.random() < 0.6:
            self.buf += rng.randbytes(rng.randint(1, maxlen))
        if rng.random() < align_p:
            a = rng.choice((4, 16))
            pad = (-len(self.buf)) % a
            self.buf += rng.randbytes(pad)

    def put(self, data, label):
        off = len(self.buf)
        self.buf += data
        self.structs.append((off, off + len(data), label))
        return off

    def mark(self, start, end, label):
        self.structs.append((start, end, label))


def by_draw(rng, table):
    """One draw r = rng.random(); the value of the first (limit, make) row of `table` with
    r < limit (the last row's limit is 1, so one always is)."""
    r = rng.random()
    return next(make() for limit, make in table if r < limit)


def rand_translation(rng):
    return by_draw(rng, [
        (0.08, lambda: 0.0),
        (0.12, lambda: -0.0),
        (0.2, lambda: float(rng.randint(-50, 50))),
        (1, lambda: rng.uniform(-150.0, 150.0)),
    ])


def rand_angle(rng):
    return by_draw(rng, [
        (0.12, lambda: 0.0),
        (0.16, lambda: -0.0),
        (0.28, lambda: rng.choice((math.pi / 2, -math.pi / 2, math.pi, -math.pi, math.pi / 4))),
        (0.95, lambda: rng.uniform(-math.pi, math.pi)),
        (1, lambda: rng.uniform(-20.0, 20.0)),
    ])


def rand_nan_bits(rng):
    sign = rng.choice((0, 0x80000000))
    if rng.random() < 0.5:
        return sign | 0x7FC00000 | rng.randrange(0x400000)  # quiet, payload
    return sign | 0x7F800000 | rng.randint(1, 0x3FFFFF)  # signalling, payload


def rand_w_bits(rng):
    """+0x1C: PRESERVED_UNDECODED, any bits."""
    return by_draw(rng, [
        (0.35, lambda: 0x00000000),
        (0.5, lambda: 0x80000000),  # -0.0
        (0.65, lambda: rand_nan_bits(rng)),
        (0.7, lambda: rng.choice((0x7F800000, 0xFF800000))),
        (0.75, lambda: rng.randint(1, 0x7FFFFF)),  # denormal
        (0.8, lambda: 0x3F800000),
        (1, lambda: rng.getrandbits(32)),
    ])


def random_tree(rng, N):
    order = list(range(N))
    r = rng.random()
    if r < 0.8:
        rng.shuffle(order)
    elif r < 0.9 and N > 2:
        i, j = rng.sample(range(N), 2)
        order[i], order[j] = order[j], order[i]
    # else identity order
    style = rng.choice(("random", "random", "chain", "star", "bushy"))
    parents = [-1]
    for i in range(1, N):
        if style == "chain":
            j = i - 1
        elif style == "star":
            j = 0
        elif style == "bushy":
            j = rng.randrange(max(0, i - 4), i)
        else:
            j = rng.randrange(i)
        parents.append(order[j])
    return order, parents, style


GATE_FAILS = ("dup_order", "order_range", "root_not_first", "root_parent", "parent_later",
              "parent_self", "parent_range", "nonfinite")


def rand_nodes(rng):
    r = rng.random()
    if r < 0.25:
        return rng.randint(1, 8)
    if r < 0.85:
        return rng.randint(9, 64)
    return rng.randint(65, 127)  # i8 parent indices limit N to 127


def build_block(rng, N, fail_p=0.2):
    """Node-domain block bytes (relative), pieces [(rel_start, rel_end, label)],
    and a note."""
    a4 = align4(N)
    sizes = {"parent": N, "order": N, "group": N, "xforms": 0x20 * N}
    canon = {"parent": 0x20, "order": 0x20 + a4, "group": 0x20 + 2 * a4,
             "xforms": align16(0x20 + 3 * a4)}
    notes = []
    if rng.random() < 0.7:
        rel = dict(canon)
        notes.append("canonical placement")
    else:
        names = ["parent", "order", "group", "xforms"]
        shuffled = rng.random() < 0.3
        if shuffled:
            rng.shuffle(names)
        while True:
            pos = 0x20 + rng.choice((0, rng.randint(1, 12)))
            rel = {}
            for nm in names:
                pos += rng.choice((0, 0, rng.randint(1, 19)))
                if rng.random() < 0.4:
                    pos = align4(pos)
                rel[nm] = pos
                pos += sizes[nm]
            if rel != canon:
                break
        notes.append("NON-canonical placement" + (" (arrays in order %s)" % ",".join(names) if shuffled else ""))
    end = max(rel[n] + sizes[n] for n in sizes)
    if rng.random() < 0.3:
        buf = bytearray(end)  # zero padding
    else:
        buf = bytearray(rng.randbytes(end))  # random padding
    struct.pack_into("<4I", buf, 0, rel["parent"], rel["order"], rel["group"], rel["xforms"])
    buf[0x10:0x20] = rng.randbytes(16) if rng.random() < 0.7 else bytes(16)

    order, parents, style = random_tree(rng, N)
    notes.append("tree=%s" % style)
    fail = None
    if rng.random() < fail_p:
        choices = ["order_range", "root_parent", "nonfinite"]
        if N >= 2:
            choices += ["dup_order", "root_not_first", "parent_self"]
        if N >= 3:
            choices.append("parent_later")
        if N < 127 and N >= 2:
            choices.append("parent_range")
        fail = rng.choice(choices)
        if fail == "dup_order":
            i, j = rng.sample(range(N), 2)
            order[j] = order[i]
        elif fail == "order_range":
            order[rng.randrange(N)] = rng.randint(N, 255)
        elif fail == "root_not_first":
            order[0], order[1] = order[1], order[0]
            parents[0], parents[1] = parents[1], parents[0]
        elif fail == "root_parent":
            parents[0] = rng.randrange(N)
        elif fail == "parent_later":
            i = rng.randint(1, N - 2)
            j = rng.randint(i + 1, N - 1)
            parents[i] = order[j]
        elif fail == "parent_self":
            i = rng.randint(1, N - 1)
            parents[i] = order[i]
        elif fail == "parent_range":
            parents[rng.randint(1, N - 1)] = rng.randint(N, 127)
        notes.append("gate fail intended: " + fail)

    buf[rel["parent"]:rel["parent"] + N] = struct.pack("<%db" % N, *parents)
    buf[rel["order"]:rel["order"] + N] = bytes(order)
    if rng.random() < 0.5:
        group = bytes(rng.randrange(256) for _ in range(N))
    else:
        group = bytes(rng.randrange(4) for _ in range(N))
    buf[rel["group"]:rel["group"] + N] = group

    for node in range(N):
        tx, ty, tz = (f32_round(rand_translation(rng)) for _ in range(3))
        mag = f32_round(math.sqrt(tx * tx + ty * ty + tz * tz))
        rx, ry, rz = (f32_round(rand_angle(rng)) for _ in range(3))
        bits = [f32_bits(v) for v in (tx, ty, tz, mag, rx, ry, rz)] + [rand_w_bits(rng)]
        struct.pack_into("<8I", buf, rel["xforms"] + 0x20 * node, *bits)
    if fail == "nonfinite":
        node = rng.randrange(N)
        field = rng.choice((0, 1, 2, 4, 5, 6))
        bits = rng.choice((rand_nan_bits(rng), 0x7F800000, 0xFF800000))
        struct.pack_into("<I", buf, rel["xforms"] + 0x20 * node + 4 * field, bits)

    pieces = [(0, 0x20, "block header")] + [(rel[n], rel[n] + sizes[n], "block " + n) for n in sizes]
    return bytes(buf), pieces, fail is not None, "; ".join(notes)


def stream_bytes(rng, kind, vc, N):
    out = bytearray()
    if kind in ("pos",):
        for _ in range(vc):
            out += struct.pack("<3f", *(rng.uniform(-100.0, 100.0) for _ in range(3)))
    elif kind == "nrm":
        for _ in range(vc):
            v = [rng.gauss(0, 1) for _ in range(3)]
            l = math.sqrt(sum(c * c for c in v)) or 1.0
            out += struct.pack("<3f", *(c / l for c in v))
    elif kind == "uv":
        for _ in range(vc):
            out += struct.pack("<2h", rng.randint(-8192, 8192), rng.randint(-8192, 8192))
    elif kind == "bone":
        jmax = max(1, min(N, 64))  # joint*4 must fit a u8
        for _ in range(vc):
            out += bytes((rng.randrange(256), rng.randrange(jmax) * 4,
                          rng.randrange(jmax) * 4, rng.randrange(jmax) * 4))
    elif kind == "weight":
        for _ in range(vc):
            if rng.random() < 0.6:
                a = rng.randint(0, 31)
                b = rng.randint(0, 31 - a)
                w = (a, b, 31 - a - b)
            else:
                w = (rng.randint(0, 31), rng.randint(0, 31), rng.randint(0, 31))
            strip = 0x8000 if rng.random() < 0.25 else 0
            out += struct.pack("<H", w[0] | (w[1] << 5) | (w[2] << 10) | strip)
    elif kind == "colour":
        for _ in range(vc):
            flag = rng.randrange(256)
            flag = (flag | 2) if rng.random() < 0.25 else (flag & ~2)
            out += bytes((rng.randrange(256), rng.randrange(256), rng.randrange(256), flag))
    return bytes(out)


STRIDE = {"pos": 12, "nrm": 12, "uv": 4, "bone": 4, "weight": 2, "colour": 4}


def build_model(rng, kind):
    """kind 'mod' or 'scm'.  Returns a dict with data and metadata."""
    is_mod = kind == "mod"
    has_block = (rng.random() > 0.07) if is_mod else (rng.random() < 0.6)
    N = rand_nodes(rng) if has_block else 0
    notes = []
    gate_fail = False
    if has_block:
        block, pieces, gate_fail, bnote = build_block(rng, N)
        notes.append("block N=%d: %s" % (N, bnote))
    else:
        notes.append("no node block (N=0, offset 0)")
    streams = ("pos", "nrm", "uv", "bone", "weight") if is_mod else ("pos", "nrm", "uv", "colour")
    nobj = rng.randint(1, 4)
    objs = [[rng.randint(1, 40) for _ in range(rng.randint(1, 3))] for _ in range(nobj)]
    tex_count = rng.randint(0, 6)

    L = Layout(rng, bytes(0x40 + 0x40 * nobj))
    L.mark(0, 0x40, "header")
    L.mark(0x40, 0x40 + 0x40 * nobj, "object records")
    chunks = []
    for oi, meshes in enumerate(objs):
        chunks.append(("mrec", oi))
        for mi in range(len(meshes)):
            for s in streams:
                chunks.append(("stream", oi, mi, s))
    if has_block:
        chunks.append(("block",))
    if rng.random() < 0.8:
        rng.shuffle(chunks)
    mrec_off = {}
    stream_off = {}
    block_off = 0
    for ch in chunks:
        L.gap()
        if ch[0] == "mrec":
            oi = ch[1]
            mrec_off[oi] = L.put(bytes(0x50 * len(objs[oi])), "mesh records of object %d" % oi)
        elif ch[0] == "stream":
            _, oi, mi, s = ch
            vc = objs[oi][mi]
            stream_off[(oi, mi, s)] = L.put(stream_bytes(rng, s, vc, N),
                                            "%s stream obj %d mesh %d" % (s, oi, mi))
        else:
            block_off = len(L.buf)
            L.buf += block
            for a, b, lab in pieces:
                L.mark(block_off + a, block_off + b, lab)
    if rng.random() < 0.7:
        L.buf += rng.randbytes(rng.randint(1, 64))  # trailing bytes
    buf = L.buf

    # header
    buf[0:4] = b"MOD " if is_mod else b"SCM "
    struct.pack_into("<f", buf, 4, rng.choice((0.0, 1.0, 2.0, rng.uniform(-10, 10))))
    buf[8:0x10] = rng.randbytes(8)
    buf[0x10] = nobj
    buf[0x11] = N
    buf[0x12] = tex_count
    buf[0x13] = rng.randrange(256)
    struct.pack_into("<IQQ", buf, 0x14, rng.getrandbits(32), rng.getrandbits(64), block_off)
    buf[0x28:0x40] = rng.randbytes(24)
    # objects and meshes
    stream_fields = []  # (abs field offset, stride, vc)
    for oi, meshes in enumerate(objs):
        rec = 0x40 + 0x40 * oi
        pts = []
        struct.pack_into("<BBHIQI", buf, rec, len(meshes), rng.randrange(256), sum(meshes),
                         rng.getrandbits(32), mrec_off[oi], rng.getrandbits(32))
        buf[rec + 0x14:rec + 0x30] = rng.randbytes(28)
        for mi in range(len(meshes)):
            p = stream_off[(oi, mi, "pos")]
            pts += [struct.unpack_from("<3f", buf, p + 12 * k) for k in range(meshes[mi])]
        cx, cy, cz = (sum(q[i] for q in pts) / len(pts) for i in range(3))
        rad = max(math.sqrt((q[0] - cx) ** 2 + (q[1] - cy) ** 2 + (q[2] - cz) ** 2) for q in pts)
        struct.pack_into("<4f", buf, rec + 0x30, cx, cy, cz, rad)
        for mi, vc in enumerate(meshes):
            mr = mrec_off[oi] + 0x50 * mi
            struct.pack_into("<HH", buf, mr, vc, rng.randrange(max(tex_count, 1)))
            buf[mr + 4:mr + 0x50] = rng.randbytes(0x4C)  # unknowns, then offsets over them
            for name, field, stride in (MOD_STREAMS if is_mod else SCM_STREAMS):
                struct.pack_into("<Q", buf, mr + field, stream_off[(oi, mi, name)])
                stream_fields.append((mr + field, stride, vc, "%s obj %d mesh %d" % (name, oi, mi)))
    return {"data": bytes(buf), "structs": L.structs, "N": N, "block_off": block_off if has_block else None,
            "stream_fields": stream_fields, "gate_fail": gate_fail, "note": "; ".join(notes)}


def build_efm(rng):
    N = rand_nodes(rng)
    block, pieces, gate_fail, bnote = build_block(rng, N)
    r = rng.random()
    if r < 0.1:
        X = 0
    elif r < 0.45:
        X = 16 * rng.randint(1, 120)
    else:
        X = rng.randint(1, 2000)
    data = rng.randbytes(X) + block + rng.randbytes(rng.choice((0, rng.randint(1, 300))))
    structs = [(X + a, X + b, lab) for a, b, lab in pieces]
    return {"data": data, "structs": structs, "N": N, "X": X, "gate_fail": gate_fail,
            "note": "block at 0x%X N=%d: %s" % (X, N, bnote)}


def gen_depths(rng, parts, style):
    if parts == 0:
        return []
    roots = set()
    if style == "forest" and parts > 1:
        roots = set(rng.sample(range(1, parts), rng.randint(1, min(parts - 1, 5))))
    d = [1]
    for i in range(1, parts):
        prev = d[-1]
        if i in roots:
            d.append(1)
            continue
        r = rng.random()
        if r < 0.45:
            d.append(prev + 1)
        elif r < 0.75:
            d.append(prev)
        else:
            d.append(rng.randint(1, prev))
    return d


def build_hierarchy(rng):
    r = rng.random()
    if r < 0.1:
        parts = 0
    elif r < 0.3:
        parts = rng.randint(1, 3)
    elif r < 0.88:
        parts = rng.randint(4, 30)
    else:
        parts = rng.randint(100, 400)
    style = "forest" if rng.random() < 0.25 else "tree"
    depths = gen_depths(rng, parts, style)
    bad = None
    if parts and rng.random() < 0.12:
        if parts >= 2 and rng.random() < 0.5:
            i = rng.randint(1, parts - 1)
            depths[i] = depths[i - 1] + rng.randint(2, 5)
            bad = "depth jump at part %d" % i
        else:
            depths[0] = rng.choice((0, 2, 3, 7))
            bad = "first depth %d" % depths[0]
    buf = bytearray()
    buf += struct.pack("<h", parts)
    # byte-list area, 0x32 bytes
    lists = bytearray()
    if rng.random() < 0.15:
        lists = bytearray(rng.randrange(255) for _ in range(0x32))  # no 0xFF at all
    else:
        for _ in range(rng.randint(1, 6)):
            n = rng.randint(0, 6)
            cand = bytes(rng.randrange(max(parts, 1)) % 255 for _ in range(n)) + b"\xff"
            if len(lists) + len(cand) > 0x32:
                break
            lists += cand
        tail = 0x32 - len(lists)
        if rng.random() < 0.5:
            lists += bytes(rng.randrange(255) for _ in range(tail))  # random non-0xFF after last list
        else:
            lists += bytes(tail)
    buf += lists
    for i in range(parts):
        unk00 = rng.getrandbits(16) if rng.random() < 0.7 else 0
        runtime = rng.randbytes(16) if rng.random() < 0.6 else bytes(16)
        if rng.random() < 0.9:
            off3 = [rng.randint(-3000, 3000) for _ in range(3)]
        else:
            off3 = [rng.randint(-(1 << 20), 1 << 20) for _ in range(3)]
        unk20 = rng.getrandbits(32) if rng.random() < 0.7 else 0
        model = rng.getrandbits(32)
        buf += struct.pack("<HH", unk00, depths[i]) + runtime + struct.pack("<3iII", *off3, unk20, model)
    assert len(buf) == hie_extent(parts)
    note = "parts=%d %s" % (parts, style) + ("; gate fail: " + bad if bad else "")
    return bytes(buf), note, bad is not None


def build_hie(rng):
    r = rng.random()
    nh = 0 if r < 0.03 else (rng.randint(1, 3) if r < 0.4 else rng.randint(4, 10))
    hiers = [build_hierarchy(rng) for _ in range(nh)]
    L = Layout(rng, bytes(1024))
    L.mark(0, 1024, "slot table")
    placed = list(range(nh))
    rng.shuffle(placed)
    offsets = [0] * nh
    for h in placed:
        L.gap(maxlen=40, align_p=0.3)
        offsets[h] = L.put(hiers[h][0], "hierarchy %d" % h)
    if rng.random() < 0.7:
        L.buf += rng.randbytes(rng.randint(1, 80))
    # slots: each hierarchy gets 1..4 random slots; order unrelated to placement
    free = list(range(256))
    rng.shuffle(free)
    slots = [0] * 256
    aliases = 0
    for h in range(nh):
        k = 1 if rng.random() < 0.6 else rng.randint(2, 4)
        aliases += k - 1
        for _ in range(k):
            slots[free.pop()] = offsets[h]
    struct.pack_into("<256I", L.buf, 0, *slots)
    note = "%d hierarchies, %d alias slots, %d gate-failing" % (nh, aliases, sum(1 for x in hiers if x[2]))
    return {"data": bytes(L.buf), "structs": L.structs, "offsets": offsets,
            "exts": [len(x[0]) for x in hiers], "note": note}


# --------------------------------------------------------------------------
# malformed derivations
# --------------------------------------------------------------------------


def truncate_inside(rng, data, structs, skip_labels=()):
    cand = [s for s in structs if s[1] > s[0] and s[2] not in skip_labels]
    a, b, lab = rng.choice(cand)
    cut = rng.randint(a + 1, b - 1) if b - a >= 2 else a
    return data[:cut], "truncated at 0x%X inside %s [0x%X,0x%X)" % (cut, lab, a, b)


def past_end_value(rng, size, bits):
    r = rng.random()
    if r < 0.15:
        return size, "== file size"
    if r < 0.3:
        return (1 << bits) - 1 - rng.randrange(16), "huge"
    return size + rng.randint(1, 4096), "past the end"


# --------------------------------------------------------------------------
# corpus
# --------------------------------------------------------------------------


def make_corpus(seed, count):
    """Returns a list of (filename, bytes, manifest entry)."""
    out = []

    def frng(tag, i):
        return random.Random("specgen:%s:%s:%d" % (seed, tag, i))

    def add(name, data, entry):
        entry = dict(entry)
        entry["path"] = name
        fmt = entry["format"]
        if fmt == "hie":
            ok, why = validate_hie(data)
        elif fmt in ("mod", "scm"):
            ok, why = validate_model(data)
        else:
            ok, why = validate_block(data, entry["block_offset"], entry["nodes"])
        assert ok == (entry["expect"] == "accept"), (name, why, entry.get("note"))
        ordered = {"path": name}
        ordered.update({k: v for k, v in entry.items() if k != "path"})
        out.append((name, bytes(data), ordered))

    n_hie, n_mod, n_scm, n_efm = count, count, max(1, count // 3), max(1, count // 3)
    m = max(2, count // 10)

    hies, mods, scms, efms = [], [], [], []
    for i in range(n_hie):
        h = build_hie(frng("hie", i))
        hies.append(h)
        sk = [hie_skeleton(h["data"], off) for off in sorted(set(h["offsets"]))]
        add("hie_%04d.bin" % i, h["data"], {"format": "hie", "expect": "accept", "skeletons": sk, "note": h["note"]})
    for kind, n, lst in (("mod", n_mod, mods), ("scm", n_scm, scms)):
        for i in range(n):
            mdl = build_model(frng(kind, i), kind)
            lst.append(mdl)
            sk = []
            if mdl["block_off"] is not None:
                s = dmc3_skeleton(mdl["data"], mdl["block_off"], mdl["N"])
                assert s["gate_ok"] != mdl["gate_fail"], (kind, i, s.get("note"))
                sk.append(s)
            add("%s_%04d.%s" % (kind, i, kind), mdl["data"],
                {"format": kind, "expect": "accept", "skeletons": sk, "note": mdl["note"]})
    for i in range(n_efm):
        e = build_efm(frng("efm", i))
        efms.append(e)
        s = dmc3_skeleton(e["data"], e["X"], e["N"])
        assert s["gate_ok"] != e["gate_fail"], ("efm", i, s.get("note"))
        add("blk_%04d.efm" % i, e["data"], {"format": "block", "block_offset": e["X"], "nodes": e["N"],
                                             "expect": "accept", "skeletons": [s], "note": e["note"]})

    # ---- malformed ----
    def rej(name, fmt, data, note, **extra):
        entry = {"format": fmt}
        entry.update(extra)
        entry["expect"] = "reject"
        entry["note"] = note
        add(name, data, entry)

    def pick(rng, lst, cond, build):
        cand = [x for x in lst if cond(x)]
        if cand:
            return rng.choice(cand)
        while True:  # tiny --count: build a fresh base file (not itself in the corpus)
            x = build(rng)
            if cond(x):
                return x

    def has_h(h):
        return bool(h["offsets"])

    def has_b(x):
        return x["block_off"] is not None

    for i in range(m):
        rng = frng("bad_hie_trunc", i)
        h = pick(rng, hies, has_h, build_hie)
        d, note = truncate_inside(rng, h["data"], h["structs"], skip_labels=("slot table",))
        rej("bad_hie_trunc_%04d.bin" % i, "hie", d, note)
    for i in range(m):
        rng = frng("bad_hie_short", i)
        h = rng.choice(hies)
        n = rng.choice((0, 4, rng.randint(1, 1023), 1023))
        rej("bad_hie_short_%04d.bin" % i, "hie", h["data"][:n], "file of %d bytes (< 1024)" % n)
    for i in range(m):
        rng = frng("bad_hie_slot", i)
        h = rng.choice(hies)
        d = bytearray(h["data"])
        v, how = past_end_value(rng, len(d), 32)
        slot = rng.randrange(256)
        struct.pack_into("<I", d, 4 * slot, v)
        rej("bad_hie_slot_%04d.bin" % i, "hie", d, "slot %d = 0x%X (%s)" % (slot, v, how))
    for i in range(m):
        rng = frng("bad_hie_run", i)
        h = pick(rng, hies, has_h, build_hie)
        d = bytearray(h["data"])
        if rng.random() < 0.6:
            last = max(h["offsets"])
            need = (len(d) - last - 0x34) // 0x28 + 1
            parts = need + rng.randint(0, 3)
            struct.pack_into("<h", d, last, parts)
            note = "last hierarchy at 0x%X given %d parts, runs past the end" % (last, parts)
        else:
            last_end = max(o + e for o, e in zip(h["offsets"], h["exts"]))
            off = max(last_end, len(d) - rng.randint(2, 0x33))  # after every hierarchy
            if off + 2 <= len(d):
                struct.pack_into("<h", d, off, rng.randint(0, 5))
            slot = rng.randrange(256)
            struct.pack_into("<I", d, 4 * slot, off)
            note = "slot %d -> 0x%X, hierarchy header runs past the end" % (slot, off)
        rej("bad_hie_run_%04d.bin" % i, "hie", d, note)
    for i in range(m):
        rng = frng("bad_hie_overlap", i)
        h = pick(rng, hies, has_h, build_hie)
        d = bytearray(h["data"])
        k = rng.randrange(len(h["offsets"]))
        a, ext = h["offsets"][k], h["exts"][k]
        b = rng.randint(a + 2, a + ext - 1)
        pmin = max(0, (a + ext - (b + 0x34)) // 0x28 + 1)
        parts = pmin + rng.randint(0, 2)
        struct.pack_into("<h", d, b, parts)
        if b + hie_extent(parts) > len(d):
            d += rng.randbytes(b + hie_extent(parts) - len(d) + rng.randint(0, 16))
        slots = list(struct.unpack_from("<256I", d, 0))
        freeslots = [s for s in range(256) if slots[s] == 0]
        slot = rng.choice(freeslots)
        struct.pack_into("<I", d, 4 * slot, b)
        rej("bad_hie_overlap_%04d.bin" % i, "hie", d,
            "slot %d -> 0x%X (%d parts) starts inside hierarchy [0x%X,0x%X) and ends past it"
            % (slot, b, parts, a, a + ext))
    for kind, lst, nm in (("mod", mods, m), ("scm", scms, max(1, m // 2))):
        for i in range(nm):
            rng = frng("bad_%s_trunc" % kind, i)
            mdl = rng.choice(lst)
            d, note = truncate_inside(rng, mdl["data"], mdl["structs"])
            rej("bad_%s_trunc_%04d.%s" % (kind, i, kind), kind, d, note)
    for i in range(max(1, m // 2)):
        rng = frng("bad_blk_trunc", i)
        e = rng.choice(efms)
        d, note = truncate_inside(rng, e["data"], e["structs"])
        rej("bad_blk_trunc_%04d.efm" % i, "block", d, note, block_offset=e["X"], nodes=e["N"])
    for i in range(m):
        rng = frng("bad_mod_block", i)
        mdl = pick(rng, mods, has_b, lambda r: build_model(r, "mod"))
        d = bytearray(mdl["data"])
        if rng.random() < 0.75:
            v, how = past_end_value(rng, len(d), 64)
        else:
            v, how = len(d) - rng.randint(1, 0x1F), "block header straddles the end"
        struct.pack_into("<Q", d, 0x20, v)
        rej("bad_mod_block_%04d.mod" % i, "mod", d, "block offset 0x%X (%s)" % (v, how))
    for i in range(m):
        rng = frng("bad_mod_stream", i)
        mdl = rng.choice(mods)
        d = bytearray(mdl["data"])
        field, stride, vc, lab = rng.choice(mdl["stream_fields"])
        if rng.random() < 0.75 or vc * stride < 2:
            v, how = past_end_value(rng, len(d), 64)
        else:
            v, how = len(d) - rng.randint(1, vc * stride - 1), "stream straddles the end"
        struct.pack_into("<Q", d, field, v)
        rej("bad_mod_stream_%04d.mod" % i, "mod", d, "%s stream offset 0x%X (%s)" % (lab, v, how))
    return out


def write_corpus(outdir, seed, count):
    corpus = make_corpus(seed, count)
    os.makedirs(outdir, exist_ok=True)
    for name, data, _ in corpus:
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
    manifest = {"generator": "specgen.py (independent, spec-only)", "seed": seed, "count": count,
                "files": [e for _, _, e in corpus]}
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, allow_nan=False)
        f.write("\n")
    return corpus


# --------------------------------------------------------------------------
# self test
# --------------------------------------------------------------------------


def _close(a, b, eps=1e-12):
    return all(abs(x - y) <= eps for x, y in zip(a, b)) and len(a) == len(b)


def make_block_bytes(order, parents, xforms):
    """Canonical block from explicit arrays; xforms[node] = (tx,ty,tz,rx,ry,rz)."""
    N = len(order)
    a4 = align4(N)
    trel = align16(0x20 + 3 * a4)
    buf = bytearray(trel + 0x20 * N)
    struct.pack_into("<4I", buf, 0, 0x20, 0x20 + a4, 0x20 + 2 * a4, trel)
    buf[0x20:0x20 + N] = struct.pack("<%db" % N, *parents)
    buf[0x20 + a4:0x20 + a4 + N] = bytes(order)
    for node, (tx, ty, tz, rx, ry, rz) in enumerate(xforms):
        struct.pack_into("<8f", buf, trel + 0x20 * node, tx, ty, tz,
                         math.sqrt(tx * tx + ty * ty + tz * tz), rx, ry, rz, 0.0)
    return bytes(buf)


def selftest():
    h = math.pi / 2
    checks = 0

    # 1. root rotated 90 deg about Z, child at x=1 lands at y=1 (row-vector: p * M)
    root = local_row(0, 0, 0, 0, 0, h)
    child = mat_mul(local_row(1, 0, 0, 0, 0, 0), root)
    assert _close(row3(root), [0, 0, 0]), row3(root)
    assert _close(row3(child), [0, 1, 0]), row3(child)
    checks += 1
    # same with a translated root: (2,3,4) + (0,1,0)
    root = local_row(2, 3, 4, 0, 0, h)
    child = mat_mul(local_row(1, 0, 0, 0, 0, 0), root)
    assert _close(row3(child), [2, 4, 4]), row3(child)
    checks += 1
    # the child's own rotation does not move the child's joint
    child = mat_mul(local_row(1, 0, 0, 0.7, -1.1, 2.3), root)
    assert _close(row3(child), [2, 4, 4]), row3(child)
    checks += 1

    # 2. XYZ vs ZYX: root rx=90, rz=90, child at (0,1,0).
    #    X first: (0,1,0) -Rx-> (0,0,1) -Rz-> (0,0,1)
    #    Z first: (0,1,0) -Rz-> (-1,0,0) -Rx-> (-1,0,0)
    xyz = row3(mat_mul(local_row(0, 1, 0, 0, 0, 0), local_row(0, 0, 0, h, 0, h, "XYZ")))
    zyx = row3(mat_mul(local_row(0, 1, 0, 0, 0, 0), local_row(0, 0, 0, h, 0, h, "ZYX")))
    assert _close(xyz, [0, 0, 1]), xyz
    assert _close(zyx, [-1, 0, 0]), zyx
    checks += 1
    # and with Y: rx=90, ry=90: (0,1,0) -Rx-> (0,0,1) -Ry-> (1,0,0)
    xy = row3(mat_mul(local_row(0, 1, 0, 0, 0, 0), local_row(0, 0, 0, h, h, 0)))
    assert _close(xy, [1, 0, 0]), xy
    checks += 1
    # the row-vector local is the transpose of column-vector T*Rz*Ry*Rx
    rx, ry, rz = 0.3, -1.2, 2.1
    cx, sx, cy, sy, cz, sz = math.cos(rx), math.sin(rx), math.cos(ry), math.sin(ry), math.cos(rz), math.sin(rz)
    Rx = [[1, 0, 0], [0, cx, -sx], [0, sx, cx]]
    Ry = [[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]]
    Rz = [[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]

    def m3(a, b):
        return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
    col = m3(Rz, m3(Ry, Rx))
    L = local_row(5, 6, 7, rx, ry, rz)
    for i in range(3):
        for j in range(3):
            assert abs(L[i][j] - col[j][i]) < 1e-12
    assert L[3][:3] == [5, 6, 7]
    checks += 1

    # 3. parent rule: parent[i] is a NODE index, never inverted.
    #    order = [2,0,1], parents = [-1,2,0]: node 2 root, node 0 under 2, node 1 under 0
    blk = make_block_bytes([2, 0, 1], [-1, 2, 0],
                           [(0, 1, 0, 0, 0, 0), (0, 0, 1, 0, 0, 0), (10, 0, 0, 0, 0, 0)])
    sk = dmc3_skeleton(blk, 0, 3)
    assert sk["gate_ok"], sk
    assert _close(sk["world"][2], [10, 0, 0]) and _close(sk["world"][0], [10, 1, 0]) \
        and _close(sk["world"][1], [10, 1, 1]), sk["world"]
    checks += 1
    # gate failures
    for order, parents, why in (([2, 0, 1], [-1, 1, 0], "4"),      # node 1 evaluated later
                                ([2, 0, 0], [-1, 2, 0], "1"),      # not a permutation
                                ([0, 2, 1], [2, -1, 0], "2/3"),    # root not at position 0
                                ([2, 0, 1], [-1, 0, 0], "4")):     # node 0 its own parent
        sk = dmc3_skeleton(make_block_bytes(order, parents, [(0, 0, 0, 0, 0, 0)] * 3), 0, 3)
        assert not sk["gate_ok"] and sk["note"].startswith(why), (order, parents, sk)
        checks += 1
    sk = dmc3_skeleton(make_block_bytes([0, 1], [-1, 0], [(0, 0, 0, 0, 0, 0), (0, 0, 0, float("nan"), 0, 0)]), 0, 2)
    assert not sk["gate_ok"] and sk["note"].startswith("6"), sk
    checks += 1

    # 4. HIE rest pose: depths 1,2,3,2,1,2; root offsets left out
    def hier(depths, offs):
        b = struct.pack("<h", len(depths)) + b"\xff" * 0x32
        for d, o in zip(depths, offs):
            b += struct.pack("<HH", 0, d) + bytes(16) + struct.pack("<3iII", *o, 0, 0)
        return b
    offs = [(100, 100, 100), (1, 0, 0), (0, 2, 0), (0, 0, 3), (50, 50, 50), (5, 0, 0)]
    sk = hie_skeleton(hier([1, 2, 3, 2, 1, 2], offs), 0)
    assert sk["gate_ok"] and sk["world"] == [[0, 0, 0], [1, 0, 0], [1, 2, 0], [0, 0, 3], [0, 0, 0], [5, 0, 0]], sk
    checks += 1
    assert not hie_skeleton(hier([2, 3], offs[:2]), 0)["gate_ok"]
    assert not hie_skeleton(hier([1, 3], offs[:2]), 0)["gate_ok"]
    assert hie_skeleton(hier([], []), 0) == {"offset": 0, "gate_ok": True, "world": []}
    checks += 1

    # 5. determinism and internal consistency on a small corpus
    a = make_corpus(7, 9)
    b = make_corpus(7, 9)
    assert [(n, d) for n, d, _ in a] == [(n, d) for n, d, _ in b]
    assert json.dumps([e for _, _, e in a]) == json.dumps([e for _, _, e in b])
    checks += 1
    print("selftest OK (%d checks)" % checks)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args()
    if args.selftest:
        selftest()
        if not args.outdir:
            return
    if not args.outdir:
        ap.error("OUTDIR is required (or use --selftest)")
    corpus = write_corpus(args.outdir, args.seed, args.count)
    counts = {}
    for _, _, e in corpus:
        k = "%s/%s" % (e["format"], e["expect"])
        counts[k] = counts.get(k, 0) + 1
    print("wrote %d files + manifest.json to %s: %s" % (
        len(corpus), args.outdir, ", ".join("%s=%d" % kv for kv in sorted(counts.items()))))


if __name__ == "__main__":
    main()
