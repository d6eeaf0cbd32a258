"""Render the pictures of the user's guide (guide/images/), headless.

    tools/blender-python blender/render_preview.py OUT.png [NATIVE [MOTIONS FRAME]]

Registers the add-on from this repository, imports NATIVE (default: samples/dmc3_humanoid.mod)
with File > Import > Game rig (rigtrip), i.e. `bpy.ops.import_scene.rigtrip` (with the motion
file MOTIONS when given, posed at frame FRAME of its action), and renders the imported rig's
meshes (skinned to its armature) with the Workbench engine from a three-quarter view. Needs the
rigtrip program: RIGTRIP_BIN, or `rigtrip` on PATH.
"""

import math
import os
import sys

import bpy
from mathutils import Vector

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rigtrip_blender  # noqa: E402


def main(args):
    out = os.path.abspath(args[0])
    native = args[1] if len(args) > 1 else os.path.join(HERE, "..", "samples", "dmc3_humanoid.mod")
    motions = os.path.abspath(args[2]) if len(args) > 2 else ""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    rigtrip_blender.register()
    try:
        done = bpy.ops.import_scene.rigtrip(filepath=os.path.abspath(native), motions=motions)
        assert done == {"FINISHED"}
        if len(args) > 3:
            bpy.context.scene.frame_set(int(args[3]))
        render(out)
    finally:
        rigtrip_blender.unregister()
    return 0


def render(out):
    scene = bpy.context.scene
    shown = [o for o in scene.objects if o.type in {"MESH", "ARMATURE"} and o.visible_get()]
    # Frame everything shown, as posed (the evaluated meshes).
    depsgraph = bpy.context.evaluated_depsgraph_get()
    corners = []
    for o in shown:
        if o.type != "MESH":
            continue
        posed = o.evaluated_get(depsgraph)
        corners += [o.matrix_world @ v.co for v in posed.to_mesh().vertices]
        posed.to_mesh_clear()
    lo = Vector([min(c[i] for c in corners) for i in range(3)])
    hi = Vector([max(c[i] for c in corners) for i in range(3)])
    centre, size = (lo + hi) / 2, max((hi - lo).length, 1e-3)

    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    scene.collection.objects.link(cam)
    cam.data.lens = 50
    direction = Vector((math.sin(math.radians(35)), -math.cos(math.radians(35)), 0.25)).normalized()
    cam.location = centre + direction * size * 1.15
    cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam

    scene.world = bpy.data.worlds.new("background")
    scene.world.color = (0.82, 0.84, 0.87)
    scene.render.engine = "BLENDER_WORKBENCH"
    shading = scene.display.shading
    shading.light = "STUDIO"
    shading.color_type = "OBJECT"
    shading.show_cavity = True
    for i, o in enumerate(o for o in shown if o.type == "MESH"):
        o.color = ((0.85, 0.45, 0.25, 1.0), (0.25, 0.5, 0.8, 1.0), (0.45, 0.7, 0.35, 1.0))[i % 3]
    scene.display.render_aa = "8"
    scene.render.resolution_x, scene.render.resolution_y = 480, 480
    scene.render.resolution_percentage = 100
    scene.render.film_transparent = False
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.render.image_settings.compression = 100
    scene.render.filepath = out
    bpy.ops.render.render(write_still=True)
    print(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]))
