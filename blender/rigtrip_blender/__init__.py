"""rigtrip for Blender: File > Import / Export > Game rig (rigtrip).

Import runs `rigtrip export` on a native rig file (DMC3 .mod/.scm, a DMC3 character archive
.pac, PlayStation DBnnHIE.BIN, or a node-domain block inside any file), with DMC3 motions
(.mot/.pac) as animations when given and a loose texture file (.ptx/.tm2) for a model, and
loads the GLB with Blender's glTF importer into a new collection named after the file. That
collection keeps what the way back needs: rigtrip's scene extras (custom property `rigtrip`) and
the add-on's own state (`rigtrip_blender`: source path, block offset and node count, motion
files). The textures arrive as images on the materials (the GLB's PNGs, packed into the .blend
and named texture_N as in the GLB); their native bytes ride in each PNG, so an archive is
written back whole, byte for byte when nothing was edited.

Export writes that collection with Blender's glTF exporter, with the settings a lossless round
trip needs (custom properties on, the pose shown as the rest pose), runs `rigtrip import --json`
into a temporary file beside the target, and only on success moves it into place, with the motion
files rebuilt from the animations beside it (under the names of the files read; over those files
only with "Overwrite the motion files read"). Only the actions changed since the import go
through the glTF exporter (see actions.py); the motions of the others are kept as read. Every
mesh that deforms with the rig's armature is
written, in its collection or not; one that cannot be is refused by name. A refused edit
becomes an error naming the joint; rigtrip's report goes to the Info area. Joint names chosen in
Blender are kept in `<name>.names.json` beside the native file (`rigtrip import` writes it beside
its output; the add-on moves it beside the target) and read back on the next import.

A coated archive's cloth (see cloth.py): its simulated bones are a bone collection `cloth` of the
coat's armature, its parameters custom properties of the rig's collection; edits to either are
written into the cloth text at export.

With "Onto template", export writes the active armature and the meshes deforming with it, a rig
made or imported elsewhere, onto a native file of the game (`rigtrip import --onto`).

The game's own folder (game.py): File > Import > Game rig from the game opens an archive as the
game loads it, the export's "Install into the game" installs the file written, and "Remove my
mods" in the preferences takes it out again (`rigtrip game`).
"""

import atexit
import contextlib
import os
import shutil
import tempfile
import uuid

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import actions, cloth, findings, game, runner

bl_info = {
    "name": "rigtrip",
    "author": "rigtrip developers",
    "version": (0, 2, 0),
    "blender": (4, 5, 0),
    "location": "File > Import > Game rig (rigtrip), File > Export > Game rig (rigtrip)",
    "description": "Import and export game rigs losslessly through the rigtrip program",
    "category": "Import-Export",
}

#: The files the operators list: models, character archives, hierarchy tables, effects.
FILE_GLOB = "*.mod;*.scm;*.pac;*.bin;*.BIN;*.efm"

#: Collection custom property holding rigtrip's scene extras (exported as the glTF scene extras).
EXTRAS = "rigtrip"
#: Child collection custom property naming the archive part (a coat) whose objects it holds.
PART = "rigtrip_part"
#: Collection custom property holding the add-on's own state.
STATE = "rigtrip_blender"

#: glTF importer settings: Blender's defaults, spelled out (another bone heuristic rotates bones;
#: scene extras go to the rig's collection instead of the scene).
GLTF_IMPORT = {
    "bone_heuristic": "BLENDER",
    "guess_original_bind_pose": True,
    "merge_vertices": False,
    "import_shading": "NORMALS",
    "import_scene_extras": False,
    "import_scene_as_collection": True,
}

#: glTF exporter settings for a lossless round trip: custom properties on (rigtrip's extras), the
#: rig's collection only (its custom properties become the scene extras), every bone (not only
#: deforming ones, no added leaf bones), modifiers not applied, and the pose shown in the viewport
#: written as the rest pose, so that a pose-mode change is written (or refused) like an edit-mode
#: one instead of silently dropped.
GLTF_EXPORT = {
    "export_format": "GLB",
    "export_extras": True,
    "export_yup": True,
    "export_apply": False,
    "export_skins": True,
    "export_def_bones": False,
    "export_leaf_bone": False,
    "export_hierarchy_flatten_bones": False,
    "export_armature_object_remove": False,
    "export_rest_position_armature": False,
    "export_animations": False,
    "use_selection": False,
    "use_visible": False,
    "use_renderable": False,
    "use_active_collection": False,
}

