"""The Blender-free half of the add-on: finding the `rigtrip` program (the one bundled with
the add-on first) and running it, reading the scene extras out of the GLB it writes, turning
its JSON reports into lines for Blender's Info area, and the joint names file kept beside a
native file.

Nothing here imports `bpy`, so it can be tested with any Python.
"""

import json
import math
import os
import shutil
import struct
import subprocess
import sys

#: Environment variable that names the rigtrip program (checked first).
ENV_VAR = "RIGTRIP_BIN"

#: Exit code of a check that failed (a rigtrip bug when importing: please report it).
EXIT_CHECK_FAILED = 1
#: Exit code of bad input or usage (a refused edit, a file that is not a rig).
EXIT_BAD_INPUT = 2


class RigtripError(Exception):
    """Something the user must be told about, as one line."""


#: Where a platform's extension zip (tools/dist) puts the program, beside this file.
BUNDLED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def reported(operator, action, context):
    """Runs an operator's `action(context)`: a RigtripError becomes the operator's ERROR report
    and CANCELLED, as every operator of the add-on reports one."""
    try:
        return action(context)
    except RigtripError as e:
        operator.report({"ERROR"}, str(e))
        return {"CANCELLED"}


def program_name(platform=None):
    """The program's file name on `platform` (default: this one, `sys.platform`)."""
    platform = sys.platform if platform is None else platform
    return "rigtrip.exe" if platform == "win32" else "rigtrip"


def bundled_path(platform=None, folder=BUNDLED_DIR):
    """The program the add-on ships with on `platform` (it may not be there: an add-on
    installed from the repository or the platform-independent zip has none)."""
    return os.path.join(folder, program_name(platform))


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _bundled(platform=None, folder=BUNDLED_DIR):
    """The bundled program when it is there, made executable if the install lost the mode
    (Blender unpacks extension zips without file modes); None when there is none."""
    path = bundled_path(platform, folder)
    if not os.path.isfile(path):
        return None
    if not os.access(path, os.X_OK):
        try:
            os.chmod(path, os.stat(path).st_mode | 0o755)
        except OSError as e:
            raise RigtripError(
                f"the rigtrip program that came with the add-on ({path}) cannot be made "
                f"executable: {e.strerror or e}"
            ) from e
    return path


def which_binary(env=None, preference="", platform=None, folder=BUNDLED_DIR):
    """The rigtrip program to run and how it was found, as (path, how): the one bundled with
    the add-on ("bundled"), else $RIGTRIP_BIN ("RIGTRIP_BIN"), else the add-on preference
    ("preference"), else PATH ("PATH").

    `env` is the environment to look in (default: `os.environ`). Raises RigtripError with what
    to do when none is usable.
    """
    env = os.environ if env is None else env
    bundled = _bundled(platform, folder)
    if bundled:
        return bundled, "bundled"
    given = env.get(ENV_VAR, "")
    if given:
        if _executable(given):
            return given, ENV_VAR
        raise RigtripError(
            f"{ENV_VAR} is set to {given!r}, which is not an executable file; "
            f"point it at the rigtrip program, or unset it"
        )
    if preference:
        path = os.path.expanduser(preference)
        if _executable(path):
            return path, "preference"
        raise RigtripError(
            f"the rigtrip program set in the add-on's preferences ({path!r}) is not an "
            f"executable file; fix it in Edit > Preferences > Add-ons > rigtrip"
        )
    found = shutil.which(program_name(platform), path=env.get("PATH", ""))
    if found:
        return found, "PATH"
    raise RigtripError(
        "the rigtrip program was not found: install the add-on's zip for your platform "
        "(it has the program inside), or set its path in Edit > Preferences > Add-ons > "
        f"rigtrip, or set {ENV_VAR}, or put rigtrip on PATH (build it with "
        "`cargo build --release`: target/release/rigtrip)"
    )


