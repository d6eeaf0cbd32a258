"""Takes a glTF through Blender the way a user does: import, optionally edit the armature, export.

    tools/blender-python tools/blender-roundtrip.py IN.glb OUT.glb [EDIT...]
    blender --background --python tools/blender-roundtrip.py -- IN.glb OUT.glb [EDIT...]

EDIT, applied in the order given:
    --move BONE DX DY DZ   move the bone's head and tail in edit mode by (DX, DY, DZ) metres
                           in Blender's world space (Z up)
    --rename OLD NEW       rename a bone
    --move-vertices OBJ DX DY DZ
                           move the first half of mesh object OBJ's vertices (by index, at
                           least one) by (DX, DY, DZ) metres in Blender's world space
    --repaint-weights OBJ BONE
                           bind the first three vertices of OBJ to BONE alone (weight 1)
    --subdivide OBJ CUTS   subdivide every edge of mesh object OBJ CUTS times, as Edit Mode's
                           Subdivide does (new vertices take interpolated weights, UVs and
                           normals)
    --delete-object NAME   delete an object
    --duplicate-object NAME
                           copy an object and its mesh in place (Blender names it NAME.001)
    --set-material NAME MATERIAL
                           give every face of NAME the material MATERIAL (if missing, made as a
                           copy of NAME's material)
    --add-bone PARENT NAME add a bone NAME under PARENT, from PARENT's tail 5 cm up
    --add-mesh NAME BONE   add a new mesh object NAME (a 4 cm box at BONE's head, 8 vertices,
                           12 triangles) as a modder does: parented to the armature with an
                           Armature modifier, every vertex weighted 1.0 to BONE
    --set-property KEY JSON
                           set the scene's custom property KEY (Scene Properties > Custom
                           Properties; the importer puts the glTF scene extras there) to the
                           JSON value (a number, a list of numbers, a string), as a user
                           typing it in does
    --plain                export without custom properties (a glTF with no rigtrip data, as
                           Blender's exporter writes at its defaults; for `import --onto`)
    --key-rotation ANIMATION BONE FRAME RX RY RZ
                           in the action ANIMATION (an imported glTF animation), turn the
                           bone's pose rotation at scene frame FRAME by the Euler angles
                           (RX, RY, RZ) radians (XYZ, bone space, after its animated rotation)
                           and insert a rotation keyframe there, as a user keying a pose does
    --delete-animation ANIMATION
                           delete the action ANIMATION
    --new-action NAME BONE FRAME ANGLE
                           make a new action NAME on BONE's armature, as a modder starting a
                           move does: the pose cleared, the bone keyed at frames 0, FRAME and
                           2 x FRAME, turned ANGLE radians about its X axis at FRAME and at rest
                           at the others; the action stays active (the one before it is left
                           unassigned, kept by a fake user)
    --new-texture OBJ MATERIAL IMAGE SIZE R G B
                           give mesh object OBJ a new material MATERIAL (all faces) whose base
                           colour is a new SIZE x SIZE image IMAGE filled with R G B (0-255), and
                           a UV map if it has none, as a modder texturing a new mesh does
    --paint-image IMAGE X0 Y0 X1 Y1 R G B
                           paint the pixels [X0, X1) x [Y0, Y1) of the image IMAGE (rows counted
                           from the top, as in the PNG) in the colour R G B (0-255, alpha 255),
                           as a brush in Texture Paint does: the image becomes dirty and the
                           exporter encodes it anew

IN is imported with the glTF importer's default settings. OUT is exported with
"Include > Custom Properties" on (export_extras; off with --plain), everything else at Blender's defaults;
OUT's extension picks the form: .glb binary, .gltf JSON with a separate .bin.
Exit status: 0 written, 2 bad arguments or an unknown bone.
"""
import sys

import bpy
import bmesh  # after bpy: Blender as a module registers bmesh when bpy is imported
from mathutils import Vector


class Usage(Exception):
    """A bad command line: the message says what, the docstring says how."""


class NoBone(Exception):
    """An edit names a bone no armature has (or an object that does not exist)."""