#: What changes for a rig imported with motions: the rest pose is the edit-mode skeleton, since
#: the pose shown is the animation's at the current frame, not an edit; its animations are
#: written (every action, Blender's defaults for sampling) when the motions are written back.
GLTF_EXPORT_MOTIONS = {
    "export_rest_position_armature": True,
}


#: How the program in use was found, as the preferences say it.
FOUND_HOW = {
    "bundled": "bundled with the add-on",
    "RIGTRIP_BIN": "from the RIGTRIP_BIN environment variable",
    "preference": "from this preference",
    "PATH": "found on PATH",
}


def program_status(preference=""):
    """What the preferences show about the program: lines (text, is_error)."""
    try:
        path, how = runner.which_binary(preference=preference)
    except runner.RigtripError as e:
        return [(str(e), True)]
    return [
        (f"Program: {path}", False),
        (f"Found: {FOUND_HOW[how]}", False),
        (f"Version: {runner.version(path)}", False),
    ]


class RigtripPreferences(bpy.types.AddonPreferences):
    """Where the rigtrip program is, when the add-on has none inside and RIGTRIP_BIN does not
    say; the panel shows which program runs and its version."""

    bl_idname = __package__

    binary: StringProperty(
        name="rigtrip program",
        description="Path of the rigtrip program, used when the add-on has none inside and "
        "RIGTRIP_BIN is not set (empty: PATH)",
        subtype="FILE_PATH",
        default="",
    )
    game_folder: game.game_folder_property()
    work_folder: game.work_folder_property()

    def draw(self, context):
        self.layout.prop(self, "binary")
        box = self.layout.box()
        for line, error in program_status(self.binary):
            box.label(text=line, icon="ERROR" if error else "NONE")
        game.draw_preferences(self.layout, self)


def _supported(operator, settings):
    """The settings `operator` knows (the add-on runs on Blender 4.2 and later)."""
    known = operator.get_rna_type().properties.keys()
    return {k: v for k, v in settings.items() if k in known}


def _binary(context):
    addon = context.preferences.addons.get(__package__)
    preference = addon.preferences.binary if addon is not None else ""
    return runner.find_binary(preference=preference)


def _set_property(owner, key, value):
    """Sets a custom property the way Blender's glTF importer sets extras (a value Blender cannot
    hold becomes its str(), which rigtrip reads back)."""
    try:
        owner[key] = value
    except Exception:
        owner[key] = str(value)


def rig_collections(scene):
    """Collections of `scene` holding a rig imported by this add-on."""
    return [c for c in scene.collection.children_recursive if STATE in c and EXTRAS in c]


def find_rig(context, name=""):
    """The rig to export: the collection named `name`, else the one holding the active or a
    selected object, else the only one in the scene."""
    if name:
        coll = bpy.data.collections.get(name)
        if coll is None or STATE not in coll or EXTRAS not in coll:
            raise runner.RigtripError(f"no rig imported by rigtrip in a collection named {name!r}")
        return coll
    rigs = rig_collections(context.scene)
    candidates = [context.view_layer.objects.active, *context.selected_objects]
    for obj in candidates:
        if obj is None:
            continue
        for coll in rigs:
            if coll.all_objects.get(obj.name) == obj:
                return coll
    if len(rigs) == 1:
        return rigs[0]
    if not rigs:
        raise runner.RigtripError(
            "no rig in this scene was imported with File > Import > Game rig (rigtrip)"
        )
    listed = ", ".join(c.name for c in rigs)
    raise runner.RigtripError(
        f"{len(rigs)} rigs in this scene ({listed}): select an object of the one to export"
    )


def _report_lines(operator, lines):
    for line in lines:
        operator.report({"INFO"}, line)


def _pack_images(coll):
    """Packs the images of the materials of `coll`'s meshes (their PNG bytes, rgTX chunk and
    all, as Blender's glTF importer read them)."""
    for obj in coll.all_objects:
        for slot in getattr(obj, "material_slots", []):
            tree = slot.material.node_tree if slot.material and slot.material.node_tree else None
            for node in tree.nodes if tree else []:
                image = getattr(node, "image", None)
                if image is not None and image.packed_file is None:
                    image.pack()