def find_binary(env=None, preference=""):
    """The path of the rigtrip program to run (see `which_binary`)."""
    return which_binary(env, preference)[0]


_versions = {}


def version(binary):
    """What `binary --version` prints (`rigtrip 0.2.0`), or why it could not run; asked once
    per program file (a new file, as an update writes, is asked again)."""
    try:
        key = (binary, os.stat(binary).st_mtime_ns)
    except OSError as e:
        return f"does not run: {e.strerror or e}"
    if key not in _versions:
        _versions[key] = _ask_version(binary)
    return _versions[key]


def _ask_version(binary):
    try:
        done = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, encoding="utf-8",
            errors="replace", timeout=20, **_NO_WINDOW
        )
    except (OSError, subprocess.SubprocessError) as e:
        return f"does not run: {getattr(e, 'strerror', None) or e}"
    if done.returncode != 0:
        return f"does not run: exit code {done.returncode}"
    return done.stdout.strip()


#: On Windows, no console window flashes up for each call.
_NO_WINDOW = (
    {"creationflags": subprocess.CREATE_NO_WINDOW} if sys.platform == "win32" else {}
)


def run(binary, args, hide=()):
    """Runs `binary args`; returns its standard output, parsed as JSON when `--json` is in args.

    On a non-zero exit raises RigtripError with rigtrip's one-line message, the paths in `hide`
    (temporary files the user never saw) and the `rigtrip: error: ` prefix taken out.
    """
    try:
        done = subprocess.run(
            [binary, *args], capture_output=True, text=True, encoding="utf-8", errors="replace",
            **_NO_WINDOW
        )
    except OSError as e:
        raise RigtripError(f"could not run {binary}: {e.strerror or e}") from e
    if done.returncode != 0:
        raise RigtripError(error_message(json_message(done.stdout, args) or done.stderr,
                                         done.returncode, hide))
    if "--json" in args:
        try:
            return json.loads(done.stdout)
        except ValueError as e:
            raise RigtripError(f"rigtrip printed no JSON report: {e}") from e
    return done.stdout


def json_message(stdout, args):
    """The `message` of the JSON document rigtrip prints on stdout when a call with `--json`
    fails as a whole (`{"status": "error", "message": ...}`); None when there is none."""
    if "--json" not in args:
        return None
    try:
        doc = json.loads(stdout)
    except ValueError:
        return None
    message = doc.get("message") if isinstance(doc, dict) else None
    return message if isinstance(message, str) and message else None


