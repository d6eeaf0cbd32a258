"""Which actions changed since the import, so that only those go through Blender's glTF
exporter (it samples every action it is given, which is nearly all of an export's time with a
whole motion set).

At import each new action gets a fingerprint: a hash of its curves as Blender evaluates them
(per F-curve its channel, extrapolation and keys: points, handles, interpolation, easing and the
easing parameters), its frame range, and of what the exporter samples the curves against (the
armature's bones at rest, their rotation modes, the scene's frame rate). At export an action
whose fingerprint is unchanged is left out of the exporter's work (its action filter) and its
motion listed as `unexported` in the motion file's record: rigtrip keeps it as it was read. An
action with curve modifiers, or a rig with constraints or drivers (which move bones beyond their
curves), has no fingerprint: it is always exported.
"""

import array
import contextlib
import hashlib

import bpy

#: Keys of the add-on's state (the collection's `rigtrip_blender` property).
ACTIONS = "actions"
RIG = "rig"


def _curves(action):
    """(slot identifier, F-curve) for every F-curve of `action`: those of its channelbags
    (layered actions, Blender 4.4 and later), else its F-curve list."""
    layers = getattr(action, "layers", None)
    if layers is not None:
        for layer in layers:
            for strip in layer.strips:
                for bag in getattr(strip, "channelbags", ()):
                    slot = bag.slot.identifier if bag.slot is not None else ""
                    for fcurve in bag.fcurves:
                        yield slot, fcurve
        return
    for fcurve in action.fcurves:
        yield "", fcurve


def _values(points, prop, count, code):
    """`prop` of every key of `points` as an array of `code` ('f' or 'i'), `count` per key."""
    out = array.array(code, bytes(4 * count * len(points)))
    points.foreach_get(prop, out)
    return out


#: Interpolations (enum values) whose curve shape depends on only the points and handles (not
#: on the easing and its parameters).
PLAIN_INTERPOLATIONS = {0, 1, 2}  # constant, linear, Bézier
#: The Bézier interpolation's enum value.
BEZIER = 2


def _hash_curve(h, slot, fcurve):
    """Feeds one F-curve into `h`; False when it has modifiers (not fingerprinted)."""
    if len(fcurve.modifiers):
        return False
    head = (slot, fcurve.data_path, fcurve.array_index, fcurve.extrapolation, fcurve.mute)
    h.update(repr(head).encode())
    points = fcurve.keyframe_points
    h.update(len(points).to_bytes(4, "little"))
    interpolation = _values(points, "interpolation", 1, "i")
    h.update(interpolation)
    h.update(_values(points, "co", 2, "f"))
    # Handles shape only the segments after a Bézier key.
    if BEZIER in interpolation:
        for prop in ("handle_left", "handle_right"):
            h.update(_values(points, prop, 2, "f"))
    if not PLAIN_INTERPOLATIONS.issuperset(interpolation):
        h.update(_values(points, "easing", 1, "i"))
        for prop in ("back", "amplitude", "period"):
            h.update(_values(points, prop, 1, "f"))
    return True


def action_fingerprint(action):
    """The fingerprint of `action` (hex), or None when it has curve modifiers."""
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((action.use_frame_range, tuple(action.frame_range))).encode())
    h.update(repr(getattr(action, "use_cyclic", False)).encode())
    for slot, fcurve in _curves(action):
        if not _hash_curve(h, slot, fcurve):
            return None
    return h.hexdigest()


def rig_fingerprint(coll, scene):
    """The fingerprint (hex) of what the exporter samples actions against: each armature of
    `coll`, its bones at rest (names, parents, matrices) and their rotation modes, and the
    frame rate of `scene`; None when a bone has constraints or the armature drivers."""
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((scene.render.fps, scene.render.fps_base)).encode())
    for arm in sorted((o for o in coll.all_objects if o.type == "ARMATURE"), key=lambda o: o.name):
        data = arm.animation_data
        if data is not None and len(data.drivers):
            return None
        bones = arm.data.bones
        h.update(repr([(b.name, b.parent.name if b.parent else None) for b in bones]).encode())
        h.update(_values(bones, "matrix_local", 16, "f"))
        for pose in arm.pose.bones:
            if len(pose.constraints):
                return None
            h.update(pose.rotation_mode.encode())
    return h.hexdigest()


