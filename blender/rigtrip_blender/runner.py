"""The Blender-free half of the add-on: finding and running the `rigtrip` program, reading the
scene extras out of the GLB it writes, turning its JSON reports into lines for Blender's Info
area, and the joint names file kept beside a native file.

Nothing here imports `bpy`, so it can be tested with any Python.
"""

import json
import os
import shutil
import struct
import subprocess

#: Environment variable that names the rigtrip program (checked first).
ENV_VAR = "RIGTRIP_BIN"

#: Exit code of a check that failed (a rigtrip bug when importing: please report it).
EXIT_CHECK_FAILED = 1
#: Exit code of bad input or usage (a refused edit, a file that is not a rig).
EXIT_BAD_INPUT = 2


class RigtripError(Exception):
    """Something the user must be told about, as one line."""


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_binary(env=None, preference=""):
    """The rigtrip program to run: $RIGTRIP_BIN, else the add-on preference, else PATH.

    `env` is the environment to look in (default: `os.environ`). Raises RigtripError with what
    to do when none is usable.
    """
    env = os.environ if env is None else env
    given = env.get(ENV_VAR, "")
    if given:
        if _executable(given):
            return given
        raise RigtripError(
            f"{ENV_VAR} is set to {given!r}, which is not an executable file; "
            f"point it at the rigtrip program, or unset it"
        )
    if preference:
        path = os.path.expanduser(preference)
        if _executable(path):
            return path
        raise RigtripError(
            f"the rigtrip program set in the add-on's preferences ({path!r}) is not an "
            f"executable file; fix it in Edit > Preferences > Add-ons > rigtrip"
        )
    found = shutil.which("rigtrip", path=env.get("PATH", ""))
    if found:
        return found
    raise RigtripError(
        "the rigtrip program was not found: set its path in Edit > Preferences > Add-ons > "
        f"rigtrip, or set {ENV_VAR}, or put rigtrip on PATH (build it with "
        "`cargo build --release`: target/release/rigtrip)"
    )


def run(binary, args, hide=()):
    """Runs `binary args`; returns its standard output, parsed as JSON when `--json` is in args.

    On a non-zero exit raises RigtripError with rigtrip's one-line message, the paths in `hide`
    (temporary files the user never saw) and the `rigtrip: error: ` prefix taken out.
    """
    try:
        done = subprocess.run(
            [binary, *args], capture_output=True, text=True, encoding="utf-8", errors="replace"
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
    }.get(m.get("status"), m.get("status"))
    if m:
        lines.append(f"meshes: {status}")
    for note in report.get("notes", []):
        lines.append(f"note: {note}")
    return lines


def names_path(native_path):
    """The joint names file kept beside a native file: `DB22HIE.BIN` -> `DB22HIE.names.json`."""
    folder, base = os.path.split(native_path)
    stem = base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base
    return os.path.join(folder, stem + ".names.json")


def default_name(skeleton, joint):
    """The name rigtrip gives a joint when no names file names it."""
    return f"{skeleton}_{joint}"


def written_names(report, bone_names):
    """Joint names of the file `rigtrip import` just wrote, per skeleton name.

    `report` is its JSON report; `bone_names` maps (skeleton index, original joint index) to the
    bone's name in Blender. Joints the report lists (moved, added, renumbered) carry their glTF
    node name, which is the bone name; the others kept their index.
    """
    out = {}
    for s in report.get("skeletons", []):
        listed = {j["joint"]: j["name"] for j in s.get("joints", [])}
        names = []
        for k in range(s["joints_after"]):
            if k in listed:
                names.append(listed[k])
            else:
                names.append(bone_names.get((s["index"], k), default_name(s["name"], k)))
        if names:
            out[s["name"]] = names
    return out


def names_are_default(names):
    """Whether every name is the one rigtrip would give anyway (no names file needed)."""
    return all(
        name == default_name(skeleton, k)
        for skeleton, list_ in names.items()
        for k, name in enumerate(list_)
    )


def write_json_atomic(path, value):
    """Writes `value` as JSON to `path` through a temporary file beside it."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(value, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
