#!/usr/bin/env python3
"""Writes the synthetic skinned glTF files of this folder (our own code, not Khronos data).

The sample models the lint issue names (SimpleSkin, CesiumMan, Fox) keep their buffers in
binary files; these small text files show the same situations with data: URIs:

- simple_skin_like.gltf: identity mesh node; the IBMs offset the whole mesh uniformly
  (world(joint) . IBM is the same translation for every joint); a clip that starts away from
  the rest pose.
- cesium_man_like.gltf: the mesh node hangs under a rotated Z_UP node and an Armature node, so
  its world matrix is not the identity, and world(joint) . IBM equals it for every joint.
- influences.gltf: two JOINTS/WEIGHTS sets; vertex 0 names joint 1 twice with weight, vertex 1
  names joint 1 with weight 0, vertex 2's weights sum to 1.25 across both sets.

Run from this folder: python3 make.py
"""
import base64
import json
import math
import struct


def mat_mul(a, b):
    # Column-major 4x4.
    return [sum(a[k * 4 + r] * b[c * 4 + k] for k in range(4)) for c in range(4) for r in range(4)]


def translation(x, y, z):
    return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1]


def rot_x(angle):
    c, s = math.cos(angle), math.sin(angle)
    return [1, 0, 0, 0, 0, c, s, 0, 0, -s, c, 0, 0, 0, 0, 1]


def rigid_inverse(m):
    # Inverse of a rotation + translation matrix.
    r = [[m[c * 4 + r] for c in range(3)] for r in range(3)]
    t = m[12:15]
    rt = [[r[c][rr] for c in range(3)] for rr in range(3)]
    nt = [-sum(rt[i][k] * t[k] for k in range(3)) for i in range(3)]
    return [rt[0][0], rt[1][0], rt[2][0], 0, rt[0][1], rt[1][1], rt[2][1], 0,
            rt[0][2], rt[1][2], rt[2][2], 0, nt[0], nt[1], nt[2], 1]


