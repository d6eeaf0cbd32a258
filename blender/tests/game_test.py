"""Test driver for the add-on's game folder; tests/blender_game.rs runs it under
tools/blender-python (Blender 4.5 and 5.3) with RIGTRIP_BIN set and BLENDER_USER_RESOURCES set
to an empty folder, and asserts on the one line "RESULT {json}" it prints.

    game_test.py modder GAME WORK NAME MOTIONS KEPT [ZIP]
        enable the add-on as Blender does (from this repository; with ZIP, the release zip
        installed from disk, its own program inside: run without RIGTRIP_BIN), set its preferences (game folder GAME, work folder
        WORK); the names the import's field offers for "PL0"; File > Import > Game rig from
        the game: NAME with the motion archives MOTIONS
        (';'-separated); move the first vertex of the first rig mesh 10 cm up; export over the
        file opened (the export's default) with Install into the game; copy every volume of
        GAME to KEPT (what the install left); then Remove my mods. Reports the Info lines of
        each step, the rig's add-on state and the file exported.
"""

import json
import os
import shutil
import sys
import types

import bpy
import addon_utils  # noqa: E402  (importable once bpy is)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def result(**fields):
    print("RESULT " + json.dumps(fields, sort_keys=True))


def enable(zip_path):
    """Enables the add-on: from this repository, or the release zip installed from disk.
    Returns its module name and module."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if zip_path:
        bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                                 enable_on_install=True)
        (key,) = [m for m in bpy.context.preferences.addons.keys() if "rigtrip" in m]
    else:
        key = "rigtrip_blender"
        addon_utils.enable(key, default_set=True)
    return key, sys.modules[key]


def modder(game, work, name, motions, kept, zip_path=""):
    key, rigtrip_blender = enable(zip_path)
    prefs = bpy.context.preferences.addons[key].preferences
    prefs.game_folder, prefs.work_folder = game, work
    # What the name field offers as "pl0" is typed (the import's search), by the game's lookup.
    offered = rigtrip_blender.game._search_names(
        types.SimpleNamespace(game_folder=""), bpy.context, "PL0")
    before = set(bpy.data.collections)
    assert bpy.ops.import_scene.rigtrip_game(name=name, motions=motions) == {"FINISHED"}
    (coll,) = [c for c in set(bpy.data.collections) - before if rigtrip_blender.STATE in c]
    state = coll[rigtrip_blender.STATE].to_dict()
    mesh = next(o for o in coll.all_objects if o.type == "MESH" and "rigtrip" in o)
    mesh.data.vertices[0].co.z += 0.1
    error = None
    try:
        done = bpy.ops.export_scene.rigtrip(filepath=state["source"], install_into_game=True,
                                            write_motions=False)
        assert done == {"FINISHED"}, done
    except RuntimeError as e:
        error = str(e)
    os.makedirs(kept, exist_ok=True)
    for f in os.listdir(game):
        if f.lower().endswith(".nbz"):
            shutil.copyfile(os.path.join(game, f), os.path.join(kept, f))
    removed = bpy.ops.rigtrip.remove_mods()
    program = rigtrip_blender.runner.which_binary()
    addon_utils.disable(key, default_set=True)
    result(error=error, state=state, removed=sorted(removed), mesh=mesh.name, offered=offered,
           module=key, program=program)
    return 0


def main(args):
    if args[:1] == ["modder"] and len(args) in (6, 7):
        return modder(*args[1:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]))
