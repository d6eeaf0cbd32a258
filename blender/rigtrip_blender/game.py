"""The game folder: open a character or motion archive straight from the game, install an
exported file into it, and remove what was installed, through `rigtrip game`.

The game (Devil May Cry 3, HD Collection) keeps its files in ZIP volumes `DMC3-N.nbz` beside
its program. *File > Import > Game rig from the game (rigtrip)* lists what the game would load
by its own lookup (`rigtrip game list --json`), copies the chosen archive (and motion archives)
into the work folder (`rigtrip game extract`) and imports it with the add-on's own import; the
rig's collection remembers the game folder and the name the game asks for. The export's
*Install into the game* runs `rigtrip game install` on the file just written (rigtrip checks it
first and refuses what would stop the game), into a volume of rigtrip's own; *Remove my mods*
in the preferences runs `rigtrip game uninstall`.
"""

import filecmp
import os
import shutil
import tempfile

import bpy
from bpy.props import StringProperty

from . import runner

#: The keys of the rig collection's add-on state that say where in the game it came from.
GAME_FOLDER, GAME_NAME = "game_folder", "game_name"

#: The extensions offered by the import (archives of characters, enemies, stages, motions).
IMPORTABLE = (".pac", ".mod", ".scm")


def game_folder_property():
    """The preference: the game's folder."""
    return StringProperty(
        name="Game folder",
        description="The folder holding the game's DMC3-0.nbz (the HD Collection's install "
        "folder): Import > Game rig from the game lists its files, the export installs into it",
        subtype="DIR_PATH",
        default="",
    )


def work_folder_property():
    """The preference: where files taken from the game are put to be edited."""
    return StringProperty(
        name="Work folder",
        description="Where files opened from the game are copied to (and exported to by "
        "default); empty: a folder rigtrip-game in your home folder",
        subtype="DIR_PATH",
        default="",
    )


def _preferences(context):
    addon = context.preferences.addons.get(__package__)
    return addon.preferences if addon is not None else None


def game_folder(context, given=""):
    """The game folder to use: `given`, else the preference; RigtripError when neither."""
    prefs = _preferences(context)
    folder = given or (prefs.game_folder if prefs is not None else "")
    folder = bpy.path.abspath(folder) if folder else ""
    if not folder:
        raise runner.RigtripError(
            "no game folder: set it in Edit > Preferences > Add-ons > rigtrip (the folder "
            "holding DMC3-0.nbz)"
        )
    return os.path.abspath(folder)


def work_folder(context, given=""):
    """The work folder (made when missing)."""
    prefs = _preferences(context)
    folder = given or (prefs.work_folder if prefs is not None else "")
    folder = bpy.path.abspath(folder) if folder else os.path.join(
        os.path.expanduser("~"), "rigtrip-game")
    os.makedirs(folder, exist_ok=True)
    return os.path.abspath(folder)


def game_name(request):
    """The name the game asks for when asked for `request`: its base name, lower-cased."""
    return request.replace("\\", "/").rsplit("/", 1)[-1].lower()


def place(located):
    """How a report names where a file comes from: `DMC3-1.nbz:GData.afs/pl000.pac`."""
    return f"{located['source']}:{located['entry']}"


def install_lines(report):
    """Lines for the Info area from `rigtrip game install --json`: which volume now holds
    what, and what each file overrides."""
    volume = report["volume"]
    lines = []
    for f in report["files"]:
        line = f"installed {f['name']} into {volume['file']} as {f['entry']}"
        if f["overrides"]:
            line += " (the game loaded " + place(f["overrides"][0]) + " before)"
        lines.append(line)
        if not f["checked"]:
            lines.append(f"note: {f['name']} was not checked: this rigtrip has no check yet")
        for x in f["findings"]:
            lines.append(f"{x['severity']}: {x['place']}, {x['field']}: {x['problem']}")
    lines += [f"note: {n}" for n in report["notes"]]
    new = " (new)" if volume["new"] else ""
    lines.append(f"{volume['file']}{new} now holds {volume['entries']} file(s) rigtrip installed")
    return lines


def uninstall_lines(report):
    """Lines for the Info area from `rigtrip game uninstall --json`."""
    lines = []
    for r in report["removed"]:
        now = place(r["now"]) if r["now"] else "nothing (a file only your mod had)"
        lines.append(f"removed {r['name']}: the game loads {now} again")
    lines += [f"note: {n}" for n in report["notes"]]
    volume = report["volume"]
    if volume and volume["deleted"]:
        lines.append(f"deleted {volume['file']}, rigtrip's volume")
    elif volume:
        lines.append(f"{volume['file']} holds {volume['entries']} file(s) rigtrip installed")
    return lines


_listed = {}


def game_files(binary, folder):
    """The names of the files the game would load that the import can open, by the game's
    own lookup; asked once per folder until its volumes change."""
    try:
        key = (folder, tuple(sorted((n, os.stat(os.path.join(folder, n)).st_mtime_ns)
                                    for n in os.listdir(folder) if n.lower().endswith(".nbz"))))
    except OSError as e:
        raise runner.RigtripError(f"cannot read the game folder {folder}: {e.strerror or e}")
    if key not in _listed:
        report = runner.run(binary, ["game", "list", "--json", "--game", folder])
        _listed[key] = [f["name"] for f in report["files"]]
    return _listed[key]


