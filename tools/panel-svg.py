#!/usr/bin/env python3
"""Draws the Blender add-on's panels as SVG schematics, from the add-on's own source.

    tools/panel-svg.py [OUT_DIR]        (default: guide/images)

Reads blender/rigtrip_blender/*.py with `ast` (no Blender needed) and follows each panel's
draw code: the `draw()` methods of the import operators and of the preferences (with the
functions they call), and, for the export operator, which has no `draw()`, its properties in
the order they are declared, as Blender draws them. Each `layout.prop(self, "x")` becomes the
property's name and a widget of its kind (check box, menu with its default, file or text
field, number with its default), `label(text=...)` a label, `box()` a box around what is drawn
into it, `operator(...)` a button with the operator's label, an `if` the lines it shows when
its condition holds (marked), a `for` a line standing for each of its lines. The pictures are
schematics: the order and the words are the add-on's, the look is not Blender's.
tests/readme_tour.rs checks that guide/images/panel-*.svg are what this draws today.
"""

import ast
import html
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ADDON = REPO / "blender" / "rigtrip_blender"

# The panels: file name, title, (module, class) whose draw is followed; export: its properties.
PANELS = [
    ("panel-import.svg", "File › Import › Game rig (rigtrip)", "__init__", "IMPORT_SCENE_OT_rigtrip"),
    ("panel-export.svg", "File › Export › Game rig (rigtrip)", "__init__", "EXPORT_SCENE_OT_rigtrip"),
    ("panel-import-game.svg", "File › Import › Game rig from the game (rigtrip)", "game",
     "IMPORT_SCENE_OT_rigtrip_game"),
    ("panel-preferences.svg", "Edit › Preferences › Add-ons › rigtrip", "__init__",
     "RigtripPreferences"),
]
# Properties a file browser shows elsewhere or never (ExportHelper's, and HIDDEN ones).
FILE_BROWSER = {"filepath", "filename", "directory", "filter_glob", "check_existing"}

W, ROW, SPLIT = 480, 26, 200


def modules():
    """Every module of the add-on, parsed: name -> ast.Module."""
    return {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(ADDON.glob("*.py"))}


def find_class(mods, name):
    for mod in mods.values():
        for node in mod.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return node
    raise SystemExit(f"panel-svg: no class {name} in {ADDON}")


def find_function(mods, name):
    for mod in mods.values():
        for node in mod.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
    return None


def kwarg(call, key):
    for k in call.keywords:
        if k.arg == key:
            try:
                return ast.literal_eval(k.value)
            except ValueError:
                return None
    return None


def property_call(mods, value):
    """The bpy.props call an annotation makes, following a function that returns one."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name.endswith("Property"):
        return value
    fn = find_function(mods, name)
    for node in ast.walk(fn) if fn else []:
        if isinstance(node, ast.Return):
            return property_call(mods, node.value)
    return None


def properties(mods, cls):
    """The class's properties in declaration order: [(identifier, call)]."""
    out = []
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            call = property_call(mods, node.annotation)
            if call is not None:
                out.append((node.target.id, call))
    return out


def widget(ident, call):
    """One row for a property: ("prop", name, kind, shown value)."""
    kind = call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id
    name = kwarg(call, "name") or ident
    default = kwarg(call, "default")
    if kind == "BoolProperty":
        return ("bool", name, bool(default))
    if kind == "EnumProperty":
        items = kwarg(call, "items") or ()
        shown = next((i[1] for i in items if i[0] == default), str(default))
        return ("enum", name, shown)
    if kind in ("IntProperty", "FloatProperty"):
        return ("number", name, str(default if default is not None else 0))
    subtype = kwarg(call, "subtype") or ""
    return ("path" if subtype in ("FILE_PATH", "DIR_PATH") else "text", name, default or "")


class Drawer:
    """Follows draw code, collecting rows: (depth, kind, ...)."""

    def __init__(self, mods, cls):
        self.mods, self.cls = mods, cls
        self.props = dict(properties(mods, cls))
        self.rows = []

    def prop_row(self, owner_cls, ident, depth, note):
        props = self.props if owner_cls is None else dict(properties(self.mods, owner_cls))
        call = props.get(ident)
        if call is None:
            raise SystemExit(f"panel-svg: no property {ident} in {self.cls.name}")
        self.rows.append((depth, *widget(ident, call), note))

    def operator_label(self, arg):
        # `SomeOperator.bl_idname` -> that class's bl_label.
        if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name):
            cls = find_class(self.mods, arg.value.id)
            for node in cls.body:
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "bl_label":
                    return ast.literal_eval(node.value)
        return ast.unparse(arg)

    def body(self, stmts, boxes, depth, note="", owners=None):
        """Draws `stmts`; `boxes` names layouts that are boxes (name -> depth)."""
        owners = owners or {}
        for st in stmts:
            if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call):
                f = st.value.func
                if isinstance(f, ast.Attribute) and f.attr in ("box", "column", "row"):
                    target = st.targets[0].id
                    inner = boxes.get(ast.unparse(f.value), depth)
                    if f.attr == "box":
                        self.rows.append((inner, "box", "", "", note))
                        boxes[target] = inner + 1
                    else:
                        boxes[target] = inner
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                self.call(st.value, boxes, depth, note, owners)
            elif isinstance(st, ast.If):
                cond = ast.unparse(st.test).replace("self.", "")
                self.body(st.body, boxes, depth, f"when {cond}", owners)
            elif isinstance(st, ast.For):
                source = ast.unparse(st.iter).replace("self.", "")
                first = next((n.value.func for n in st.body if isinstance(n, ast.Expr)
                              and isinstance(n.value, ast.Call)
                              and isinstance(n.value.func, ast.Attribute)), None)
                d = boxes.get(ast.unparse(first.value), depth) if first is not None else depth
                self.rows.append((d, "label", f"‹a line per {source}›", "", note))

    def call(self, call, boxes, depth, note, owners):
        f = call.func
        if not isinstance(f, ast.Attribute):
            return
        on = ast.unparse(f.value)
        d = boxes.get(on, depth)
        if f.attr == "prop":
            owner = ast.unparse(call.args[0])
            self.prop_row(owners.get(owner), ast.literal_eval(call.args[1]), d, note)
        elif f.attr == "label":
            self.rows.append((d, "label", kwarg(call, "text") or "", "", note))
        elif f.attr == "operator":
            self.rows.append((d, "button", self.operator_label(call.args[0]), "", note))
        else:
            # A function of the add-on drawing into this layout: follow it.
            fn = find_function(self.mods, f.attr)
            if fn is not None:
                params = [a.arg for a in fn.args.args]
                args = [ast.unparse(a) for a in call.args]
                layout = dict(zip(args, params)).get("self.layout", "layout")
                inner = {layout: depth}
                sub_owners = {p: None for a, p in zip(args, params) if a == "self"}
                self.body(fn.body, inner, depth, note, sub_owners)

    def draw(self):
        draw = next((n for n in self.cls.body if isinstance(n, ast.FunctionDef) and n.name == "draw"),
                    None)
        if draw is None:
            for ident, call in properties(self.mods, self.cls):
                hidden = "HIDDEN" in (kwarg(call, "options") or set())
                if ident not in FILE_BROWSER and not hidden:
                    self.rows.append((0, *widget(ident, call), ""))
        else:
            self.body(draw.body, {"self.layout": 0, "layout": 0}, 0)
        return self.rows