class IMPORT_SCENE_OT_rigtrip(bpy.types.Operator, ImportHelper):
    """Import a game rig (DMC3 .mod/.scm, a DMC3 character archive .pac, DBnnHIE.BIN, a
    node-domain block) through rigtrip"""

    bl_idname = "import_scene.rigtrip"
    bl_label = "Import Game Rig (rigtrip)"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ""
    filter_glob: StringProperty(default=FILE_GLOB, options={"HIDDEN"})

    file_format: EnumProperty(
        name="Format",
        items=(
            ("AUTO", "Detect", "Detect the format from the file's content"),
            ("hie", "DBnnHIE.BIN", "PlayStation database hierarchy table"),
            ("dmc3", "DMC3 .mod/.scm", "Devil May Cry 3 model container"),
        ),
        default="AUTO",
    )
    block_at: StringProperty(
        name="Block offset",
        description="Byte offset of a DMC3 node-domain block inside any file (decimal or 0x-hex); "
        "empty for a whole rig file",
        default="",
    )
    nodes: IntProperty(
        name="Nodes",
        description="Node count of the block at Block offset",
        default=0,
        min=0,
    )
    use_names: BoolProperty(
        name="Joint names",
        description="Read joint names from the names file (default: NAME.names.json beside the "
        "file, written by the export)",
        default=True,
    )
    names_file: StringProperty(
        name="Names file",
        description="Joint names as JSON (empty: NAME.names.json beside the file, if there is one)",
        subtype="FILE_PATH",
        default="",
    )
    textures: StringProperty(
        name="Textures",
        description="For a DMC3 model: its textures, a .ptx bundle or a .tm2 entry, as images on "
        "its materials (rigtrip export --textures; empty: none; an archive brings its own)",
        subtype="FILE_PATH",
        default="",
    )
    motions: StringProperty(
        name="Motions",
        description="DMC3 motions (.mot) or archives (.pac) to add as animations, one per motion: "
        "a file, a folder (every .mot and .pac in it), or several separated by ';' (empty: none)",
        subtype="FILE_PATH",
        default="",
    )

    def execute(self, context):
        return runner.reported(self, self._import, context)

    def _import(self, context):
        source = os.path.abspath(bpy.path.abspath(self.filepath))
        if not os.path.isfile(source):
            raise runner.RigtripError(f"{source} is not a file")
        block_at = self.block_at.strip()
        if bool(block_at) != (self.nodes > 0):
            raise runner.RigtripError("give both the block offset and its node count, or neither")
        names = ""
        if self.use_names:
            names = bpy.path.abspath(self.names_file) if self.names_file else ""
            if not names and os.path.isfile(runner.names_path(source)):
                names = runner.names_path(source)
        motions = runner.motion_files(bpy.path.abspath(self.motions))
        textures = bpy.path.abspath(self.textures) if self.textures else ""
        if textures and not os.path.isfile(textures):
            raise runner.RigtripError(f"textures: {textures} is not a file")
        binary = _binary(context)

        tmp = tempfile.mkdtemp(prefix="rigtrip-")
        try:
            glb = os.path.join(tmp, "rig.glb")
            args = ["export", source, "-o", glb, "--json"]
            for motion in motions:
                # One path per --motions: a path never swallows the next argument.
                args += ["--motions", motion]
            if self.file_format != "AUTO":
                args += ["--format", self.file_format]
            if block_at:
                args += ["--block-at", block_at, "--nodes", str(self.nodes)]
            if names:
                args += ["--names", names]
            if textures:
                args += ["--textures", os.path.abspath(textures)]
            report = runner.run(binary, args, hide=[glb])
            extras = runner.scene_extras(runner.glb_json(glb))
            if EXTRAS not in extras:
                raise runner.RigtripError("rigtrip wrote a glTF without its scene extras")

            coll = bpy.data.collections.new(os.path.basename(source))
            context.scene.collection.children.link(coll)
            layer = context.view_layer.layer_collection.children[coll.name]
            previous = context.view_layer.active_layer_collection
            context.view_layer.active_layer_collection = layer
            known = set(bpy.data.actions)
            try:
                result = bpy.ops.import_scene.gltf(
                    filepath=glb, **_supported(bpy.ops.import_scene.gltf, GLTF_IMPORT)
                )
            except RuntimeError as e:
                result = {str(e).strip()}
            finally:
                context.view_layer.active_layer_collection = previous
            if "FINISHED" in result:
                # The GLB goes with the temporary folder: keep its images in the .blend.
                _pack_images(coll)
            if "FINISHED" not in result:
                bpy.data.collections.remove(coll)
                raise runner.RigtripError(
                    f"Blender's glTF importer failed on rigtrip's glTF: {', '.join(result)}"
                )
            _set_property(coll, EXTRAS, extras[EXTRAS])
            _collect_parts(coll, extras[EXTRAS])
            state = {
                cloth.STATE: cloth.on_import(coll, extras, _set_property),
                "source": source,
                "format": str(extras[EXTRAS].get("format", "")),
                "block_at": block_at,
                "nodes": self.nodes,
                "names": names,
                "motions": motions,
                "textures": textures,
            }
            if motions:
                made = [a for a in bpy.data.actions if a not in known]
                actions.record(state, coll, context.scene, made)
            coll[STATE] = state
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        _report_lines(self, runner.export_info(report))
        if names:
            self.report({"INFO"}, f"joint names from {names}")
        self.report({"INFO"}, f"imported {source} into collection {coll.name}")
        return {"FINISHED"}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "file_format")
        layout.prop(self, "use_names")
        if self.use_names:
            layout.prop(self, "names_file")
        layout.prop(self, "textures")
        layout.prop(self, "motions")
        box = layout.box()
        box.label(text="Node-domain block in any file")
        box.prop(self, "block_at")
        box.prop(self, "nodes")


