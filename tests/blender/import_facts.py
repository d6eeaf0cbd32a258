"""Import a glTF/GLB into an empty Blender scene and print what Blender made of it.

Run with a Python that has `bpy`:
    python import_facts.py -- FILE.glb [--pose BONE DX DY DZ]
Prints one line "FACTS {json}" with:
  armatures: {object name: {"bones": {bone name: head position in world space [x, y, z]}}}
  meshes:    [{"name", "armature" (object of its armature modifier or null),
               "vertex_groups" (count), "vertices" (count)}]
  moved:     with --pose: BONE is translated by (DX, DY, DZ) in world space in pose mode, and
             for every vertex group of every skinned mesh, the largest displacement of its
             vertices in the evaluated (deformed) mesh: {group name: [dx, dy, dz]}.
"""
import json
import sys

import bpy
from mathutils import Matrix, Vector


def main(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else argv[1:]
    path, rest = args[0], args[1:]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    armatures = {}
    meshes = []
    objects = [o for o in bpy.data.objects
               # The importer's own helpers (the bone display shape) live in this collection.
               if not any(c.name == "glTF_not_exported" for c in o.users_collection)]
    for o in objects:
        if o.type == "ARMATURE":
            bones = {b.name: list(o.matrix_world @ b.head_local) for b in o.data.bones}
            armatures[o.name] = {"bones": bones}
        elif o.type == "MESH":
            arm = next((m.object.name for m in o.modifiers
                        if m.type == "ARMATURE" and m.object is not None), None)
            meshes.append({"name": o.name, "armature": arm,
                           "vertex_groups": len(o.vertex_groups),
                           "vertices": len(o.data.vertices)})
    facts = {"armatures": armatures, "meshes": meshes}
    if rest[:1] == ["--pose"]:
        name, delta = rest[1], Vector([float(x) for x in rest[2:5]])
        arm = next(o for o in objects if o.type == "ARMATURE" and name in o.data.bones)
        pb = arm.pose.bones[name]
        local = arm.matrix_world.inverted().to_3x3() @ delta
        pb.matrix = Matrix.Translation(local) @ pb.matrix
        bpy.context.view_layer.update()
        deps = bpy.context.evaluated_depsgraph_get()
        moved = {}
        for o in objects:
            if o.type != "MESH" or not o.vertex_groups:
                continue
            ev = o.evaluated_get(deps).to_mesh()
            for v, e in zip(o.data.vertices, ev.vertices):
                d = o.matrix_world.to_3x3() @ (e.co - v.co)
                for g in v.groups:
                    key = o.vertex_groups[g.group].name
                    if key not in moved or d.length > Vector(moved[key]).length:
                        moved[key] = list(d)
            o.evaluated_get(deps).to_mesh_clear()
        facts["moved"] = moved
    print("FACTS " + json.dumps(facts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
