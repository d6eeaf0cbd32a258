"""Test driver for the rigtrip Blender add-on; tests/blender_addon.rs runs it under
tools/blender-python with RIGTRIP_BIN set, and asserts on the one line "RESULT {json}" it prints.

    addon_test.py roundtrip NATIVE OUT [BLOCK_AT NODES]
        import NATIVE through the add-on, export OUT with no edit
    addon_test.py move NATIVE OUT SKELETON JOINT DZ
        move the bone of (SKELETON, JOINT) by DZ metres along Blender's Z (up) in edit mode
    addon_test.py scale NATIVE OUT SKELETON JOINT
        scale that bone by 2 in pose mode and export (rigtrip refuses it)
    addon_test.py rename NATIVE OUT SKELETON JOINT NEW
        rename that bone to NEW, export OUT, import OUT again through the add-on
    addon_test.py archive NATIVE OUT PAINT
        import the character archive NATIVE through the add-on (its textures as Blender
        images), with PAINT 1 paint an 8x8 red square at the top left of image texture_0 (as a
        brush does), export OUT; reports the images (name, size, packed)
    addon_test.py check NATIVE OUT TEXTURE IGNORE
        import NATIVE; with TEXTURE >= 0 show the mesh object0_mesh1 with a new material
        texture_TEXTURE (no image); export OUT with Ignore check = IGNORE (0/1)
    addon_test.py coat NATIVE OUT MOVE NEW SHADOWS [ARMS]
        import the coated character archive NATIVE; with MOVE 1 move the first vertex of the
        coat's first mesh 1 cm along x, with NEW 1 add a mesh `pocket` weighted 1.0 to the
        second bone of the coat's own armature (parented to it, as a modder does); export OUT
        (with Rebuild shadows when SHADOWS is 1); with ARMS 1 the body's mesh `object1_mesh0`
        is first moved into the coat's collection (as a modder drags it there);
        reports the rig collection's child collections and their objects
    addon_test.py mesh NATIVE OUT KEEP
        move a vertex of the first rig mesh 10 cm up, export with Keep original meshes = KEEP (0/1)
    addon_test.py motions NATIVE OUT MOTIONS OVERWRITE [BONE_JOINT ANIMATION DELETE]
        import NATIVE with MOTIONS (the add-on's Motions text) and export OUT with the motions
        written (beside OUT; over the files read with OVERWRITE 1); with the optional edits,
        key a rotation of joint BONE_JOINT (skeleton 0) at frame 10 of action ANIMATION and
        delete action DELETE first
    addon_test.py modder NATIVE OUT MOTIONS KEY_JOINT ANIMATION SWORD_JOINT STRAY_JOINT
        import NATIVE with MOTIONS; add a mesh `sword` (in the rig's collection) weighted 1.0 to
        joint SWORD_JOINT and a mesh `stray` in another collection weighted 1.0 to STRAY_JOINT,
        both parented to the armature with an Armature modifier, as a modder does, and a mesh
        `decal` bound to nothing in the rig's collection; key a
        rotation of KEY_JOINT at frame 10 of ANIMATION; export OUT (in another folder)
    addon_test.py new-actions NATIVE OUT MOTIONS JOINT INTO NAME...
        import NATIVE with MOTIONS; make a new action NAME per name keying joint JOINT (0.5 rad
        about its X axis at frame 12, at rest at 0 and 24), the last one left active; export OUT
        with New actions into INTO (empty: NAME.mot beside OUT)
    addon_test.py motion-set NATIVE MOTIONS ALL FAST KEY_JOINT ANIMATION
        import NATIVE with the folder MOTIONS (a whole motion set), key a rotation of joint
        KEY_JOINT at frame 10 of action ANIMATION, then export into the folder ALL with Only
        changed actions off (every action through Blender's exporter, as before) and into
        FAST with it on; reports the seconds each step took and the files of both folders
    addon_test.py fingerprints NATIVE MOTIONS
        import NATIVE with MOTIONS (at least 5 actions), then make one edit per action and
        report, after each, which actions the export would leave out as unchanged: a handle of a
        linear key moved (first action: not an edit), a key made Bézier (second) and its handle
        moved, keys selected (third: not an edit), a frame range set (fourth), a key deleted
        (fifth); then a bone moved in edit mode
    addon_test.py unexportable NATIVE OUT
        bind a curve `rope` to the rig's armature (parent) and a mesh `cape` to it and to a
        second armature (Armature modifiers), then export OUT (refused, naming both)
    addon_test.py targets TARGET OVERWRITE SOURCE...
        where the export would write each motion file SOURCE for the exported file TARGET
        (runner.motion_targets), or the error it refuses with
    addon_test.py onto TEMPLATE OUT JOINT [MOTION_TEMPLATE KEY]
        a rig from elsewhere: TEMPLATE's glTF (rigtrip export) loaded with Blender's own glTF
        importer, every custom property and mesh removed, a mesh `body` weighted 1.0 to joint
        JOINT added; exported OUT through the add-on with Onto template = TEMPLATE
    addon_test.py headless NATIVE
        import NATIVE inside `with rigtrip_blender.registered()`, then register the add-on and
        end without unregistering (the process must still exit)
    addon_test.py missing NATIVE
        what the user is told when the rigtrip program cannot be found
    addon_test.py dist ZIP NATIVE OUT [MOTIONS KEY_JOINT ANIMATION]
        install the platform extension zip ZIP (tools/dist) into this Blender (run with
        BLENDER_USER_RESOURCES set to an empty folder, no RIGTRIP_BIN and no rigtrip on PATH),
        enable it, import NATIVE (with MOTIONS, keying a rotation of joint KEY_JOINT at frame
        10 of ANIMATION) and export OUT through it; reports which program it runs
    addon_test.py winzip ZIP WORKDIR
        check the windows-x64 extension zip without installing it: its manifest's platforms,
        Blender's own validation of it, and the program the add-on in it would run on Windows
        (sys.platform 'win32'), unpacked into WORKDIR
    addon_test.py install WORKDIR NATIVE
        build the extension zip and the classic add-on zip in WORKDIR, install and enable each
        (run with BLENDER_USER_RESOURCES set to an empty folder), and check that its operators
        and its preference (the rigtrip program) work

The add-on is registered from this repository (blender/rigtrip_blender), as Blender would load it.
"""

