"""Test driver for the cloth of a coated archive in the rigtrip Blender add-on;
tests/blender_cloth.rs runs it under tools/blender-python with RIGTRIP_BIN set, and asserts on
the one line "RESULT {json}" it prints.

    cloth_test.py addon NATIVE OUT_SAME OUT_EDITED OUT_DELETED KEY VALUE ADD DELETE
        import the coated archive NATIVE through the add-on and report its cloth: the rig
        collection's cloth properties, the bone collections holding cloth bones and their
        bones with their axes; export OUT_SAME unedited; set the collection's property KEY to
        the number VALUE and add the bone ADD to the `cloth` bone collection, export
        OUT_EDITED; import NATIVE again, delete the bone DELETE in edit mode and export
        OUT_DELETED (rigtrip refuses it)
"""

import json
import os
import sys

import bpy

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import rigtrip_blender  # noqa: E402
from rigtrip_blender import cloth  # noqa: E402


def result(**fields):
    print("RESULT " + json.dumps(fields, sort_keys=True))


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if not rigtrip_blender.is_registered():
        rigtrip_blender.register()


def import_rig(native):
    before = set(bpy.data.collections)
    assert bpy.ops.import_scene.rigtrip(filepath=native) == {"FINISHED"}
    new = set(bpy.data.collections) - before
    (coll,) = [c for c in new if rigtrip_blender.STATE in c]
    return coll


def export_rig(out):
    """Runs the export operator; returns the error it raised, or None."""
    try:
        assert bpy.ops.export_scene.rigtrip(filepath=out) == {"FINISHED"}
    except RuntimeError as e:
        return str(e)
    return None


def plain(value):
    """A custom property's value as JSON data."""
    return value.to_list() if hasattr(value, "to_list") else value


def cloth_bones(coll):
    """Per bone collection holding a cloth bone: its armature, and its bones with their axes."""
    out = {}
    for arm in (o for o in coll.all_objects if o.type == "ARMATURE"):
        for bcoll in cloth._bone_collections(arm):
            if bcoll.name.startswith("cloth"):
                out[bcoll.name] = {
                    "armature": arm.name,
                    "bones": {b.name: b.get(cloth.axis_key(bcoll.name)) for b in bcoll.bones},
                }
    return out


def armature_with(coll, bone):
    return next(o for o in coll.all_objects if o.type == "ARMATURE" and bone in o.data.bones)


def addon(native, same, edited, deleted, key, value, add, delete):
    fresh()
    coll = import_rig(native)
    props = {k: plain(coll[k]) for k in coll.keys() if cloth.KEY.match(k)}
    bones = cloth_bones(coll)
    error_same = export_rig(same)

    coll[key] = value
    arm = armature_with(coll, add)
    cloth._bone_collections(arm)["cloth"].assign(arm.data.bones[add])
    error_edited = export_rig(edited)

    fresh()
    coll = import_rig(native)
    arm = armature_with(coll, delete)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    arm.data.edit_bones.remove(arm.data.edit_bones[delete])
    bpy.ops.object.mode_set(mode="OBJECT")
    error_deleted = export_rig(deleted)
    result(props=props, bones=bones, error_same=error_same, error_edited=error_edited,
           error_deleted=error_deleted, deleted_written=os.path.exists(deleted))
    return 0


def main(args):
    if args[0] == "addon":
        return addon(*args[1:6], float(args[6]), args[7], args[8])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]))