class EXPORT_SCENE_OT_rigtrip(bpy.types.Operator, ExportHelper):
    """Write the native file of a rig imported with rigtrip, with the edits made in Blender"""

    bl_idname = "export_scene.rigtrip"
    bl_label = "Export Game Rig (rigtrip)"
    bl_options = {"REGISTER"}

    filename_ext = ""
    check_extension = None
    filter_glob: StringProperty(default=FILE_GLOB, options={"HIDDEN"})

    rig: StringProperty(
        name="Rig",
        description="Collection of the rig to write (empty: the rig of the active or a selected "
        "object, or the only rig in the scene)",
        default="",
    )
    keep_meshes: BoolProperty(
        name="Keep original meshes",
        description="Write the original vertex streams even if the meshes were edited in Blender "
        "(rigtrip import --ignore-mesh-edits); off: edited meshes are written",
        default=False,
    )
    rebuild_shadows: BoolProperty(
        name="Rebuild shadows",
        description="A character archive whose meshes were edited: write the shadow model of "
        "each edited model (the body's, the coat's) anew, one closed hull per joint moved by "
        "that joint, and give a coat without a shadow its slot 14 "
        "(rigtrip import --rebuild-shadows); off: the old shadow is kept and still casts the "
        "old shape",
        default=False,
    )
    tolerance: FloatProperty(
        name="Tolerance",
        description="How far a value may drift and still count as unedited, in glTF units "
        "(rigtrip import --tolerance); 0: rigtrip's default",
        default=0.0,
        min=0.0,
        precision=6,
    )
    write_motions: BoolProperty(
        name="Write motions",
        description="For a rig imported with motions: write its animations as motion files "
        "beside the exported file, under the names of the files read (rigtrip import "
        "--motions-out; unedited tracks keep their bytes, a deleted animation empties its "
        "archive slot). Off: no motion file is written",
        default=True,
    )
    only_changed_actions: BoolProperty(
        name="Only changed actions",
        description="For a rig imported with motions: give Blender's glTF exporter only the "
        "actions changed since the import (their curves, or the rest pose), and keep the "
        "motions of the others as they were read, byte for byte. Off: every action is "
        "exported and compared (slower with many motions, same files)",
        default=True,
    )
    overwrite_motions: BoolProperty(
        name="Overwrite the motion files read",
        description="Write the motions over the files they were read from instead of beside "
        "the exported file (off: a motion file read is never rewritten)",
        default=False,
    )
    new_actions_into: StringProperty(
        name="New actions into",
        description="For a rig imported with motions: the archive (.pac, one of those read) "
        "whose first free slot takes each new action (rigtrip import --new-motions-into). An "
        "action named ARCHIVE_NN goes into slot NN of that archive whatever this says. Empty: "
        "each new action is written as NAME.mot beside the exported file",
        subtype="FILE_PATH",
        default="",
    )
    onto: StringProperty(
        name="Onto template",
        description="Write a rig made or imported elsewhere onto this native file, its game "
        "skeleton (rigtrip import --onto): the active armature's meshes replace the "
        "template's, joints matched by name; everything else comes from the template. Empty: "
        "write the rig imported with rigtrip",
        subtype="FILE_PATH",
        default="",
    )
    fit: EnumProperty(
        name="Fit",
        description="With Onto template: the size of the body once re-posed onto the "
        "template's bones (rigtrip import --fit)",
        items=[
            ("SOURCE", "Own height", "The body keeps its own height"),
            ("HEIGHT", "Template's height", "Scaled to the height of the template's meshes"),
            ("BONES", "Template's bones", "Scaled so its joints lie on the template's own "
             "bones, which the game bends it about"),
        ],
        default="SOURCE",
    )
    motion_template: StringProperty(
        name="Motion template",
        description="With Onto template: a motion file (.mot or .pac) of the template's model. "
        "Every action of the armature is then written as a new motion on the template's "
        "skeleton, its bones pointing where this rig's do, as NAME.mot beside the exported "
        "file (rigtrip import --motions-out --motion-template; the new motions take this "
        "file's motion header). Empty: no motion is written",
        subtype="FILE_PATH",
        default="",
    )
    joint_map: StringProperty(
        name="Joint map",
        description="With Onto template: a JSON file mapping this rig's joint names to the "
        'template\'s joints, by name or native index ({"Hips": "mod_0", "Spine": 1})',
        subtype="FILE_PATH",
        default="",
    )
    ignore_check: BoolProperty(
        name="Ignore check",
        description="Write the file even when rigtrip check finds that the game could not "
        "load it (rigtrip import --ignore-check); off: an edited file that would stop the "
        "game is refused, naming why",
        default=False,
    )
    write_names: BoolProperty(
        name="Save joint names",
        description="Keep the joint names in NAME.names.json beside the file (when they are not "
        "rigtrip's defaults, or that file exists)",
        default=True,
    )
    install_into_game: BoolProperty(
        name="Install into the game",
        description="Then install the file written into the game folder (rigtrip game install: "
        "checked first, into a volume of rigtrip's own, under the name the game loads it by; "
        "Remove my mods in the preferences takes it out again)",
        default=False,
    )

    def invoke(self, context, event):
        try:
            coll = find_rig(context, self.rig)
            self.rig = coll.name
            if not self.filepath:
                self.filepath = coll[STATE]["source"]
            self.install_into_game = bool(coll[STATE].get(game.GAME_NAME))
        except runner.RigtripError:
            pass
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        return runner.reported(self, self._export, context)

    def _export(self, context):
        if not self.filepath:
            raise runner.RigtripError("no file to write given")
        target = os.path.abspath(bpy.path.abspath(self.filepath))
        if context.mode != "OBJECT":
            # Edit-mode changes reach the armature only when edit mode is left.
            bpy.ops.object.mode_set(mode="OBJECT")
        if self.onto:
            return self._export_onto(context, target)
        coll = find_rig(context, self.rig)
        binary = _binary(context)
        strays = meshes_outside(context.scene, coll)
        # A rig with motions shows an animated pose: its rest pose is the edit-mode skeleton.
        animated = bool(coll[STATE].get("motions"))
        read = list(coll[STATE].get("motions") or []) if self.write_motions else []
        motions = runner.motion_targets(read, target, overwrite=self.overwrite_motions)

        tmp = tempfile.mkdtemp(prefix="rigtrip-")
        stage = _Stage(target)
        try:
            glb = os.path.join(tmp, "edited.glb")
            skip = []
            if motions and self.only_changed_actions:
                skip = actions.unchanged(coll[STATE], coll, context.scene)
            at_rest = actions.cleared_pose(coll, animated)
            with _linked(coll, strays), _part_prefixes(coll), at_rest, \
                    cloth.rows_from_collections(coll, STATE), \
                    actions.left_out(coll[EXTRAS], skip) as unexported:
                _write_glb(glb, coll, rest_pose=animated, animations=bool(motions))
            exported = len(runner.glb_json(glb).get("animations") or [])
            report = self._run_import(binary, glb, stage, os.path.join(tmp, "motions"), motions,
                                      coll[STATE].get("source"))
            written = stage.commit()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            stage.clean()

        if strays:
            self.report(
                {"INFO"},
                f"exported {len(strays)} mesh(es) deforming with the rig from outside its "
                f"collection {coll.name}: " + ", ".join(o.name for o in strays),
            )
        if motions:
            self.report({"INFO"}, runner.actions_line(exported, unexported))
        _report_lines(self, runner.import_info(report))
        _report_lines(self, findings.check_lines(report))
        for path in written:
            what = "joint names kept in" if path == stage.names_file else "wrote"
            self.report({"INFO"}, f"{what} {path} ({os.path.getsize(path)} bytes)")
        if self.install_into_game:
            game.install_exported(self, context, coll[STATE], target)
        return {"FINISHED"}

    def _export_onto(self, context, target):
        """Writes the active armature and the meshes deforming with it onto the template file
        (`rigtrip import --onto`), and its actions as new motions with a motion template."""
        template = os.path.abspath(bpy.path.abspath(self.onto))
        if not os.path.isfile(template):
            raise runner.RigtripError(f"the template {template} is not a file")
        motion_template = self.motion_template and os.path.abspath(
            bpy.path.abspath(self.motion_template))
        if motion_template and not os.path.isfile(motion_template):
            raise runner.RigtripError(f"the motion template {motion_template} is not a file")
        binary = _binary(context)
        arm = armature_for(context)
        meshes = deforming_meshes(context.scene, {arm})
        if not meshes:
            raise runner.RigtripError(f"no mesh deforms with the armature {arm.name}")
        tmp = tempfile.mkdtemp(prefix="rigtrip-")
        stage = _Stage(target)
        coll = bpy.data.collections.new("rigtrip onto template")
        try:
            glb = os.path.join(tmp, "scene.glb")
            with _linked(coll, [arm, *meshes]):
                _write_glb(glb, coll, rest_pose=True, animations=bool(motion_template))
            args = ["import", glb, "--onto", template, "-o", stage.model, "--json", "--force",
                    "--fit", self.fit.lower()] + self._check_args()
            if self.joint_map:
                args += ["--joint-map", os.path.abspath(bpy.path.abspath(self.joint_map))]
            motions_dir = os.path.join(tmp, "motions")
            if motion_template:
                args += ["--motions-out", motions_dir, "--motion-template", motion_template]
            try:
                report = runner.run(binary, args, hide=[glb, stage.model, motions_dir + os.sep])
            except runner.RigtripError as e:
                raise runner.RigtripError(findings.refusal(str(e))) from e
            for made, dest in runner.new_motion_files(report, [], motions_dir, target):
                if os.path.abspath(dest) in (motion_template, template):
                    raise runner.RigtripError(
                        f"the new motions would replace {dest}, which was only read: export "
                        "into another folder")
                stage.add(made, dest)
            written = stage.commit()
        finally:
            bpy.data.collections.remove(coll)
            shutil.rmtree(tmp, ignore_errors=True)
            stage.clean()
        self.report(
            {"INFO"},
            f"armature {arm.name} with {len(meshes)} mesh(es) onto {template}: "
            + ", ".join(o.name for o in meshes),
        )
        _report_lines(self, runner.import_info(report))
        _report_lines(self, findings.check_lines(report))
        for path in written:
            self.report({"INFO"}, f"wrote {path} ({os.path.getsize(path)} bytes)")
        if self.install_into_game:
            game.install_exported(self, context, {}, target)
        return {"FINISHED"}

    def _check_args(self):
        return ["--ignore-check"] if self.ignore_check else []

    def _run_import(self, binary, glb, stage, motions_dir, motions, source=None):
        """Runs `rigtrip import` on `glb` into the staged model, and stages each motion file it
        rebuilt beside its destination. Returns rigtrip's report. What rigtrip check finds in
        `source` (the file the rig was imported from) already does not refuse the edit."""
        # rigtrip keeps the joint names beside its output (when they are not the defaults, or
        # a names file is there already): give it the target's, take them back after.
        if self.write_names and os.path.isfile(stage.names_file):
            shutil.copyfile(stage.names_file, runner.names_path(stage.model))
        args = ["import", glb, "-o", stage.model, "--json", "--force"] + self._check_args()
        if source and os.path.isfile(source):
            args += ["--original", source]
        if self.keep_meshes:
            args.append("--ignore-mesh-edits")
        if self.rebuild_shadows:
            args.append("--rebuild-shadows")
        if self.tolerance > 0:
            args += ["--tolerance", repr(self.tolerance)]
        if motions:
            args += ["--motions-out", motions_dir]
            if self.new_actions_into:
                into = os.path.basename(bpy.path.abspath(self.new_actions_into))
                args += ["--new-motions-into", into]
        try:
            report = runner.run(binary, args, hide=[glb, stage.model, motions_dir + os.sep])
        except runner.RigtripError as e:
            # rigtrip names its command-line flag; here it is an export option.
            raise runner.RigtripError(findings.refusal(
                str(e).replace("pass --ignore-mesh-edits", "turn on Keep original meshes")
            )) from e
        for source, dest in motions:
            made = os.path.join(motions_dir, os.path.basename(source))
            if not os.path.isfile(made):
                raise runner.RigtripError(
                    f"rigtrip wrote no {os.path.basename(source)} (was its animation data "
                    "removed from the scene's custom properties?)"
                )
            stage.add(made, dest)
        # New actions written as motion files of their own go beside the exported file.
        for made, dest in runner.new_motion_files(report, motions, motions_dir, stage.target):
            stage.add(made, dest)
        stage.keep_names = self.write_names
        return report