def parse_edits(words):
    """Turns the EDIT words into (op, args) pairs, checking counts and numbers."""
    edits = []
    words = list(words)
    while words:
        op = words.pop(0)
        want = {
            "--move": 4,
            "--rename": 2,
            "--move-vertices": 4,
            "--repaint-weights": 2,
            "--subdivide": 2,
            "--delete-object": 1,
            "--duplicate-object": 1,
            "--set-material": 2,
            "--add-bone": 2,
            "--add-mesh": 2,
            "--set-property": 2,
            "--plain": 0,
            "--key-rotation": 6,
            "--delete-animation": 1,
            "--new-action": 4,
            "--paint-image": 8,
            "--new-texture": 7,
        }.get(op)
        if want is None:
            raise Usage(f"unknown edit {op!r}")
        if len(words) < want:
            raise Usage(f"{op} takes {want} values, got {len(words)}")
        args, words = words[:want], words[want:]
        if op in ("--move", "--move-vertices"):
            try:
                args = [args[0], Vector([float(x) for x in args[1:]])]
            except ValueError:
                raise Usage(f"{op} {args[0]}: DX DY DZ must be numbers, got {args[1:]}")
        if op == "--key-rotation":
            try:
                args = [args[0], args[1], float(args[2]), Vector([float(x) for x in args[3:]])]
            except ValueError:
                raise Usage(f"--key-rotation {args[0]} {args[1]}: FRAME RX RY RZ must be numbers")
        if op == "--subdivide":
            try:
                args = [args[0], int(args[1])]
            except ValueError:
                raise Usage(f"--subdivide {args[0]}: CUTS must be an integer")
        if op == "--new-action":
            try:
                args = [args[0], args[1], float(args[2]), float(args[3])]
            except ValueError:
                raise Usage(f"--new-action {args[0]} {args[1]}: FRAME ANGLE must be numbers")
        if op == "--paint-image":
            try:
                args = [args[0], *[int(x) for x in args[1:]]]
            except ValueError:
                raise Usage(f"--paint-image {args[0]}: X0 Y0 X1 Y1 R G B must be integers")
        if op == "--new-texture":
            try:
                args = [*args[:3], *[int(x) for x in args[3:]]]
            except ValueError:
                raise Usage(f"--new-texture {args[0]}: SIZE R G B must be integers")
        edits.append((op, args))
    return edits


def armature_with(bone):
    """The armature object that has a bone of this name."""
    for obj in bpy.data.objects:
        if obj.type == "ARMATURE" and bone in obj.data.bones:
            return obj
    raise NoBone(f"no armature has a bone named {bone!r}")


def move(bone, delta):
    """Moves a bone's head and tail by `delta`, given in world space."""
    arm = armature_with(bone)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    # Edit bones live in the armature's space.
    local = arm.matrix_world.inverted().to_3x3() @ delta
    edit_bone = arm.data.edit_bones[bone]
    edit_bone.head += local
    edit_bone.tail += local
    bpy.ops.object.mode_set(mode="OBJECT")


def action_named(name):
    """The action of this name."""
    action = bpy.data.actions.get(name)
    if action is None:
        raise NoBone(f"no action named {name!r}")
    return action


def key_rotation(animation, bone, frame, euler):
    """Turns a bone's animated rotation at `frame` in `animation` and keys it there."""
    from mathutils import Euler

    arm = armature_with(bone)
    action = action_named(animation)
    data = arm.animation_data
    before = data.action
    data.action = action
    bpy.context.scene.frame_set(int(frame), subframe=frame - int(frame))
    pose_bone = arm.pose.bones[bone]
    pose_bone.rotation_mode = "QUATERNION"
    pose_bone.rotation_quaternion = pose_bone.rotation_quaternion @ Euler(euler, "XYZ").to_quaternion()
    pose_bone.keyframe_insert("rotation_quaternion", frame=frame)
    data.action = before


def delete_animation(animation):
    """Deletes an action (and the NLA strips that play it)."""
    action = action_named(animation)
    for obj in bpy.data.objects:
        data = obj.animation_data
        if data is None:
            continue
        if data.action == action:
            data.action = None
        for track in list(data.nla_tracks):
            if any(strip.action == action for strip in track.strips):
                data.nla_tracks.remove(track)
    bpy.data.actions.remove(action)