import json
import os
import sys

import bpy
from mathutils import Vector

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import rigtrip_blender  # noqa: E402
from rigtrip_blender import runner  # noqa: E402


def result(**fields):
    print("RESULT " + json.dumps(fields, sort_keys=True))


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    rigtrip_blender.register()


def import_rig(native, **kw):
    before = set(bpy.data.collections)
    assert bpy.ops.import_scene.rigtrip(filepath=native, **kw) == {"FINISHED"}
    new = set(bpy.data.collections) - before
    # The rig's collection; a coat's child collection holds no add-on state.
    (coll,) = [c for c in new if rigtrip_blender.STATE in c]
    return coll


def export_rig(out, **kw):
    """Runs the export operator; returns the error it raised, or None."""
    try:
        assert bpy.ops.export_scene.rigtrip(filepath=out, **kw) == {"FINISHED"}
    except RuntimeError as e:
        return str(e)
    return None


def bone_of(coll, skeleton, joint):
    for obj in coll.all_objects:
        if obj.type != "ARMATURE":
            continue
        for bone in obj.data.bones:
            ident = bone.get("rigtrip")
            if ident and ident.get("skeleton") == skeleton and ident.get("joint") == joint:
                return obj, bone.name
    raise LookupError(f"no bone for skeleton {skeleton} joint {joint}")