class _Stage:
    """The files of one export, staged beside their destinations (same folder, so that the
    final rename is atomic) and moved into place only once every one of them is ready; what is
    left of them on failure is removed."""

    def __init__(self, target):
        folder, base = os.path.split(target)
        self.tag = uuid.uuid4().hex[:12]
        self.target = target
        self.model = os.path.join(folder, f".{base}.rigtrip-{self.tag}.tmp")
        self.names_file = runner.names_path(target)
        self.keep_names = False
        self.others = []

    def add(self, made, dest):
        """Copies `made` beside `dest`, to replace it at commit."""
        folder, base = os.path.split(dest)
        step = os.path.join(folder, f".{base}.rigtrip-{self.tag}.tmp")
        self.others.append((step, dest))
        shutil.copyfile(made, step)

    def commit(self):
        """Moves every staged file into place; returns the paths written."""
        moves = [(self.model, self.target), *self.others]
        staged_names = runner.names_path(self.model)
        if self.keep_names and os.path.isfile(staged_names):
            moves.append((staged_names, self.names_file))
        for step, dest in moves:
            os.replace(step, dest)
        return [dest for _, dest in moves]

    def clean(self):
        for step in [self.model, runner.names_path(self.model), *(s for s, _ in self.others)]:
            if os.path.exists(step):
                os.remove(step)