def error_message(stderr, code, hide=()):
    """rigtrip's error text as one message for the user."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    text = " ".join(lines) if lines else f"rigtrip exited with code {code} and no message"
    for prefix in ("rigtrip: error: ",):
        if text.startswith(prefix):
            text = text[len(prefix):]
    for path in hide:
        for form in (f"{path}: ", str(path)):
            text = text.replace(form, "")
    if code == EXIT_CHECK_FAILED:
        text += " (a rigtrip bug: please report it)"
    return text


def glb_json(path):
    """The JSON document of a GLB file."""
    with open(path, "rb") as f:
        head = f.read(20)
        if len(head) < 20 or head[:4] != b"glTF":
            raise RigtripError(f"{path} is not a GLB file")
        length, kind = struct.unpack_from("<II", head, 12)
        if kind != 0x4E4F534A:  # "JSON"
            raise RigtripError(f"{path}: the first GLB chunk is not JSON")
        return json.loads(f.read(length).decode("utf-8"))


def scene_extras(doc):
    """The extras of the glTF document's default scene (what Blender imports as the scene's
    custom properties)."""
    scenes = doc.get("scenes") or []
    index = doc.get("scene", 0)
    if not isinstance(index, int) or not 0 <= index < len(scenes):
        return {}
    extras = scenes[index].get("extras")
    return extras if isinstance(extras, dict) else {}


def export_info(report):
    """Lines for Blender's Info area from `rigtrip export --json`."""
    skins = report.get("skins", [])
    meshes = report.get("meshes", [])
    joints = sum(s.get("joints", 0) for s in skins)
    real = sum(1 for m in meshes if not m.get("proxy") and m.get("gltf_mesh") is not None)
    proxies = sum(1 for m in meshes if m.get("proxy") and m.get("gltf_mesh") is not None)
    lines = [
        f"rigtrip: {len(skins)} skin(s), {joints} joint(s), {real} mesh(es), "
        f"{proxies} proxy mesh(es), scale {report.get('space', {}).get('scale')}"
    ]
    animations = report.get("animations") or []
    if animations:
        files = sorted({a.get("file") for a in animations if a.get("file")})
        lines.append(
            f"rigtrip: {len(animations)} animation(s) from {len(files)} motion file(s): "
            + ", ".join(a.get("name", "?") for a in animations)
        )
    for key, what in (
        ("zero_weight_vertices", "vertices with zero weight sum bound to their first joint"),
        ("merged_joints", "vertices naming a joint twice (weights added)"),
        ("dropped_weights", "negative or non-finite weights taken as zero"),
        ("fixed_normals", "zero or non-finite normals replaced"),
        ("clamped_colors", "colours clamped to 0..1"),
        ("renamed", "names changed (63-byte limit, duplicates)"),
        ("names_missing", "skeletons without a name for every joint in the names file"),
        ("normalised_rotations", "rotations normalised"),
    ):
        n = len(report.get(key) or [])
        if n:
            lines.append(f"note: {n} {what} (glTF only; native bytes untouched)")
    for m in report.get("carried_models") or []:
        lines.append(
            f"note: member {m['member']} (slots {m['slots']}): a model besides the body, not "
            "shown (its skeleton fails the spatial gate); carried as its bytes, it comes back "
            "unchanged"
        )
    return lines


def import_info(report):
    """Lines for Blender's Info area from `rigtrip import --json`: what changed, and notes."""
    lines = []
    for s in report.get("skeletons", []):
        lines.append(
            f"skeleton {s['index']} ({s['name']}): {s['joints_before']} joints -> "
            f"{s['joints_after']}, {s['unchanged']} unchanged"
        )
        for j in s.get("joints", []):
            parts = []
            if j.get("changes"):
                parts.append(", ".join(j["changes"]))
            if j.get("recomputed"):
                parts.append("recomputed " + ", ".join(j["recomputed"]))
            if j.get("defaults"):
                parts.append("defaults " + ", ".join(j["defaults"]))
            if j.get("rounding"):
                parts.append("rounding: " + j["rounding"])
            if j.get("original") is None:
                origin = " (new)"
            elif j["original"] != j["joint"]:
                origin = f" (was {j['original']})"
            else:
                origin = ""
            lines.append(f"  joint {j['joint']}{origin} {j['name']}: {'; '.join(parts)}")
        if s.get("removed"):
            lines.append(f"  removed joints (original indices): {s['removed']}")
        for r in s.get("rewritten", []):
            lines.append(f"  rewritten: {r}")
    m = report.get("meshes") or {}
    status = {
        "none": "no geometry",
        "unchanged": "unchanged, original streams kept",
        "edited-ignored": "EDITED, ignored: original streams kept",
        "written": "EDITED, written back",
        "replaced": "REPLACED by the glTF's (onto the template)",
    }.get(m.get("status"), m.get("status"))
    if m:
        lines.append(f"meshes: {status}")
    for w in (m.get("written") or {}).get("meshes", []):
        lines.append(f"  mesh {w['name']} ({w['native']}): {written_mesh(w)}")
    for x in m.get("ignored") or []:
        lines.append(f"  NOT USED: node {x.get('node')} ({x.get('name')}): {x.get('reason')}")
    for note in (m.get("written") or {}).get("notes", []):
        lines.append(f"  {note}")
    for f in report.get("motions") or []:
        counts = {}
        for m in f.get("motions", []):
            counts[m.get("status")] = counts.get(m.get("status"), 0) + 1
        summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        lines.append(f"motion file {f['file']} ({f['bytes']} bytes): {summary or 'no motions'}")
        for m in f.get("motions", []):
            if m.get("status") == "new":
                lines.append(new_motion_line(m))
            elif m.get("status") not in ("unchanged", "unexported"):
                lines.append(f"  {m.get('animation')}: {m.get('status')}")
    for a in report.get("animations_not_written") or []:
        name = a.get("name") or f"number {a.get('animation')}"
        lines.append(f"animation {name}: NOT WRITTEN: {a.get('reason')}")
    for s in report.get("stale_shadows") or []:
        lines.append(
            f"member {s['member']} (slots {s['slots']}): the shadow still casts the old shape "
            "(carried as it was)"
        )
    for t in report.get("textures") or []:
        lines.append(texture_line(t))
    for note in report.get("notes", []):
        lines.append(f"note: {note}")
    for model in report.get("models") or []:
        lines.append(f"model {model.get('name')} (the archive's member at {model.get('offset'):#x}):")
        lines.extend("  " + line for line in import_info(model.get("report") or {}))
    return lines