def extract_into(binary, folder, names, work):
    """Copies what the game loads for each of `names` into `work`; returns their paths. A file
    already there is used when it holds the same bytes, else refused (it is someone's edit)."""
    tmp = tempfile.mkdtemp(prefix="rigtrip-game-")
    try:
        runner.run(binary, ["game", "extract", "--json", "--game", folder, *names, "-o", tmp],
                   hide=[tmp + os.sep])
        paths = []
        for name in sorted(os.listdir(tmp)):
            made, dest = os.path.join(tmp, name), os.path.join(work, name)
            if os.path.exists(dest) and not filecmp.cmp(made, dest, shallow=False):
                raise runner.RigtripError(
                    f"{dest} exists and is not what the game loads (an edit of yours?): move "
                    "it away, or choose another work folder in the add-on's preferences")
            if not os.path.exists(dest):
                shutil.copyfile(made, dest)
            paths.append(dest)
        return paths
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _search_names(self, context, edit_text):
    """The game's files the import can open whose names hold what is typed."""
    try:
        binary = _binary(context)
        names = game_files(binary, game_folder(context, self.game_folder))
    except runner.RigtripError:
        return []
    typed = edit_text.lower()
    return [n for n in names if n.endswith(IMPORTABLE) and typed in n][:200]


def _binary(context):
    prefs = _preferences(context)
    return runner.find_binary(preference=prefs.binary if prefs is not None else "")


class IMPORT_SCENE_OT_rigtrip_game(bpy.types.Operator):
    """Open a character archive (and motion archives) the way the game loads it, from its
    folder, through rigtrip"""

    bl_idname = "import_scene.rigtrip_game"
    bl_label = "Import Game Rig from the Game (rigtrip)"
    bl_options = {"REGISTER", "UNDO"}

    name: StringProperty(
        name="File",
        description="The archive or model the game loads (pl000.pac: Dante), as the game names "
        "it; type to search",
        search=_search_names,
        default="",
    )
    motions: StringProperty(
        name="Motions",
        description="Motion archives of the game to add as animations, separated by ';' "
        "(pl000_00_0.pac;pl000_00_1.pac); empty: none",
        default="",
    )
    game_folder: StringProperty(
        name="Game folder",
        description="The folder holding DMC3-0.nbz (empty: the add-on's preference)",
        subtype="DIR_PATH",
        default="",
    )

    def invoke(self, context, event):
        return context.window_manager.invoke_props_dialog(self, width=420)

    def execute(self, context):
        return runner.reported(self, self._import, context)

    def _import(self, context):
        folder = game_folder(context, self.game_folder)
        binary = _binary(context)
        name = self.name.strip()
        if not name:
            raise runner.RigtripError("no file named: type the name the game loads (pl000.pac)")
        motions = [m.strip() for m in self.motions.split(";") if m.strip()]
        paths = extract_into(binary, folder, [name, *motions], work_folder(context))
        by_name = {os.path.basename(p): p for p in paths}
        source = by_name[game_name(name)]
        moved = [by_name[game_name(m)] for m in motions]
        before = set(bpy.data.collections)
        result = bpy.ops.import_scene.rigtrip(filepath=source, motions=";".join(moved))
        if "FINISHED" not in result:
            return {"CANCELLED"}
        for coll in set(bpy.data.collections) - before:
            state = coll.get("rigtrip_blender")
            if state is not None:
                state[GAME_FOLDER] = folder
                state[GAME_NAME] = game_name(name)
        self.report({"INFO"}, f"opened {os.path.basename(source)} from the game in {folder}, "
                    f"copied to {source}")
        return {"FINISHED"}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "name")
        layout.prop(self, "motions")
        layout.prop(self, "game_folder")


def install_exported(operator, context, state, target, given_folder=""):
    """Installs the exported `target` into the game (`rigtrip game install`), under the name
    the game asked for when the rig came from it; reports which volume now holds what."""
    name = state.get(GAME_NAME) or game_name(target)
    try:
        folder = game_folder(context, given_folder or state.get(GAME_FOLDER, ""))
        report = runner.run(_binary(context),
                            ["game", "install", "--json", "--game", folder, target, "--as", name])
    except runner.RigtripError as e:
        raise runner.RigtripError(f"wrote {target}, but did not install it into the game: {e}")
    for line in install_lines(report):
        operator.report({"INFO"}, line)


class RIGTRIP_OT_remove_mods(bpy.types.Operator):
    """Remove every file rigtrip installed into the game (its own volume; the game's and other
    mods' volumes are never touched)"""

    bl_idname = "rigtrip.remove_mods"
    bl_label = "Remove my mods"
    bl_options = {"REGISTER"}

    game_folder: StringProperty(
        name="Game folder",
        description="The folder holding DMC3-0.nbz (empty: the add-on's preference)",
        subtype="DIR_PATH",
        default="",
    )

    def execute(self, context):
        return runner.reported(self, self._uninstall, context)

    def _uninstall(self, context):
        folder = game_folder(context, self.game_folder)
        report = runner.run(_binary(context),
                            ["game", "uninstall", "--json", "--game", folder])
        for line in uninstall_lines(report):
            self.report({"INFO"}, line)
        return {"FINISHED"}


def draw_preferences(layout, prefs):
    """The preferences' game section."""
    box = layout.box()
    box.label(text="The game (Devil May Cry 3 HD Collection)")
    box.prop(prefs, "game_folder")
    box.prop(prefs, "work_folder")
    box.operator(RIGTRIP_OT_remove_mods.bl_idname, icon="TRASH")


def menu_import_game(self, context):
    self.layout.operator(IMPORT_SCENE_OT_rigtrip_game.bl_idname,
                         text="Game rig from the game (rigtrip)")


CLASSES = (IMPORT_SCENE_OT_rigtrip_game, RIGTRIP_OT_remove_mods)