def new_action(name, bone, frame, angle):
    """A new action NAME keying `bone` at frames 0, `frame` and 2 x `frame`: turned `angle`
    radians about its X axis at `frame`, at rest at the others, on a cleared pose; it stays
    the armature's active action, the one before it keeps a fake user."""
    from mathutils import Euler

    arm = armature_with(bone)
    if arm.animation_data is None:
        arm.animation_data_create()
    data = arm.animation_data
    if data.action is not None:
        data.action.use_fake_user = True
    action = bpy.data.actions.new(name)
    action.use_fake_user = True
    data.action = action
    # Pose > Clear Transform > All: a new action starts from the rest pose, not from the pose
    # the last action left on bones it does not key.
    for pose_bone in arm.pose.bones:
        pose_bone.matrix_basis.identity()
    pose_bone = arm.pose.bones[bone]
    pose_bone.rotation_mode = "QUATERNION"
    for f, a in [(0.0, 0.0), (frame, angle), (2.0 * frame, 0.0)]:
        pose_bone.rotation_quaternion = Euler((a, 0.0, 0.0), "XYZ").to_quaternion()
        pose_bone.keyframe_insert("rotation_quaternion", frame=f)


def rename(old, new):
    """Renames a bone."""
    armature_with(old).data.bones[old].name = new


def mesh_object(name):
    """The object of this name."""
    obj = bpy.data.objects.get(name)
    if obj is None:
        raise NoBone(f"no object is named {name!r}")
    return obj


