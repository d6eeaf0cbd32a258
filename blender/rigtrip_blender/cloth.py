"""The coat's cloth in Blender: its simulated bones as a bone collection, its parameters as
custom properties.

rigtrip writes each block of an archive's cloth text as scene properties beside its scene
extras (`cloth13.0 Gravity` = (0, -0.2, 0), ..., and `cloth13.0 Bone` = "coat/mod_3 Y, ...": the
rows, a joint name and its axis each). At import the add-on puts them on the rig's collection
as custom properties (edit them there: an edited value is written with six decimals), and
gathers the bones the rows name into a bone collection of their armature (`cloth`, or
`cloth13.0` when the archive has more than one block), each with its axis as the bone's custom
property `cloth axis` (`cloth13.0 axis`; the axes of its rows, space-separated, when a block
names a bone twice).

At export the bone collection is the list of rows: a bone added to it gets a row (its axis from
`cloth axis` when set, else rigtrip's default: the axis of the bone's rest frame that points at
its parent), a bone taken out of it loses its row. A bone the rows named that is no longer in
the armature is listed as it was imported, so that rigtrip refuses the export naming it (the
game's solver would read past the coat's joints). While the bone collection and the axes are as
imported, the row list is written as it was.
"""

import re

#: A cloth property's key: `cloth<slot>.<block> <Key>` (rigtrip's rig/cloth.rs).
KEY = re.compile(r"^cloth(\d+)\.(\d+) (\S+)$")
#: The key of a block's row list.
ROWS = "Bone"
#: The axes a row may name.
AXES = ("X", "Y", "Z", "NX", "NY", "NZ")
#: Suffix of the bone custom property holding a simulated bone's axis: the bone collection's
#: name and this (`cloth axis`).
AXIS = "axis"
#: Key of the add-on's state (the collection's `rigtrip_blender` property): per row-list key,
#: the bone collection's name and the rows as imported.
STATE = "cloth"


def properties(extras):
    """The cloth properties among a document's scene extras, in order."""
    return {k: v for k, v in extras.items() if KEY.match(k)}


def entries(text):
    """(joint name, axis or None) for each entry of a row list."""
    out = []
    for entry in (e.strip() for e in str(text).split(",")):
        if not entry:
            continue
        name, _, axis = entry.rpartition(" ")
        if name and axis in AXES:
            out.append((name.strip(), axis))
        else:
            out.append((entry, None))
    return out


def axis_key(collection):
    """The bone custom property holding the axes of the rows of the bone collection
    `collection`."""
    return f"{collection} {AXIS}"


def _armatures(coll):
    return [o for o in coll.all_objects if o.type == "ARMATURE"]


def _bone_collections(arm):
    """The armature's bone collections, nested ones included (Blender 4.1 and later list them
    in `collections_all`)."""
    return getattr(arm.data, "collections_all", arm.data.collections)


def on_import(coll, extras, set_property):
    """Puts the cloth properties of `extras` on the rig's collection `coll` (with
    `set_property`, as the glTF importer sets extras) and gathers each block's bones into a bone
    collection of their armature. Returns the add-on state to keep (per row-list key the bone
    collection and the rows as imported)."""
    props = properties(extras)
    for key, value in props.items():
        set_property(coll, key, value)
    lists = [k for k in props if KEY.match(k).group(3) == ROWS]
    state = {}
    for key in lists:
        rows = entries(props[key])
        arm = next(
            (a for a in _armatures(coll) if any(n in a.data.bones for n, _ in rows)), None
        )
        if arm is None:
            continue
        name = "cloth" if len(lists) == 1 else key.split(" ", 1)[0]
        bcoll = _bone_collections(arm).get(name) or arm.data.collections.new(name)
        axes = {}
        for bone_name, axis in rows:
            bone = arm.data.bones.get(bone_name)
            if bone is None:
                continue
            bcoll.assign(bone)
            axes.setdefault(bone_name, []).extend([axis] if axis else [])
        for bone_name, listed in axes.items():
            if listed:
                arm.data.bones[bone_name][axis_key(name)] = " ".join(listed)
        state[key] = {"armature": arm.name, "collection": name,
                      "rows": [f"{n} {a}" if a else n for n, a in rows]}
    return state


def _rows_now(coll, key, kept):
    """The row list of `key` as the bone collection shows it now, or None when the bone
    collection (or its armature) is gone: the property is then written as it stands."""
    arm = next((a for a in _armatures(coll) if a.name == kept.get("armature")), None)
    if arm is None:
        arms = [a for a in _armatures(coll) if _bone_collections(a).get(kept.get("collection"))]
        arm = arms[0] if len(arms) == 1 else None
    bcoll = _bone_collections(arm).get(kept.get("collection")) if arm is not None else None
    if bcoll is None:
        return None
    key = axis_key(bcoll.name)
    out = []
    for bone in bcoll.bones:
        axes = str(bone.get(key, "")).split() or [None]
        out.extend(f"{bone.name} {a}" if a in AXES else bone.name for a in axes)
    # Rows naming no bone of the armature (one the armature lost, or past the model's nodes)
    # are listed as imported: rigtrip refuses a lost one by name, keeps the others.
    was = list(kept.get("rows") or [])
    gone = [e for e in was if (entries(e) or [(e, None)])[0][0] not in arm.data.bones]
    if sorted(out) == sorted(e for e in was if e not in gone):
        return None
    return ", ".join(out + gone)


class rows_from_collections:
    """Sets each row-list property of the rig's collection `coll` from its bone collection for
    the time of a `with` block (the export writes the collection's custom properties as the
    scene extras), then gives the properties back."""

    def __init__(self, coll, state_key):
        self.coll, self.state_key, self.saved = coll, state_key, []

    def __enter__(self):
        state = self.coll.get(self.state_key) or {}
        kept = state.get(STATE) or {}
        for key in list(kept.keys()):
            if key not in self.coll:
                continue
            rows = _rows_now(self.coll, key, kept[key])
            if rows is not None:
                self.saved.append((key, self.coll[key]))
                self.coll[key] = rows
        return self

    def __exit__(self, *exc):
        for key, value in reversed(self.saved):
            self.coll[key] = value
        return False