def actions_line(exported, unexported):
    """What went through Blender's glTF exporter: `exported` animations, and `unexported`
    motions whose actions were left out as unchanged."""
    return (
        f"{exported} action(s) exported through Blender's glTF exporter, {unexported} left out "
        "as unchanged since the import (their motions kept as read)"
    )


def new_motion_line(m):
    """A new motion (an action that came from no motion file) as an Info line: where it went
    and how far it plays from the action."""
    slots = m.get("slots") or []
    where = f" (slot {', '.join(str(s) for s in slots)})" if slots else ""
    errors = m.get("errors") or []
    rot = max((e["rotation_rad"] for e in errors), default=0.0)
    move = max((e["translation_m"] for e in errors), default=0.0)
    return (
        f"  {m.get('animation')}{where}: NEW motion, {len(errors)} joint(s) moving, within "
        f"{math.degrees(rot):.3g} deg and {move * 1000:.3g} mm of the action"
    )


def new_motion_files(report, targets, folder, target):
    """The motion files `rigtrip import --json` (its `report`) wrote into `folder` that are not
    among the files read (`targets`: (source, destination) pairs): files of new motions, each a
    (written, destination) pair beside `target`, the exported file."""
    read = {os.path.basename(source) for source, _ in targets}
    out = []
    for f in report.get("motions") or []:
        name = f.get("file")
        if name in read or f.get("bytes") is None:
            continue
        made = os.path.join(folder, name)
        if os.path.isfile(made):
            out.append((made, os.path.join(os.path.dirname(target), name)))
    return out


def texture_line(t):
    """One re-encoded texture (an entry of the import report's `textures`) as an Info line."""
    size = f"{t['width']}x{t['height']}"
    if not t.get("added") and list(t["was"]) != [t["width"], t["height"]]:
        size += f" (was {t['was'][0]}x{t['was'][1]})"
    err = t["error"]
    psnr = " ".join("inf" if p is None else f"{p:.1f}" for p in err["psnr"])
    line = (
        f"texture {t['index']}: {'new, encoded' if t.get('added') else 're-encoded'} from "
        f"image \"{t['image']}\" as "
        f"{t['format'].upper()} {size}, {t['levels']} mip levels; error R G B A: max "
        + " ".join(str(m) for m in err["max_abs"])
        + f", PSNR {psnr} dB"
    )
    if t.get("alpha_cut"):
        line += "; DXT1 keeps 1-bit alpha: alpha below 128 became transparent"
    return line