def record(state, coll, scene, actions):
    """Keeps the fingerprints of `actions` (the import's new actions) and of the rig in the
    add-on's `state` (a dict stored on the collection)."""
    state[ACTIONS] = {a.name: action_fingerprint(a) or "" for a in actions}
    state[RIG] = rig_fingerprint(coll, scene) or ""


def unchanged(state, coll, scene):
    """The actions whose fingerprint is the one recorded at import (none when the rig
    changed, or the state has no fingerprints: a rig imported by an older add-on)."""
    recorded = state.get(ACTIONS)
    rig = state.get(RIG)
    if not recorded or not rig or rig != rig_fingerprint(coll, scene):
        return []
    found = []
    for action in bpy.data.actions:
        want = recorded.get(action.name)
        if want and action_fingerprint(action) == want:
            found.append(action)
    return found


def unexported_lists(extras, names):
    """Per motion file record of the scene extras `extras`, the indices of its motions whose
    animation is among `names` (and which the export did not carry already)."""
    out = []
    for rec in extras.get("motions") or []:
        carried = set(rec.get("carried") or [])
        animations = list(rec.get("animations") or [])
        out.append([i for i, n in enumerate(animations) if n in names and i not in carried])
    return out


@contextlib.contextmanager
def left_out(extras, actions):
    """For the time of a `with` block, the glTF exporter leaves `actions` out (its action
    filter on the first scene, which it reads whatever its own option says), and each motion
    file record of the collection's scene extras `extras` (an ID property group) lists the
    motions of those actions under `unexported`; both are put back as they were after."""
    names = {a.name for a in actions}
    lists = unexported_lists(extras, names) if hasattr(extras, "get") else []
    records = list(extras.get("motions") or []) if lists else []
    with _action_filter(actions if any(lists) else []):
        for rec, indices in zip(records, lists):
            if indices:
                rec["unexported"] = indices
        try:
            yield sum(len(x) for x in lists)
        finally:
            for rec in records:
                if "unexported" in rec:
                    del rec["unexported"]


def _filter_type():
    """The glTF add-on's action filter item type (None without that add-on)."""
    try:
        import io_scene_gltf2
    except ImportError:
        return None
    return getattr(io_scene_gltf2, "GLTF2_filter_action", None)


@contextlib.contextmanager
def _action_filter(skip):
    """The glTF exporter's action filter with every action of the file, those of `skip` not
    kept; put back as it was after (and taken away if it was not there)."""
    kind = _filter_type()
    if not skip or kind is None:
        yield
        return
    made = not hasattr(bpy.types.Scene, "gltf_action_filter")
    if made:
        bpy.types.Scene.gltf_action_filter = bpy.props.CollectionProperty(type=kind)
    items = bpy.data.scenes[0].gltf_action_filter
    saved = [(i.action, i.keep) for i in items]
    skip = set(skip)
    items.clear()
    for action in bpy.data.actions:
        item = items.add()
        item.action = action
        item.keep = action not in skip
    try:
        yield
    finally:
        items.clear()
        for action, keep in saved:
            item = items.add()
            item.action, item.keep = action, keep
        if made:
            del bpy.types.Scene.gltf_action_filter


@contextlib.contextmanager
def cleared_pose(coll, animated):
    """For a rig with motions (`animated`), every bone of `coll`'s armatures at rest (no pose)
    for the time of a `with` block, then posed again as it was (without motions the pose is the
    edit, left alone). Blender's glTF exporter clears the pose before each action it makes
    active, but not before the action already active: a channel that action does not key would
    keep whatever another action or a pose edit left on it (a scale of another motion, say),
    and be written as an edit of that motion."""
    arms = [o for o in coll.all_objects if o.type == "ARMATURE"] if animated else []
    bones = [b for o in arms for b in o.pose.bones]
    saved = [b.matrix_basis.copy() for b in bones]
    for bone in bones:
        bone.matrix_basis.identity()
    try:
        yield
    finally:
        for bone, basis in zip(bones, saved):
            bone.matrix_basis = basis