def roundtrip_edits():
    """The edits of tools/blender-roundtrip.py (one implementation of keying and deleting)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                        "blender-roundtrip.py")
    spec = importlib.util.spec_from_file_location("blender_roundtrip", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def add_mesh(name, bone, collection=None):
    """A new mesh NAME weighted 1.0 to BONE, parented to its armature with an Armature modifier
    (tools/blender-roundtrip.py's --add-mesh), moved into `collection` when given."""
    roundtrip_edits().add_mesh(name, bone)
    obj = bpy.data.objects[name]
    if collection is not None:
        for c in list(obj.users_collection):
            c.objects.unlink(obj)
        collection.objects.link(obj)
    return obj


def modder(native, out, motions, key_joint, animation, sword_joint, stray_joint):
    """A modder's session: new meshes under their own names, one outside the rig's collection,
    a keyed motion, the model exported into another folder."""
    coll = import_rig(native, motions=motions)
    _, sword_bone = bone_of(coll, 0, sword_joint)
    _, stray_bone = bone_of(coll, 0, stray_joint)
    add_mesh("sword", sword_bone)
    props = bpy.data.collections.new("props")
    bpy.context.scene.collection.children.link(props)
    stray = add_mesh("stray", stray_bone, props)
    # A mesh bound to nothing, in the rig's collection: exported, not used, named in the report.
    decal = bpy.data.meshes.new("decal")
    decal.from_pydata([(0, 0, 0), (0.1, 0, 0), (0, 0.1, 0)], [], [(0, 1, 2)])
    coll.objects.link(bpy.data.objects.new("decal", decal))
    _, key_bone = bone_of(coll, 0, key_joint)
    roundtrip_edits().key_rotation(animation, key_bone, 10.0, Vector((0.3, 0.2, 0.1)))
    error = export_rig(out)
    result(error=error, source_files=listing(native), files=listing(out),
           stray_in=sorted(c.name for c in stray.users_collection),
           bones=[sword_bone, stray_bone, key_bone])
    return 0


def new_actions(native, out, motions, joint, into, names):
    """A modder's new actions: each made on the armature keying one bone at frames 0, 12 and 24
    (turned 0.5 rad about its X axis at 12, at rest at 0 and 24; tools/blender-roundtrip.py's
    --new-action); the last one stays active, the others are left unassigned with a fake user.
    Exported with New actions into `into` (empty: beside the export)."""
    coll = import_rig(native, motions=motions)
    arm, bone = bone_of(coll, 0, joint)
    for name in names:
        roundtrip_edits().new_action(name, bone, 12.0, 0.5)
    error = export_rig(out, new_actions_into=into)
    data = arm.animation_data
    result(error=error, bone=bone, files=listing(out), source_files=listing(native),
           active=data.action.name if data.action else None)
    return 0


def motion_set(native, motions, every, fast, key_joint, animation):
    """A modder keys one pose of one motion of a whole motion set and exports, once with every
    action through Blender's glTF exporter and once with only the changed ones; each timed."""
    import time

    start = time.perf_counter()
    coll = import_rig(native, motions=motions)
    imported = time.perf_counter() - start
    _, bone = bone_of(coll, 0, key_joint)
    roundtrip_edits().key_rotation(animation, bone, 10.0, Vector((0.3, 0.2, 0.1)))
    times, errors = {}, {}
    name = os.path.basename(native)
    for folder, only in ((every, False), (fast, True)):
        start = time.perf_counter()
        errors[folder] = export_rig(os.path.join(folder, name), only_changed_actions=only)
        times[folder] = time.perf_counter() - start
    result(import_s=imported, every_s=times[every], fast_s=times[fast], bone=bone,
           actions=len(bpy.data.actions), errors=[errors[every], errors[fast]],
           every_files=sorted(os.listdir(every)), fast_files=sorted(os.listdir(fast)))
    return 0


def fingerprints(native, motions):
    """Which edits of an action make the export give it to Blender's glTF exporter."""
    from rigtrip_blender import actions

    coll = import_rig(native, motions=motions)
    state = coll[rigtrip_blender.STATE]
    scene = bpy.context.scene
    names = sorted(state[actions.ACTIONS].keys())

    def left_out():
        return sorted(a.name for a in actions.unchanged(state, coll, scene))

    def first_points(name):
        curves = [c for _, c in actions._curves(bpy.data.actions[name])]
        return curves[0], curves[0].keyframe_points

    seen = {"imported": left_out()}
    _, points = first_points(names[0])
    seen["interpolations"] = sorted({p.interpolation for p in points})
    # The imported keys are linear: their handles shape nothing.
    points[0].handle_right[1] += 0.1
    seen["linear_handle"] = left_out()
    _, points = first_points(names[1])
    points[0].interpolation = "BEZIER"
    seen["interpolation"] = left_out()
    # On a Bézier key the handle shapes the curve.
    before = actions.action_fingerprint(bpy.data.actions[names[1]])
    points[0].handle_right[1] += 0.1
    seen["bezier_handle_changes"] = before != actions.action_fingerprint(
        bpy.data.actions[names[1]])
    _, points = first_points(names[2])
    for p in points:
        p.select_control_point = not p.select_control_point
    seen["selected"] = left_out()
    action = bpy.data.actions[names[3]]
    action.use_frame_range = True
    action.frame_range = (0.0, 5.0)
    seen["frame_range"] = left_out()
    _, points = first_points(names[4])
    points.remove(points[len(points) - 1])
    seen["key_deleted"] = left_out()
    arm, bone = bone_of(coll, 0, 1)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    arm.data.edit_bones[bone].head.z += 0.05
    bpy.ops.object.mode_set(mode="OBJECT")
    seen["bone_moved"] = left_out()
    result(names=names, seen=seen)
    return 0


def unexportable(native, out):
    """Objects that deform with the rig but cannot be written: the export names them."""
    coll = import_rig(native)
    arm, bone = bone_of(coll, 0, 0)
    curve = bpy.data.objects.new("rope", bpy.data.curves.new("rope", "CURVE"))
    coll.objects.link(curve)
    curve.parent = arm
    other = bpy.data.objects.new("other rig", bpy.data.armatures.new("other rig"))
    bpy.context.scene.collection.objects.link(other)
    cape = add_mesh("cape", bone, bpy.context.scene.collection)
    cape.modifiers.new("Armature.001", "ARMATURE").object = other
    error = export_rig(out)
    result(error=error, files=listing(out))
    return 0


def onto(template, out, joint, motion_template="", keyed_joint=-1):
    """A body from elsewhere on the template's skeleton, written through the add-on; with a
    motion template, an action keying joint `keyed_joint` (as --new-action my_walk BONE 12 0.5) written
    as a new motion beside it."""
    glb = out + ".source.glb"
    runner.run(runner.find_binary(), ["export", template, "-o", glb, "--force"])
    assert bpy.ops.import_scene.gltf(filepath=glb) == {"FINISHED"}
    os.remove(glb)
    for obj in list(bpy.data.objects):
        if obj.type == "MESH":
            bpy.data.objects.remove(obj)
    owners = [bpy.context.scene, *bpy.data.objects, *bpy.data.armatures, *bpy.data.collections]
    owners += [b for a in bpy.data.armatures for b in a.bones]
    for owner in owners:
        for key in list(owner.keys()):
            del owner[key]
    (arm,) = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    bone = next(b.name for b in arm.data.bones if b.name.endswith(f"_{joint}"))
    add_mesh("body", bone)
    if motion_template:
        keyed = next(b.name for b in arm.data.bones
                     if b.name.rsplit("_", 1)[-1] == str(keyed_joint))
        roundtrip_edits().new_action("my_walk", keyed, 12.0, 0.5)
    bpy.context.view_layer.objects.active = bpy.data.objects["body"]
    # On the template's own skeleton every fit leaves the body where it is.
    error = export_rig(out, onto=template, fit="BONES", motion_template=motion_template)
    result(error=error, bone=bone, files=listing(out))
    return 0


def headless(native):
    """The add-on from a script with bpy as a module: the context manager, then a register()
    left standing (the add-on unregisters itself at exit, or the process would hang)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    with rigtrip_blender.registered():
        inside = rigtrip_blender.is_registered()
        import_rig(native)
    after = rigtrip_blender.is_registered()
    rigtrip_blender.register()
    result(inside=inside, after=after, again=rigtrip_blender.is_registered(),
           objects=len(bpy.data.objects))
    return 0


def listing(path):
    return sorted(os.listdir(os.path.dirname(os.path.abspath(path))))


def main(args):
    mode = args[0]
    if mode == "missing":
        return missing(args[1])
    if mode == "install":
        return install(args[1], args[2])
    if mode == "dist":
        return dist(args[1], args[2], args[3], *args[4:5], *map(int, args[5:6]), *args[6:7])
    if mode == "winzip":
        return winzip(args[1], args[2])
    if mode == "headless":
        return headless(args[1])
    if mode == "targets":
        try:
            pairs = runner.motion_targets(args[3:], args[1], overwrite=args[2] == "1")
            result(pairs=pairs, error=None)
        except runner.RigtripError as e:
            result(pairs=None, error=str(e))
        return 0
    if mode == "onto":
        fresh()
        return onto(args[1], args[2], int(args[3]), *args[4:5], *map(int, args[5:6]))
    if mode == "new-actions":
        fresh()
        return new_actions(args[1], args[2], args[3], int(args[4]), args[5], args[6:])
    if mode == "motion-set":
        fresh()
        return motion_set(args[1], args[2], args[3], args[4], int(args[5]), args[6])
    if mode == "fingerprints":
        fresh()
        return fingerprints(args[1], args[2])
    if mode == "unexportable":
        fresh()
        return unexportable(args[1], args[2])
    if mode == "modder":
        fresh()
        return modder(args[1], args[2], args[3], int(args[4]), args[5], int(args[6]),
                      int(args[7]))
    fresh()
    native, out = args[1], args[2]
    if mode == "roundtrip":
        kw = {}
        if len(args) > 3:
            kw = {"block_at": args[3], "nodes": int(args[4])}
        import_rig(native, **kw)
        error = export_rig(out)
        result(error=error, files=listing(out))
        return 0
    if mode == "motions":
        coll = import_rig(native, motions=args[3])
        actions = sorted(a.name for a in bpy.data.actions)
        bone = None
        if len(args) > 5:
            _, bone = bone_of(coll, 0, int(args[5]))
            edits = roundtrip_edits()
            edits.key_rotation(args[6], bone, 10.0, Vector((0.3, 0.2, 0.1)))
            edits.delete_animation(args[7])
        error = export_rig(out, overwrite_motions=args[4] == "1")
        result(bone=bone, actions=actions, state=coll[rigtrip_blender.STATE].to_dict(),
               error=error, files=listing(out), source_files=listing(native))
        return 0
    if mode == "archive":
        return archive(native, out, args[3] == "1")
    if mode == "check":
        return check(native, out, int(args[3]), args[4] == "1")
    if mode == "coat":
        return coat(native, out, args[3] == "1", args[4] == "1", args[5] == "1",
                    args[6:7] == ["1"])
    coll = import_rig(native)
    if mode == "mesh":
        mesh = next(o for o in coll.all_objects if o.type == "MESH" and "rigtrip" in o)
        mesh.data.vertices[0].co.z += 0.1
        error = export_rig(out, keep_meshes=args[3] == "1")
        result(mesh=mesh.name, error=error, files=listing(out))
        return 0
    skeleton, joint = int(args[3]), int(args[4])
    arm, name = bone_of(coll, skeleton, joint)
    if mode == "move":
        dz = float(args[5])
        bpy.context.view_layer.objects.active = arm
        bpy.ops.object.mode_set(mode="EDIT")
        eb = arm.data.edit_bones[name]
        local = arm.matrix_world.inverted().to_3x3() @ Vector((0.0, 0.0, dz))
        eb.head += local
        eb.tail += local
        # Left in edit mode on purpose: the export must take the edit as it is shown.
        error = export_rig(out)
        result(bone=name, error=error, files=listing(out))
    elif mode == "scale":
        arm.pose.bones[name].scale = (2.0, 2.0, 2.0)
        error = export_rig(out)
        result(bone=name, error=error, files=listing(out))
    elif mode == "rename":
        arm.data.bones[name].name = args[5]
        error = export_rig(out)
        names_file = runner.names_path(out)
        again = import_rig(out)
        _, renamed = bone_of(again, skeleton, joint)
        with open(names_file, encoding="utf-8") as f:
            names = json.load(f)
        result(bone=name, error=error, reimported=renamed, names=names, files=listing(out))
    else:
        print(__doc__)
        return 2
    return 0


def check(native, out, texture, ignore):
    """A model or archive in; with `texture` >= 0 the mesh object0_mesh1 shown with a new
    material texture_N (N = `texture`, no image); out, with Ignore check as `ignore` says."""
    coll = import_rig(native)
    if texture >= 0:
        mesh = next(o for o in coll.all_objects
                    if o.type == "MESH" and o.name.startswith("object0_mesh1"))
        mesh.data.materials.clear()
        mesh.data.materials.append(bpy.data.materials.new(f"texture_{texture}"))
    error = export_rig(out, ignore_check=ignore)
    result(error=error, files=listing(out))
    return 0


def archive(native, out, paint):
    """An archive in, its images shown, optionally one painted, the archive out."""
    import_rig(native)
    images = [
        {"name": i.name, "size": list(i.size), "packed": i.packed_file is not None}
        for i in sorted(bpy.data.images, key=lambda i: i.name)
    ]
    if paint:
        roundtrip_edits().paint_image("texture_0", 0, 0, 8, 8, 255, 0, 0)
    error = export_rig(out)
    result(images=images, error=error, files=listing(out))
    return 0


def coat(native, out, move, new, shadows, arms):
    """A coated archive in, its coat edited in its own collection, the archive out."""
    coll = import_rig(native)
    children = {c.name: sorted(o.name for o in c.objects) for c in coll.children}
    part = coll.children[0]
    if arms:
        body_arms = coll.objects["object1_mesh0"]
        coll.objects.unlink(body_arms)
        part.objects.link(body_arms)
    mesh = next(o for o in part.objects if o.type == "MESH")
    if move:
        mesh.data.vertices[0].co.x += 0.01
    pocket = None
    if new:
        arm = next(o for o in part.objects if o.type == "ARMATURE")
        pocket = add_mesh("pocket", arm.data.bones[1].name)
        pocket = sorted(c.name for c in pocket.users_collection)
    error = export_rig(out, rebuild_shadows=shadows)
    names = sorted(o.name for o in coll.all_objects)
    result(children=children, error=error, files=listing(out), moved=mesh.name, pocket=pocket,
           names_after=names)
    return 0


def missing(native):
    """The three ways of not finding rigtrip, unit by unit, then through the import operator."""
    messages = {
        "env": "",
        "preference": "",
        "path": "",
    }
    for key, kwargs in (
        ("env", {"env": {"RIGTRIP_BIN": "/nonexistent/rigtrip", "PATH": ""}}),
        ("preference", {"env": {"PATH": ""}, "preference": "/nonexistent/rigtrip"}),
        ("path", {"env": {"PATH": ""}}),
    ):
        try:
            runner.find_binary(**kwargs)
        except runner.RigtripError as e:
            messages[key] = str(e)
    fresh()
    os.environ["RIGTRIP_BIN"] = "/nonexistent/rigtrip"
    try:
        bpy.ops.import_scene.rigtrip(filepath=native)
        operator = None
    except RuntimeError as e:
        operator = str(e)
    objects = len(bpy.data.objects)
    result(operator=operator, objects=objects, **messages)
    return 0


def manifest_version(folder):
    """The `version` of the blender_manifest.toml in `folder`."""
    with open(os.path.join(folder, "blender_manifest.toml"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("version"):
                return line.split("=", 1)[1].strip().strip('"')
    raise AssertionError(f"no version in {folder}/blender_manifest.toml")


def dist(zip_path, native, out, motions="", key_joint=0, animation=""):
    """The release zip as a modder installs it: Install from Disk, then import (with `motions`
    when given, keying a rotation of `key_joint` in `animation`) and export."""
    import addon_utils

    bpy.ops.wm.read_factory_settings(use_empty=True)
    assert "RIGTRIP_BIN" not in os.environ
    bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                             enable_on_install=True)
    enabled = sorted(m for m in bpy.context.preferences.addons.keys() if "rigtrip" in m)
    module = sys.modules[enabled[0]]
    path, how = module.runner.which_binary()
    status = [line for line, _ in module.program_status()]
    if motions:
        coll = import_rig(native, motions=motions)
        _, bone = bone_of(coll, 0, key_joint)
        roundtrip_edits().key_rotation(animation, bone, 10.0, Vector((0.3, 0.2, 0.1)))
    else:
        import_rig(native)
    error = export_rig(out)
    for name in enabled:
        addon_utils.disable(name, default_set=True)
    result(enabled=enabled, program=path, how=how, status=status, error=error,
           installed_in=os.path.dirname(module.__file__))
    return 0


def winzip(zip_path, workdir):
    """What the Windows zip holds, and what its add-on would run there."""
    import importlib.util
    import subprocess
    import zipfile

    with zipfile.ZipFile(zip_path) as z:
        names = sorted(z.namelist())
        manifest = z.read("blender_manifest.toml").decode("utf-8")
        z.extractall(workdir)
    platforms = [line for line in manifest.splitlines() if line.startswith("platforms")]
    tool = os.path.join(bpy.utils.system_resource("SCRIPTS"), "addons_core", "bl_pkg", "cli",
                        "blender_ext.py")
    check = subprocess.run([sys.executable, tool, "validate", zip_path], capture_output=True,
                           text=True)
    spec = importlib.util.spec_from_file_location("win_runner",
                                                  os.path.join(workdir, "runner.py"))
    win_runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(win_runner)
    path, how = win_runner.which_binary(env={}, platform="win32",
                                        folder=os.path.join(workdir, "bin"))
    result(names=names, platforms=platforms, validate=check.returncode,
           validate_output=(check.stdout + check.stderr).strip(),
           program=os.path.relpath(path, workdir), how=how)
    return 0


def install(workdir, native):
    """Both ways of installing the add-on that the guide gives (guide/addon.md), in a throw-away user folder."""
    import addon_utils
    import subprocess
    import zipfile

    source = os.path.dirname(os.path.abspath(rigtrip_blender.__file__))
    tool = os.path.join(bpy.utils.system_resource("SCRIPTS"), "addons_core", "bl_pkg", "cli",
                        "blender_ext.py")
    build = subprocess.run([sys.executable, tool, "build", "--source-dir", source,
                            "--output-dir", workdir], capture_output=True, text=True)
    extension = os.path.join(workdir, f"rigtrip-{manifest_version(source)}.zip")
    classic = os.path.join(workdir, "rigtrip_blender.zip")
    with zipfile.ZipFile(classic, "w") as z:
        for name in sorted(os.listdir(source)):
            if name.endswith((".py", ".toml")):
                z.write(os.path.join(source, name), f"rigtrip_blender/{name}")
    os.environ.pop("RIGTRIP_BIN", None)
    out = {"build": build.returncode}
    for key, path in (("extension", extension), ("classic", classic)):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        if key == "extension":
            bpy.ops.extensions.package_install_files(filepath=path, repo="user_default",
                                                     enable_on_install=True)
        else:
            bpy.ops.preferences.addon_install(filepath=path)
            addon_utils.enable("rigtrip_blender", default_set=True)
        enabled = sorted(m for m in bpy.context.preferences.addons.keys() if "rigtrip" in m)
        menus = [f.__name__ for f in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()
                 if "rigtrip" in getattr(f, "__module__", "")]
        bpy.context.preferences.addons[enabled[0]].preferences.binary = "/nonexistent/rigtrip"
        try:
            bpy.ops.import_scene.rigtrip(filepath=native)
            error = None
        except RuntimeError as e:
            error = str(e)
        for module in enabled:
            addon_utils.disable(module, default_set=True)
        out[key] = {"enabled": enabled, "menus": menus, "error": error}
    result(**out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]))