def written_mesh(w):
    """What writing one mesh back did (an entry of the import report's `meshes.written.meshes`),
    as the text of one Info line."""
    if w.get("change") == "removed":
        parts = ["removed"]
    elif w.get("change") == "texture":
        parts = []
    else:
        parts = [
            f"{w['change']}: {w['vertices_before']} -> {w['vertices_after']} stored "
            f"vertices, {w['triangles']} triangles"
        ]
    if w.get("texture"):
        parts.append("texture {} -> {}".format(*w["texture"]))
    if w.get("lost_weight"):
        dropped = w.get("influences_dropped")
        parts.append(
            f"{w['lost_weight']} vertices had more than three influences: "
            + (f"{dropped} of the smallest" if dropped else "the smallest")
            + " dropped, the rest renormalised"
        )
    if w.get("weight_error") is not None:
        parts.append(f"weights as 5-bit n/31: largest weight error {w['weight_error']:.6g}")
    if w.get("object_from") is not None:
        parts.append(f"in a new object, its record copied from object {w['object_from']}")
    if w.get("degenerate_triangles"):
        parts.append(
            f"{w['degenerate_triangles']} triangles dropped (two corners are the same stored "
            "vertex)"
        )
    return "; ".join(parts)


#: Extensions of the motion files `rigtrip export --motions` takes.
MOTION_EXTENSIONS = (".mot", ".pac")


def motion_files(text):
    """The motion files named by `text`: paths separated by ';', each a .mot/.pac file or a
    folder (every .mot and .pac directly in it, sorted); [] for an empty text. Raises
    RigtripError for a path that does not exist or a folder without motion files."""
    found = []
    for part in text.split(";"):
        path = part.strip()
        if not path:
            continue
        path = os.path.abspath(os.path.expanduser(path))
        if os.path.isdir(path):
            inside = sorted(
                os.path.join(path, name)
                for name in os.listdir(path)
                if name.lower().endswith(MOTION_EXTENSIONS)
                and os.path.isfile(os.path.join(path, name))
            )
            if not inside:
                raise RigtripError(f"motions: no .mot or .pac file in the folder {path}")
            found += inside
        elif os.path.isfile(path):
            found.append(path)
        else:
            raise RigtripError(f"motions: {path} does not exist")
    unique = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def motion_targets(sources, target, overwrite=False):
    """Where the export writes each motion file read (`sources`): beside `target`, the exported
    native file, under its own name; with `overwrite`, over the file it was read from. A list of
    (source, destination) pairs.

    Raises RigtripError, before anything is written, when a destination would rewrite an input
    without `overwrite` (the model is exported into the folder the motions came from), when two
    sources share a name, or when a motion file would land on `target` itself.
    """
    pairs = []
    taken = {}
    out = _same_path_key(target)
    for source in sources:
        base = os.path.basename(source)
        dest = source if overwrite else os.path.join(os.path.dirname(target), base)
        key = _same_path_key(dest)
        if key == out:
            raise RigtripError(
                f"the motion file {base} would be written over the exported file {target}: "
                "give the exported file another name"
            )
        if key in taken:
            raise RigtripError(
                f"the motion files {taken[key]} and {source} share the name {base}, and only "
                "one of them can be written beside the exported file: rename one"
            )
        taken[key] = source
        if not overwrite and key == _same_path_key(source):
            raise RigtripError(
                f"the motion file {base} would be written over the file it was read from "
                f"({source}): export into another folder (edited motions are written beside the "
                "exported file), or tick Overwrite the motion files read"
            )
        pairs.append((source, dest))
    return pairs


def _same_path_key(path):
    """A key equal for two paths naming the same file (symbolic links and case folding
    resolved as the system does)."""
    return os.path.normcase(os.path.realpath(os.path.abspath(path)))


def names_path(native_path):
    """The joint names file kept beside a native file: `DB22HIE.BIN` -> `DB22HIE.names.json`."""
    folder, base = os.path.split(native_path)
    stem = base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base
    return os.path.join(folder, stem + ".names.json")