def move_vertices(name, delta):
    """Moves the first half of an object's vertices by `delta`, given in world space."""
    obj = mesh_object(name)
    local = obj.matrix_world.inverted().to_3x3() @ delta
    verts = obj.data.vertices
    for v in list(verts)[: max(1, len(verts) // 2)]:
        v.co += local


def repaint_weights(name, bone):
    """Binds the first three vertices of an object to one bone, weight 1."""
    obj = mesh_object(name)
    group = obj.vertex_groups.get(bone)
    if group is None:
        group = obj.vertex_groups.new(name=bone)
    first = [v.index for v in list(obj.data.vertices)[:3]]
    for g in obj.vertex_groups:
        g.remove(first)
    group.add(first, 1.0, "REPLACE")


def subdivide(name, cuts):
    """Subdivides every edge of a mesh object `cuts` times (Edit Mode > Subdivide)."""
    obj = mesh_object(name)
    bm = bmesh.new()
    bm.from_mesh(obj.data)
    bmesh.ops.subdivide_edges(bm, edges=bm.edges[:], cuts=cuts, use_grid_fill=True)
    bm.to_mesh(obj.data)
    bm.free()
    obj.data.update()


def delete_object(name):
    """Deletes an object."""
    bpy.data.objects.remove(mesh_object(name), do_unlink=True)


def duplicate_object(name):
    """Copies an object and its mesh data in place, into the same collections."""
    obj = mesh_object(name)
    copy = obj.copy()
    if obj.data is not None:
        copy.data = obj.data.copy()
    for c in obj.users_collection:
        c.objects.link(copy)


def set_material(name, material):
    """Gives every face of an object one material."""
    obj = mesh_object(name)
    mat = bpy.data.materials.get(material)
    if mat is None and obj.active_material is not None:
        # A copy of the object's material keeps what it reads (the vertex colours: Blender
        # exports COLOR_0 only for the attribute a material uses).
        mat = obj.active_material.copy()
        mat.name = material
    elif mat is None:
        mat = bpy.data.materials.new(material)
    obj.data.materials.clear()
    obj.data.materials.append(mat)
    for p in obj.data.polygons:
        p.material_index = 0


def add_bone(parent, name):
    """Adds a bone under `parent`, from its tail 5 cm up (armature space)."""
    arm = armature_with(parent)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    p = arm.data.edit_bones[parent]
    b = arm.data.edit_bones.new(name)
    b.head = p.tail.copy()
    b.tail = p.tail + Vector((0.0, 0.0, 0.05))
    b.parent = p
    bpy.ops.object.mode_set(mode="OBJECT")


def add_mesh(name, bone):
    """Adds a box NAME at BONE's head, parented to the armature, weighted 1.0 to BONE."""
    arm = armature_with(bone)
    head = arm.matrix_world @ arm.data.bones[bone].head_local
    h = 0.02
    corners = [(x, y, z) for x in (-h, h) for y in (-h, h) for z in (-h, h)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(head[i] + c[i] for i in range(3)) for c in corners], [], faces)
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    for c in arm.users_collection:
        c.objects.link(obj)
    obj.parent = arm
    obj.matrix_parent_inverse = arm.matrix_world.inverted()
    modifier = obj.modifiers.new("Armature", "ARMATURE")
    modifier.object = arm
    group = obj.vertex_groups.new(name=bone)
    group.add([v.index for v in mesh.vertices], 1.0, "REPLACE")


def set_property(key, value):
    """Sets a custom property of the scene (where the importer put the scene extras)."""
    import json

    try:
        bpy.context.scene[key] = json.loads(value)
    except ValueError as e:
        raise Usage(f"--set-property {key}: {value!r} is not JSON ({e})") from e


def plain():
    """Marks the export as one without custom properties (see main)."""
    global CUSTOM_PROPERTIES
    CUSTOM_PROPERTIES = False


CUSTOM_PROPERTIES = True


def new_texture(obj_name, material, image_name, size, r, g, b):
    """A new material showing a new image, on every face of a mesh object."""
    obj = mesh_object(obj_name)
    image = bpy.data.images.new(image_name, size, size)
    image.generated_color = (r / 255.0, g / 255.0, b / 255.0, 1.0)
    mat = bpy.data.materials.new(material)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = image
    bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
    mat.node_tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    if not obj.data.uv_layers:
        obj.data.uv_layers.new(name="UVMap")
    obj.data.materials.clear()
    obj.data.materials.append(mat)
    for p in obj.data.polygons:
        p.material_index = 0


def paint_image(name, x0, y0, x1, y1, r, g, b):
    """Sets a rectangle of an image's pixels (rows from the top) to one opaque colour."""
    image = bpy.data.images.get(name)
    if image is None:
        raise NoBone(f"no image named {name!r} (there are {sorted(bpy.data.images.keys())})")
    w, h = image.size
    px = [0.0] * (w * h * 4)
    image.pixels.foreach_get(px)
    colour = (r / 255.0, g / 255.0, b / 255.0, 1.0)
    for y in range(max(y0, 0), min(y1, h)):
        row = h - 1 - y  # Blender stores rows bottom first
        for x in range(max(x0, 0), min(x1, w)):
            at = (row * w + x) * 4
            px[at : at + 4] = colour
    image.pixels.foreach_set(px)
    image.update()

EDITS = {
    "--move": move,
    "--rename": rename,
    "--move-vertices": move_vertices,
    "--repaint-weights": repaint_weights,
    "--subdivide": subdivide,
    "--delete-object": delete_object,
    "--duplicate-object": duplicate_object,
    "--set-material": set_material,
    "--add-bone": add_bone,
    "--add-mesh": add_mesh,
    "--set-property": set_property,
    "--plain": plain,
    "--key-rotation": key_rotation,
    "--delete-animation": delete_animation,
    "--new-action": new_action,
    "--paint-image": paint_image,
    "--new-texture": new_texture,
}


def main(argv):
    # Under `blender --python`, the script's own arguments follow "--".
    args = argv[argv.index("--") + 1 :] if "--" in argv else argv[1:]
    try:
        if len(args) < 2 or args[0].startswith("--") or args[1].startswith("--"):
            raise Usage("IN and OUT are needed")
        src, dst = args[0], args[1]
        edits = parse_edits(args[2:])
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=src)
        for op, values in edits:
            EDITS[op](*values)
    except Usage as e:
        print(f"blender-roundtrip: {e}\n{__doc__}", file=sys.stderr)
        return 2
    except NoBone as e:
        print(f"blender-roundtrip: {e}", file=sys.stderr)
        return 2
    form = "GLB" if dst.lower().endswith(".glb") else "GLTF_SEPARATE"
    bpy.ops.export_scene.gltf(filepath=dst, export_format=form, export_extras=CUSTOM_PROPERTIES)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
