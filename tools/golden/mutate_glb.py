"""Adds broken glTFs beside the exported ones in DIR: a cut and a bit-flipped copy of the first 40
GLBs, and JSON-level breakage of the named DB22 glTF. Seeded, so every run makes the same files."""
import json
import os
import random
import sys

g = sys.argv[1]
rng = random.Random(7)
for f in sorted(f for f in os.listdir(g) if f.endswith(".glb"))[:40]:
    data = open(os.path.join(g, f), "rb").read()
    open(os.path.join(g, "t_" + f), "wb").write(data[: rng.randrange(len(data))])
    m = bytearray(data)
    for _ in range(3):
        i = rng.randrange(len(m))
        m[i] ^= 1 << rng.randrange(8)
    open(os.path.join(g, "f_" + f), "wb").write(bytes(m))
src = json.load(open(os.path.join(g, "s_db22named.gltf")))


def broken(name, edit):
    doc = json.loads(json.dumps(src))
    edit(doc)
    json.dump(doc, open(os.path.join(g, name), "w"))


broken("j_badjoint.gltf", lambda d: d["skins"][0]["joints"].append(999))
broken("j_bigcount.gltf", lambda d: d["accessors"][0].update(count=10**9))
broken("j_noscene.gltf", lambda d: d.pop("scenes"))
broken("j_far.gltf", lambda d: d["nodes"][1].update(translation=[1e30, 0, 0]))
broken("j_missingbuf.gltf", lambda d: d["buffers"][0].update(uri="missing.bin"))
open(os.path.join(g, "j_notjson.gltf"), "w").write('{"asset": ')