def part_names(extras):
    """The names of an archive's other models shown in the document (a coat), in order."""
    members = (extras.get("archive") or {}).get("members") or []
    return [m.get("name") for m in members if m.get("role") == "part" and m.get("name")]


def _part_of(obj, names):
    """The part `obj` belongs to: its rigtrip tag's `part`, else the `part/` its name starts
    with; None for the model's own objects."""
    tag = obj.get("rigtrip")
    part = tag.get("part") if hasattr(tag, "get") else None
    if part in names:
        return part
    prefix = obj.name.split("/", 1)[0] if "/" in obj.name else None
    return prefix if prefix in names else None


def _collect_parts(coll, extras):
    """Moves the objects of each other model of the archive (its armature, its meshes) into a
    child collection of the rig's named after it: the export writes the child collections
    with the rig's, and import tells the models apart by their objects' tags and names."""
    names = part_names(extras)
    for name in names:
        child = bpy.data.collections.new(name)
        child[PART] = name
        coll.children.link(child)
        for obj in list(coll.objects):
            if _part_of(obj, names) == name:
                child.objects.link(obj)
                coll.objects.unlink(obj)


class _part_prefixes:
    """Names every mesh in a part's child collection `part/...` for the time of a `with` block
    (rigtrip tells a part's meshes by that prefix: a mesh moved into the coat's collection is
    written into the coat), then gives the names back."""

    def __init__(self, coll):
        self.coll, self.renamed = coll, []

    def __enter__(self):
        for child in self.coll.children_recursive:
            part = child.get(PART)
            if not part:
                continue
            for obj in child.all_objects:
                if obj.type == "MESH" and not obj.name.startswith(part + "/"):
                    old = obj.name
                    obj.name = f"{part}/{old}"
                    self.renamed.append((obj, old))

    def __exit__(self, *exc):
        for obj, old in reversed(self.renamed):
            obj.name = old
        return False


