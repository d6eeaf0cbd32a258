"""An independent model of how Devil May Cry 3 (HD Collection, PC) finds its files, and a
reader of ZIP volumes, for tests/game.rs. Written from the loader notes alone (the game mounts
DMC3-0.nbz, DMC3-1.nbz, ... numbered from 0 up to the first missing number, any case, and a
loose folder data/dmc3; a request is cut to its base name, lower-cased and tried as
GDataX360.afs/NAME, GData.afs/NAME, Video/NAME, afs/sound/NAME, SAVEDATA/NAME, NAME, each first
in the highest volume down to 0; every volume before the loose folder, which is searched with
the same six paths), with Python's zipfile and struct, not rigtrip's code. Standard library only.

    python3 nbzgame.py make SPEC.json DIR   write the stand-in game folder SPEC describes
    python3 nbzgame.py lookup DIR           what the game loads for every name: JSON on stdout
    python3 nbzgame.py read VOLUME          a volume's every byte accounted for: JSON on stdout

SPEC: {"volumes": [{"file", "comment", "entries": [{"name", "data" (base64), "method":
"deflate"|"store"}]}], "loose": [{"path" (under DIR, "/"-separated), "data" (base64)}]}.

`read` walks the local headers and the central directory with struct (no zipfile), checks each
entry's data with zipfile and zlib, and says whether any entry uses a data descriptor (flag bit
3), a ZIP64 extra field or a ZIP64 end record.
"""

import base64
import json
import os
import re
import struct
import sys
import zipfile
import zlib

PREFIXES = ["gdatax360.afs/", "gdata.afs/", "video/", "afs/sound/", "savedata/", ""]


def make(spec_path, out):
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    os.makedirs(out, exist_ok=True)
    for v in spec.get("volumes", []):
        with zipfile.ZipFile(os.path.join(out, v["file"]), "w") as z:
            for e in v["entries"]:
                method = zipfile.ZIP_STORED if e.get("method") == "store" else zipfile.ZIP_DEFLATED
                info = zipfile.ZipInfo(e["name"], (2006, 3, 1, 12, 0, 0))
                info.compress_type = method
                z.writestr(info, base64.b64decode(e["data"]))
            z.comment = v.get("comment", "").encode("utf-8")
    for l in spec.get("loose", []):
        path = os.path.join(out, *l["path"].split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(l["data"]))


def volumes(folder):
    """The mounted volumes: (number, file name), 0.. up to the first missing number."""
    found = {}
    for name in os.listdir(folder):
        m = re.fullmatch(r"dmc3-(0|[1-9][0-9]*)\.nbz", name.lower())
        if m and os.path.isfile(os.path.join(folder, name)):
            found[int(m.group(1))] = name
    out = []
    while len(out) in found:
        out.append((len(out), found[len(out)]))
    return out


def find_dir(parent, name):
    for n in sorted(os.listdir(parent)):
        if n.lower() == name and os.path.isdir(os.path.join(parent, n)):
            return os.path.join(parent, n)
    return None


def loose_paths(folder):
    """{lower-cased path under data/dmc3: (path as found, size)}."""
    data = find_dir(folder, "data")
    root = find_dir(data, "dmc3") if data else None
    out = {}
    if root is None:
        return out
    for dirpath, _, names in os.walk(root):
        for n in names:
            full = os.path.join(dirpath, n)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            out.setdefault(rel.lower(), []).append((rel, os.path.getsize(full)))
    return out