def esc(text):
    return html.escape(str(text), quote=True)


def svg(title, rows):
    """The picture of a panel with `rows` (a box row spans the deeper rows after it)."""
    drawn = [r for r in rows if r[1] != "box"]
    height = 44 + ROW * len(drawn) + 12
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" '
        f'viewBox="0 0 {W} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{height}" rx="6" fill="#303030"/>',
        f'<rect width="{W}" height="30" rx="6" fill="#1f1f1f"/>',
        f'<text x="12" y="20" fill="#e6e6e6" font-weight="bold">{esc(title)}</text>',
    ]
    y, ys = 44, []
    for row in rows:
        ys.append(y)
        y += 0 if row[1] == "box" else ROW
    for i, (depth, kind, *_rest) in enumerate(rows):
        if kind != "box":
            continue
        end = i + 1
        while end < len(rows) and rows[end][0] > depth:
            end += 1
        x0 = 6 + 14 * depth
        out.append(f'<rect x="{x0}" y="{ys[i] - 3}" width="{W - 2 * x0}" '
                   f'height="{ys[end - 1] + ROW - ys[i]}" rx="4" fill="#3a3a3a" stroke="#555"/>')
    for (depth, kind, name, value, note), y in zip(rows, ys):
        x0 = 12 + 14 * depth
        if kind == "box":
            continue
        if kind == "label":
            out.append(f'<text x="{x0}" y="{y + 14}" fill="#d0d0d0">{esc(name)}</text>')
        elif kind == "button":
            out.append(f'<rect x="{x0}" y="{y}" width="{W - 2 * x0}" height="20" rx="4" '
                       f'fill="#545454"/>')
            out.append(f'<text x="{W // 2}" y="{y + 14}" fill="#ffffff" '
                       f'text-anchor="middle">{esc(name)}</text>')
        else:
            out.append(f'<text x="{SPLIT - 8}" y="{y + 14}" fill="#d0d0d0" '
                       f'text-anchor="end">{esc(name)}</text>')
            out.append(field(kind, value, y))
        if note:
            out.append(f'<text x="{W - 16}" y="{y + 14}" fill="#8fb8e0" font-size="10" '
                       f'text-anchor="end">{esc(note)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def field(kind, value, y):
    """The widget of a property row."""
    if kind == "bool":
        tick = '<path d="M{0} {1} l4 4 l7 -8" stroke="#fff" fill="none" stroke-width="2"/>'.format(
            SPLIT + 3, y + 10) if value else ""
        fill = "#4772b3" if value else "#545454"
        return f'<rect x="{SPLIT}" y="{y + 2}" width="16" height="16" rx="3" fill="{fill}"/>{tick}'
    width = W - SPLIT - 24
    parts = [f'<rect x="{SPLIT}" y="{y}" width="{width}" height="20" rx="4" fill="#1d1d1d"/>']
    text = {"enum": f"{value}  ▾", "path": f"{value}", "number": value, "text": value}[kind]
    anchor = 'text-anchor="middle"' if kind == "number" else ""
    tx = SPLIT + width // 2 if kind == "number" else SPLIT + 8
    parts.append(f'<text x="{tx}" y="{y + 14}" fill="#e6e6e6" {anchor}>{esc(text)}</text>')
    if kind == "path":
        # A folder: the file browser's button.
        parts.append(f'<path d="M{SPLIT + width - 20} {y + 6} h5 l2 2 h7 v8 h-14 z" fill="#9a9a9a"/>')
    return "".join(parts)


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "guide" / "images"
    out.mkdir(parents=True, exist_ok=True)
    mods = modules()
    for file, title, _module, cls in PANELS:
        rows = Drawer(mods, find_class(mods, cls)).draw()
        (out / file).write_text(svg(title, rows), encoding="utf-8")
        print(f"wrote {out / file} ({len(rows)} rows)")


if __name__ == "__main__":
    main()