def _write_glb(glb, coll, rest_pose, animations):
    """Writes the rig's collection with Blender's glTF exporter, with the round trip's settings:
    the edit-mode skeleton as the rest pose when `rest_pose` (else the pose shown), its
    animations when `animations`."""
    settings = dict(GLTF_EXPORT, **(GLTF_EXPORT_MOTIONS if rest_pose else {}))
    settings["export_animations"] = animations
    settings = _supported(bpy.ops.export_scene.gltf, settings)
    result = bpy.ops.export_scene.gltf(filepath=glb, collection=coll.name, **settings)
    if "FINISHED" not in result or not os.path.isfile(glb):
        raise runner.RigtripError("Blender's glTF exporter failed")


#: Object types with geometry of their own that can deform with an armature but that the round
#: trip does not write as a skinned mesh: one that deforms with the rig is refused by name. (A
#: lattice only deforms other objects: it is left alone.)
NOT_MESHES = {"CURVE", "SURFACE", "FONT", "META", "CURVES", "POINTCLOUD", "VOLUME",
              "GREASEPENCIL", "GPENCIL"}


def _armatures_of(obj):
    """The armature objects `obj` deforms with: its parent when that is an armature, and the
    object of each Armature modifier; each once."""
    found = []
    if obj.parent is not None and obj.parent.type == "ARMATURE":
        found.append(obj.parent)
    for modifier in obj.modifiers:
        if modifier.type == "ARMATURE" and modifier.object is not None:
            found.append(modifier.object)
    return list(dict.fromkeys(found))