class Doc:
    def __init__(self):
        self.bin = bytearray()
        self.views = []
        self.accessors = []

    def add(self, fmt, values, acc):
        while len(self.bin) % 4:
            self.bin.append(0)
        data = struct.pack("<" + fmt * len(values), *values)
        self.views.append({"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)})
        self.bin += data
        acc = dict(acc, bufferView=len(self.views) - 1)
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def positions(self, pts):
        flat = [x for p in pts for x in p]
        lo = [min(p[i] for p in pts) for i in range(3)]
        hi = [max(p[i] for p in pts) for i in range(3)]
        return self.add("f", flat, {"componentType": 5126, "count": len(pts), "type": "VEC3",
                                    "min": lo, "max": hi})

    def finish(self, root, name):
        uri = "data:application/octet-stream;base64," + base64.b64encode(bytes(self.bin)).decode()
        root["accessors"] = self.accessors
        root["bufferViews"] = self.views
        root["buffers"] = [{"byteLength": len(self.bin), "uri": uri}]
        with open(name, "w") as f:
            json.dump(root, f, indent=1)
            f.write("\n")


def f32(m):
    return [struct.unpack("<f", struct.pack("<f", x))[0] for x in m]


def vec4(d, fmt, values):
    """A VEC4 accessor of unsigned bytes ("B") or floats ("f")."""
    ctype = {"B": 5121, "f": 5126}[fmt]
    return d.add(fmt, values, {"componentType": ctype, "count": len(values) // 4, "type": "VEC4"})


def strip_primitive(d, pts):
    """A strip of six vertices `pts` in three rows of two (four triangles): the bottom row bound
    to joint 0, the middle row half to each joint, the top row to joint 1."""
    pos = d.positions(pts)
    joints = vec4(d, "B", [0, 0, 0, 0] * 2 + [0, 1, 0, 0] * 2 + [1, 0, 0, 0] * 2)
    weights = vec4(d, "f", [1, 0, 0, 0] * 2 + [0.5, 0.5, 0, 0] * 2 + [1, 0, 0, 0] * 2)
    idx = d.add("H", [0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4],
                {"componentType": 5123, "count": 12, "type": "SCALAR"})
    return {"attributes": {"POSITION": pos, "JOINTS_0": joints, "WEIGHTS_0": weights}, "indices": idx}


def skinned_root(scene_nodes, nodes, primitive, skin):
    """The JSON of a document with one scene, one mesh of one primitive and one skin."""
    return {
        "asset": {"version": "2.0", "generator": "rigtrip tests/data/khronos-validator/synthetic/make.py"},
        "scene": 0,
        "scenes": [{"nodes": scene_nodes}],
        "nodes": nodes,
        "meshes": [{"primitives": [primitive]}],
        "skins": [skin],
    }


def simple_skin_like():
    d = Doc()
    prim = strip_primitive(d, [[-0.5, 0, 0], [0.5, 0, 0], [-0.5, 1, 0], [0.5, 1, 0], [-0.5, 2, 0], [0.5, 2, 0]])
    # Joint worlds: (0, 0, 0) and (0, 1, 0); the IBMs also shift everything by (-0.5, 0, 0).
    shift = translation(-0.5, 0, 0)
    ibms = mat_mul(translation(0, 0, 0), shift) + mat_mul(translation(0, -1, 0), shift)
    ibm = d.add("f", ibms, {"componentType": 5126, "count": 2, "type": "MAT4"})
    times = d.add("f", [0, 1], {"componentType": 5126, "count": 2, "type": "SCALAR",
                                "min": [0], "max": [1]})
    s, c = math.sin(0.3), math.cos(0.3)
    rots = vec4(d, "f", [s, 0, 0, c, 0, 0, 0, 1])
    nodes = [
        {"name": "mesh", "mesh": 0, "skin": 0},
        {"name": "root", "children": [2]},
        {"name": "upper", "translation": [0, 1, 0]},
    ]
    root = skinned_root([0, 1], nodes, prim, {"joints": [1, 2], "inverseBindMatrices": ibm})
    root["animations"] = [{"samplers": [{"input": times, "output": rots}],
                           "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]}]
    d.finish(root, "simple_skin_like.gltf")


def cesium_man_like():
    d = Doc()
    prim = strip_primitive(d, [[-0.2, 0, 0], [0.2, 0, 0], [-0.2, 0, 1], [0.2, 0, 1], [-0.2, 0, 1.5], [0.2, 0, 1.5]])
    z_up = rot_x(-math.pi / 2)
    armature = translation(0, 0, 0.1)
    mesh_world = mat_mul(z_up, armature)
    hips = mat_mul(mesh_world, translation(0, 0, 0.2))
    spine = mat_mul(hips, translation(0, 0, 0.8))
    ibms = f32(mat_mul(rigid_inverse(hips), mesh_world)) + f32(mat_mul(rigid_inverse(spine), mesh_world))
    ibm = d.add("f", ibms, {"componentType": 5126, "count": 2, "type": "MAT4"})
    s = math.sin(-math.pi / 4)
    nodes = [
        {"name": "Z_UP", "rotation": [s, 0, 0, math.cos(-math.pi / 4)], "children": [1]},
        {"name": "Armature", "translation": [0, 0, 0.1], "children": [2, 3]},
        {"name": "Cesium_Man", "mesh": 0, "skin": 0},
        {"name": "hips", "translation": [0, 0, 0.2], "children": [4]},
        {"name": "spine", "translation": [0, 0, 0.8]},
    ]
    skin = {"joints": [3, 4], "skeleton": 3, "inverseBindMatrices": ibm}
    d.finish(skinned_root([0], nodes, prim, skin), "cesium_man_like.gltf")


def influences():
    d = Doc()
    pos = d.positions([[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    j0 = vec4(d, "B", [1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0])
    w0 = vec4(d, "f", [0.5, 0.5, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0])
    j1 = vec4(d, "B", [0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0])
    w1 = vec4(d, "f", [0, 0, 0, 0, 0, 0, 0, 0, 0.25, 0, 0, 0])
    ibms = translation(0, 0, 0) + translation(0, -1, 0) + translation(0, -2, 0)
    ibm = d.add("f", ibms, {"componentType": 5126, "count": 3, "type": "MAT4"})
    nodes = [
        {"name": "mesh", "mesh": 0, "skin": 0},
        {"name": "a", "children": [2]},
        {"name": "b", "translation": [0, 1, 0], "children": [3]},
        {"name": "c", "translation": [0, 1, 0]},
    ]
    prim = {"attributes": {"POSITION": pos, "JOINTS_0": j0, "WEIGHTS_0": w0, "JOINTS_1": j1, "WEIGHTS_1": w1}}
    skin = {"joints": [1, 2, 3], "inverseBindMatrices": ibm}
    d.finish(skinned_root([0, 1], nodes, prim, skin), "influences.gltf")


simple_skin_like()
cesium_man_like()
influences()