def lookup(folder):
    sources = []  # (label, number or None, {lower path: [(path, size)]})
    damaged = []
    for number, name in volumes(folder):
        paths = {}
        try:
            with zipfile.ZipFile(os.path.join(folder, name)) as z:
                for i in z.infolist():
                    if not i.filename.endswith("/"):
                        paths.setdefault(i.filename.lower(), []).append((i.filename, i.file_size))
        except (zipfile.BadZipFile, OSError) as e:
            damaged.append(name)
            paths = {}
        sources.append((name, number, paths))
    loose = loose_paths(folder)
    names = set()
    for _, _, paths in sources + [("data/dmc3", None, loose)]:
        for p in paths:
            for prefix in PREFIXES:
                rest = p[len(prefix):] if p.startswith(prefix) else None
                if rest and "/" not in rest:
                    names.add(rest)
    files = {}
    for name in sorted(names):
        hits = []
        for prefix in PREFIXES:
            for label, number, paths in reversed(sources):
                for path, size in paths.get(prefix + name, [])[:1]:
                    hits.append({"source": label, "volume": number, "entry": path, "bytes": size})
        for prefix in PREFIXES:
            for path, size in loose.get(prefix + name, [])[:1]:
                hits.append({"source": "data/dmc3", "volume": None, "entry": path, "bytes": size})
        files[name] = {"from": hits[0], "overrides": hits[1:]}
    print(json.dumps({"volumes": [n for _, n in volumes(folder)], "damaged": damaged,
                      "files": files}, sort_keys=True))


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    eocd = data.rfind(b"PK\x05\x06")
    if eocd < 0:
        raise SystemExit("no end of central directory record")
    (_, disk, cd_disk, n_here, n, cd_size, cd_off, clen) = struct.unpack_from("<IHHHHIIH", data, eocd)
    comment = data[eocd + 22: eocd + 22 + clen]
    zip64_end = data.find(b"PK\x06\x06") >= 0 or data.find(b"PK\x06\x07") >= 0
    entries = []
    at = cd_off
    for _ in range(n):
        (sig, made, need, flags, method, _t, _d, crc, csize, usize, nlen, xlen, klen, _disk,
         _ia, _ea, local) = struct.unpack_from("<IHHHHHHIIIHHHHHII", data, at)
        assert sig == 0x02014B50, hex(sig)
        name = data[at + 46: at + 46 + nlen].decode("utf-8")
        cextra = data[at + 46 + nlen: at + 46 + nlen + xlen]
        at += 46 + nlen + xlen + klen
        (lsig, lneed, lflags, lmethod, _lt, _ld, lcrc, lcsize, lusize, lnlen, lxlen) = \
            struct.unpack_from("<IHHHHHIIIHH", data, local)
        assert lsig == 0x04034B50, hex(lsig)
        lextra = data[local + 30 + lnlen: local + 30 + lnlen + lxlen]
        start = local + 30 + lnlen + lxlen
        raw = data[start: start + lcsize]
        body = raw if method == 0 else zlib.decompress(raw, -15)
        entries.append({
            "name": name,
            "local_name_same": data[local + 30: local + 30 + lnlen].decode("utf-8") == name,
            "flags": flags, "local_flags": lflags, "method": method,
            "sizes_in_local_header": [lcsize, lusize] == [csize, usize] and lcrc == crc,
            "extra": base64.b64encode(cextra + lextra).decode(),
            "zip64_extra": any(extra_ids(x).count(1) for x in (cextra, lextra)),
            "crc_ok": zlib.crc32(body) & 0xFFFFFFFF == crc and len(body) == usize,
            "data": base64.b64encode(body).decode(),
            "ends_at": start + lcsize,
        })
    # zipfile, the other reader, must agree on names and bytes.
    with zipfile.ZipFile(path) as z:
        assert [i.filename for i in z.infolist()] == [e["name"] for e in entries]
        for e in entries:
            assert base64.b64encode(z.read(e["name"])).decode() == e["data"]
    print(json.dumps({"comment": comment.decode("utf-8"), "zip64_end": zip64_end,
                      "entries": entries, "count": n}, sort_keys=True))


def extra_ids(extra):
    ids, at = [], 0
    while at + 4 <= len(extra):
        hid, size = struct.unpack_from("<HH", extra, at)
        ids.append(hid)
        at += 4 + size
    return ids


def main(args):
    if args[:1] == ["make"] and len(args) == 3:
        make(args[1], args[2])
    elif args[:1] == ["lookup"] and len(args) == 2:
        lookup(args[1])
    elif args[:1] == ["read"] and len(args) == 2:
        read(args[1])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