def meshes_outside(scene, coll):
    """The meshes of `scene` that deform with an armature of the rig's collection `coll`
    (parented to it, or with an Armature modifier on it) but are not in `coll`: the export
    takes them along. Raises RigtripError naming every object that deforms with the rig and
    cannot be written (not a mesh, or bound to a second armature)."""
    armatures = {o for o in coll.all_objects if o.type == "ARMATURE"}
    return deforming_meshes(scene, armatures, inside=set(coll.all_objects))


def deforming_meshes(scene, armatures, inside=frozenset()):
    """The meshes of `scene` not in `inside` that deform with one of `armatures`, by name;
    raises RigtripError naming every object that deforms with them and cannot be written."""
    found, refused = [], []
    for obj in scene.objects:
        arms = _armatures_of(obj)
        if not armatures.intersection(arms):
            continue
        if obj.type in NOT_MESHES:
            refused.append(
                f"{obj.name} ({obj.type.lower()}) deforms with the rig but is not a mesh: "
                "convert it (Object > Convert > Mesh) or unbind it"
            )
        elif obj.type == "MESH" and len(arms) > 1:
            refused.append(
                f"mesh {obj.name} deforms with {len(arms)} armatures ("
                + ", ".join(a.name for a in arms)
                + "): a glTF mesh has one skin; keep only the rig's armature as parent and "
                "Armature modifier"
            )
        elif obj.type == "MESH" and obj not in inside:
            found.append(obj)
    if refused:
        raise runner.RigtripError("; ".join(refused))
    return sorted(found, key=lambda o: o.name)


def armature_for(context):
    """The armature to write onto a template: the active object if it is one, else the one
    the active object deforms with, else the only armature in the scene."""
    active = context.view_layer.objects.active
    if active is not None and active.type == "ARMATURE":
        return active
    if active is not None and len(_armatures_of(active)) == 1:
        return _armatures_of(active)[0]
    armatures = [o for o in context.scene.objects if o.type == "ARMATURE"]
    if len(armatures) == 1:
        return armatures[0]
    raise runner.RigtripError(
        f"{len(armatures)} armatures in this scene: make the one to write onto the template "
        "(or a mesh bound to it) the active object"
    )


class _linked:
    """Links `objects` into `coll` for the time of a `with` block (Blender's glTF exporter
    writes a collection's objects), then unlinks them: the user's scene is left as it was."""

    def __init__(self, coll, objects):
        self.coll, self.objects, self.done = coll, objects, []

    def __enter__(self):
        for obj in self.objects:
            self.coll.objects.link(obj)
            self.done.append(obj)

    def __exit__(self, *exc):
        for obj in self.done:
            self.coll.objects.unlink(obj)
        return False


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_rigtrip.bl_idname, text="Game rig (rigtrip)")


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_rigtrip.bl_idname, text="Game rig (rigtrip)")


CLASSES = (RigtripPreferences, IMPORT_SCENE_OT_rigtrip, EXPORT_SCENE_OT_rigtrip, *game.CLASSES)


def is_registered():
    """Whether the add-on's classes are registered with Blender."""
    return EXPORT_SCENE_OT_rigtrip.is_registered


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_import.append(game.menu_import_game)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)
    if not bpy.app.binary_path:
        # bpy imported as a Python module: see _unregister_at_exit.
        atexit.unregister(_unregister_at_exit)
        atexit.register(_unregister_at_exit)


def unregister():
    atexit.unregister(_unregister_at_exit)
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(game.menu_import_game)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)


def _unregister_at_exit():
    """Unregisters the add-on when a script that uses bpy as a Python module ends without doing
    so. There, Blender shuts down (WM_exit) only when the `bpy` module object is freed as the
    interpreter exits, and it is not freed while a class registered from Python is still
    registered: Blender is then never shut down, its audio device thread is left waiting, and
    the process hangs in a static destructor after Python is gone. atexit functions run before
    the modules are freed, so unregistering here lets Blender shut down. (The blender program
    shuts itself down, and unregisters its add-ons, whatever a script did.)"""
    if is_registered():
        unregister()


@contextlib.contextmanager
def registered():
    """`with rigtrip_blender.registered():` the add-on is registered inside the block and
    unregistered after it, also when the block raises (unless it was registered before)."""
    mine = not is_registered()
    if mine:
        register()
    try:
        yield
    finally:
        if mine and is_registered():
            unregister()
