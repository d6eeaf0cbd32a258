//! Argument parsing and printing for the `rigtrip` binary. Every command calls a library
//! function in `rigtrip::ops`; nothing here knows a byte offset.

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};

use rigtrip::native::{MotionFile, NativeFile};
use rigtrip::ops::output::{json_doc, Files, Head};
use rigtrip::ops::{self, verify};

use crate::export::{export_cmd, ExportArgs};
use crate::shared::{
    buffers_dir, in_chunks, names_beside_read, native_hint, ok_head, read_template, skipped_note,
    FormatArgs, Verbosity, EXIT_BAD_INPUT,
};

#[derive(Parser, Debug)]
#[command(
    name = "rigtrip",
    version,
    about = "Lossless round trips of game rigs (DMC3 MOD/SCM/EFM and MOT/PAC motions, PlayStation DBnnHIE.BIN) to glTF 2.0 and back",
    long_about = "rigtrip reads reverse-engineered game rig formats exactly (every byte, unknown fields \
included), lifts them into a format-neutral skeleton, and writes them back byte for byte.\n\n\
Formats: DBnnHIE.BIN hierarchy tables (PlayStation), DMC3 .mod/.scm containers, a DMC3 \
node-domain block at a given offset inside any file (.efm and others, --block-at/--nodes), and \
DMC3 .mot motions and .pac motion archives (inspect, verify, dump/build; glTF animations with \
their model: export --motions, import --motions-out).\n\n\
Exit codes: 0 ok, 1 a check failed (verify: a file did not come back identical; check: \
something would stop the game; lint: an error finding; gait: a slot the loader needs is \
MISSING), 2 bad input or usage.",
    after_help = "Examples:\n  rigtrip inspect samples/DB22HIE.BIN\n  rigtrip verify samples/\n  rigtrip check samples/\n  rigtrip export samples/DB22HIE.BIN -o db22.glb --names samples/DB22HIE.names.json"
)]
struct Cli {
    /// Print only problems.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Print more detail.
    #[arg(short, long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

impl Cli {
    /// The global `-q` and `-v`.
    fn verbosity(&self) -> Verbosity {
        Verbosity {
            quiet: self.quiet,
            verbose: self.verbose,
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Show what a file holds: skeletons, joint trees, the spatial gate, undecoded fields; DMC3
    /// models their objects and meshes (vertices, triangles, texture, joints used); motions and
    /// archives their tracks.
    #[command(
        after_help = "Motions, archives and textures (.mot, .pac, .ptx, .tm2) are recognised by content \
(a texture whose DDS header was zeroed by its name): an archive lists its slots and members, each \
member read by its own magic (PTX textures, MOD/SCM models, motions, nested archives); a texture \
lists its mip levels and every header field that differs from the canonical form.\n\n\
Examples:\n  rigtrip inspect samples/DB22HIE.BIN\n  rigtrip inspect --json samples/dmc3_humanoid.mod\n  rigtrip inspect --block-at 0x35 --nodes 8 samples/dmc3_effect.efm\n  rigtrip inspect --coverage samples/dmc3_humanoid.mod\n  rigtrip inspect samples/dmc3_character.pac"
    )]
    Inspect(InspectArgs),
    /// Check that every file comes back byte for byte, on both legs by default: native -> rig ->
    /// native, and native -> glTF -> native.
    #[command(
        after_help = "Prints one line per file and a summary `N identical, M differ, K rejected`, \
with the files skipped as not rig files counted (-v names them).\n\
Exit 0 if all identical, 1 if any differ (a rigtrip bug: please report it), 2 if any was rejected.\n\n\
--legs layout (or all) also lays each MOD/SCM out anew by the game's own rules (the retail \
layout: streams grouped by kind, the block, then each mesh's index workspace, the room the game \
writes its triangle indices into) and compares: a file in that layout says nothing more, another \
gets a note `layout: not in the retail layout` with the first differing offset and the \
structure there; an archive, each MOD/SCM member. This is information about the file (a \
synthetic or hand-made one), not a failure: it does not change the exit status. Files that are \
not MOD/SCM are counted as having no such layout.\n\n\
Examples:\n  rigtrip verify samples/\n  rigtrip verify -q --json path/to/dump > report.json\n  rigtrip verify --format hie DB*.BIN\n  rigtrip verify --legs all samples/"
    )]
    Verify(VerifyArgs),
    /// Would the game load these files? Its loader's rules (offsets, index workspaces, counts,
    /// weights, textures, motions, a player archive's slots) run over files, folders and
    /// archives.
    #[command(after_help = crate::check::CHECK_HELP)]
    Check(crate::check::CheckArgs),
    /// Turn rig files into skinned glTF 2.0 (.glb or .gltf) that carry everything needed to rebuild
    /// them; with --motions, the model's motions as animations.
    #[command(
        after_help = "The space conversion is baked in: DMC3 centimetres x0.01, HIE units x0.001 \
and 180 degrees about X (Y down to glTF's Y up). In Blender, import with the default settings; \
export back with \"Include > Custom Properties\" on, or the rig cannot be rebuilt. Joint names \
come from --names, else from the names file beside the input (its stem + .names.json, which \
import writes) when there is one.\n\n\
A character archive (.pac with a MOD member) exports its body model with its textures: one PNG \
image per texture (decoded from DXT1/DXT5, alpha kept; the native bytes ride inside the PNG), \
one material per texture index a mesh uses (texture_N). --textures FILE.ptx does the same for a \
loose model.\n\n\
Several files or folders (recursed, as by verify) go to a folder, -o DIR: one GLB per rig file, \
named after it (x.mod -> DIR/x.mod.glb), one line per file and a summary. Exit 0 if all were \
exported, 2 if any was rejected.\n\n\
Examples:\n  rigtrip export samples/DB22HIE.BIN -o db22.glb --names samples/DB22HIE.names.json\n  \
rigtrip export samples/dmc3_humanoid.mod -o humanoid.gltf\n  \
rigtrip export samples/dmc3_humanoid.mod --motions samples/dmc3_humanoid.pac --motions walk.mot -o anim.glb\n  \
rigtrip export pl000.mod --motions motions/ -o pl000.glb\n  \
rigtrip export samples/dmc3_character.pac -o character.glb\n  \
rigtrip export samples/dmc3_humanoid.mod --textures samples/dmc3_textures.ptx -o dressed.glb\n  \
rigtrip export --block-at 0x35 --nodes 8 samples/dmc3_effect.efm -o effect.glb\n  \
rigtrip export samples/ -o exported/"
    )]
    Export(ExportArgs),
    /// Rebuild the native file from a glTF rigtrip exported, possibly edited (e.g. in Blender).
    #[command(
        after_help = "Every byte an edit does not touch comes back exactly. Joints are matched by the \
identity rigtrip stored in their extras (then by name); values within --tolerance of what export \
wrote get their original bits back (DCC tools add float noise). Moved and rotated joints, \
renames, reparenting, added leaf joints and unreferenced removals are written; so are mesh \
edits (DMC3: moved vertices, repainted weights, deleted meshes, texture_N materials, new \
meshes skinned to the rig under any name: into object I when named objectI_..., else the \
object of the mesh they were copied from, else a new object). Mesh nodes the import does not \
use are named in the report. Anything the native format cannot hold is refused, naming the \
joint, mesh or field. The glTF's joint names are kept in OUT's stem + .names.json beside OUT \
when they are not the defaults (export reads them from there). In Blender, export with \
\"Include > Custom Properties\" on, or the rig cannot be rebuilt.\n\n\
Before anything is written, rigtrip check runs on OUT (named as it will be) and the motion \
files: an unedited glTF gives the file back as it was read, its findings reported; an edited one \
the game could not load is refused, naming the finding, unless --ignore-check. With --original \
FILE (the file the glTF came from; --onto: the template) what FILE already has in the same place \
and field does not refuse the edit.\n\n\
A glTF exported from a character archive (.pac) gives the whole archive back: the model with its \
edits, each texture from the native bytes inside its PNG (an image Blender did not change keeps \
them; a repainted one is refused by texture index), every other member as it was.\n\n\
--onto TEMPLATE takes a glTF without rigtrip data (made elsewhere, or exported without custom \
properties): its skinned meshes replace the template's, joints matched by name (the template's \
names file, rigtrip's default names, or --joint-map), everything else comes from the template. \
The body is taken where the glTF draws it (node transforms above the skin included) and \
re-posed from its own rest pose onto the template's bones; a joint mapped to nothing moves with \
its nearest mapped ancestor. It keeps its own height unless --fit height (the template's) or \
--fit bones (on the template's own bones, what the game bends it about). With --motions-out DIR \
and --motion-template FILE (a motion file of the template's model, for the motion header) the \
glTF's animations become new motions on the template's skeleton: each mapped bone points where \
the glTF's does, the hips move by the glTF's hips scaled by the two hips' heights, joints mapped \
to nothing stay at rest.\n\n\
Examples:\n  rigtrip import edited.glb -o DB22HIE.BIN\n  \
rigtrip import edited.gltf -o humanoid.mod --json > report.json\n  \
rigtrip import edited.glb -o humanoid.mod --tolerance 1e-3 --force\n  \
rigtrip import character.glb -o pl000.pac\n  \
rigtrip import edited.glb -o pl000_new.pac --original pl000.pac\n  \
rigtrip import body.glb --onto pl000.mod -o pl000_body.mod --joint-map joints.json\n  \
rigtrip import walk.glb --onto pl000.mod -o pl000_body.mod --joint-map joints.json \\\n    \
--motions-out motions --motion-template pl000_00_3.pac"
    )]
    Import(ImportArgs),
    /// Diagnose the skin contract of any glTF/GLB: IBMs, bind vs rest, JOINTS/WEIGHTS, names.
    #[command(
        after_help = "Severities: error - a loader will draw it wrong or refuse it; warning - legal, \
but Blender or another major loader will likely change or mis-show it; info - worth knowing.\n\n\
Exit 2 when a file cannot be read or is not glTF/GLB; otherwise exit 1 when any file has an \
error finding (warnings do not fail).\n\n\
Examples:\n  rigtrip lint character.glb\n  rigtrip lint --json exports/*.glb > findings.json"
    )]
    Lint(LintArgs),
    /// Write the whole native structure (rigs, motions, archives) as diffable JSON (lossless:
    /// `build` gives the file back).
    #[command(
        after_help = "Unknown fields and raw bit patterns are 0x-hex, blobs base64; keys come in a fixed \
order and each small record sits on one line, so two dumps diff cleanly in git.\n\n\
Examples:\n  rigtrip dump samples/DB22HIE.BIN -o db22.json\n  \
rigtrip dump --block-at 0x35 --nodes 8 samples/dmc3_effect.efm -o effect.json\n  \
rigtrip dump samples/dmc3_humanoid.mod | less"
    )]
    Dump(DumpArgs),
    /// Rebuild a native file from a `rigtrip dump` JSON (edited or not).
    #[command(
        after_help = "Examples:\n  rigtrip build db22.json -o DB22HIE.BIN\n  rigtrip build effect.json -o effect.efm --force"
    )]
    Build(BuildArgs),
    /// What a 1995 mech simulator's gait loader and transition machine make of glTF walk clips.
    #[command(
        after_help = "Animations are matched to the loader's 0x21 slots by name (prefix + 3-letter code). \
Each clip is one stride; its stride is the root's displacement along --forward from the first to the \
last keyframe (animation.extras.rigtrip.stride overrides); speed caps come from \
animation.extras.rigtrip.speedCap and are reported unknown otherwise, never invented.\n\n\
Exit 0 when every slot the loader needs is filled, 1 when any is MISSING (the game would crash \
on load: check --prefix), 2 when the file cannot be read.\n\n\
Examples:\n  rigtrip gait samples/mech.glb\n  \
rigtrip gait samples/mech.glb --intended --json\n  \
rigtrip gait samples/mech.glb --demand 0:0,2:12,6:40,10:0,12:-10 -o preview.glb"
    )]
    Gait(GaitArgs),
    /// Suggest a joint map for `import --onto`: each joint of a glTF's skin matched to one of
    /// the template's, by name, else along the chains; a file to check and correct.
    #[command(
        after_help = "Names are compared without case, separators and the usual prefixes \
(mixamorig:, DEF-, Skeleton_, ...). A joint whose name matches nothing goes, in the glTF's \
hierarchy order, to the template joint below its nearest matched ancestor's match whose bone \
from there points most nearly the same way (then: the fewest joints skipped, the nearest \
length, as many branches), within 60 degrees; a joint with no matched ancestor to the nearest \
template joint by place (both skeletons at unit height), within a tenth of it. Each match and \
how it was made is printed; a joint left out moves with its nearest mapped ancestor.\n\n\
Examples:\n  rigtrip onto-map CesiumMan.gltf pl000.mod -o cesium.map.json\n  \
rigtrip import CesiumMan.gltf --onto pl000.mod --joint-map cesium.map.json -o body.mod"
    )]
    OntoMap(crate::onto_map::OntoMapArgs),
    /// The game's own files (Devil May Cry 3 HD Collection, PC): list what it loads by its own
    /// lookup, extract it, install edited files into a volume of rigtrip's own, remove them.
    #[command(after_help = "Examples:\n  rigtrip game list --game ~/dmc3 pl000\n  \
rigtrip game extract --game ~/dmc3 pl000.pac -o work/\n  \
rigtrip game install --game ~/dmc3 work/pl000.pac\n  rigtrip game uninstall --game ~/dmc3")]
    Game(crate::game::GameArgs),
}

#[derive(Args, Debug)]
struct InspectArgs {
    /// The file to inspect.
    file: PathBuf,
    #[command(flatten)]
    format: FormatArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Account for every byte instead: decoded, preserved or undecoded, with the evidence class.
    #[arg(long)]
    coverage: bool,
}

#[derive(Args, Debug)]
struct GaitArgs {
    /// A .glb or .gltf with the mech's animations.
    file: PathBuf,
    /// Animation name prefix (e.g. `mad`); detected when unambiguous.
    #[arg(long)]
    prefix: Option<String>,
    /// Forward axis for stride measurement: +z (default), -z, +x, -x, +y, -y.
    #[arg(long, value_name = "AXIS", default_value = "+z")]
    forward: String,
    /// Demand timeline `time:speed,...` (seconds:units per second, linear between) to simulate.
    #[arg(long, value_name = "SPEC")]
    demand: Option<String>,
    /// Also show what the loader's intended formulas would give, beside the shipped ones.
    #[arg(long)]
    intended: bool,
    /// Write the input plus one animation playing the chosen clips in sequence (needs --demand).
    #[arg(short, long, value_name = "PREVIEW.glb", requires = "demand")]
    output: Option<PathBuf>,
    /// Overwrite the preview if it exists.
    #[arg(long)]
    force: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct ImportArgs {
    /// A .glb or .gltf that rigtrip exported (edited or not).
    file: PathBuf,
    /// The native file to write.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
    /// How far a value may drift from what export wrote and still count as unedited
    /// (glTF units; default 1e-4: metres + per metre of distance, x10 in radians for rotations).
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    tolerance: Option<f64>,
    /// Keep the original meshes even if the glTF's geometry was edited (refused when the
    /// skeleton was scaled together with the meshes).
    #[arg(long)]
    ignore_mesh_edits: bool,
    /// A character archive: when a model's meshes changed (the body's, the coat's), write its
    /// shadow model (slot 8, the coat's 14) anew from the new meshes: its vertices grouped by
    /// the joint weighing them most (small groups folded into their parent), one closed hull per
    /// group moved by that joint, within the game's budgets, instead of carrying the old shadow
    /// (which still casts the old shape); and give a coat without a shadow its slot 14, which
    /// the game needs. Off by default: a hand-made shadow is kept unless asked.
    #[arg(long, conflicts_with = "onto")]
    rebuild_shadows: bool,
    /// Write the motion files the glTF carries (from `export --motions`) into this folder
    /// (created if missing), under their original names, rebuilt from its animations (a motion
    /// the export carried without one, because it does not fit the model, as it was). An
    /// animation that came from no motion file is a new motion: named `ARCHIVE_NN` it goes into
    /// slot NN of that archive (which grows when NN is past its table), else into the archive of
    /// --new-motions-into, else into DIR as NAME.mot. With --onto (and --motion-template) every
    /// animation is a new motion on the template's skeleton.
    #[arg(long, value_name = "DIR")]
    motions_out: Option<PathBuf>,
    /// With --motions-out: new motions whose name gives no archive slot go into the first free
    /// slot of this archive (one the glTF carries, by file name) instead of NAME.mot files.
    #[arg(long, value_name = "FILE.pac", requires = "motions_out")]
    new_motions_into: Option<PathBuf>,
    /// Put a glTF without rigtrip data onto this native file: its skinned meshes replace the
    /// template's, everything else (header, skeleton, undecoded fields) is the template's.
    #[arg(long, value_name = "TEMPLATE", conflicts_with = "ignore_mesh_edits")]
    onto: Option<PathBuf>,
    /// With --onto: a JSON object mapping the glTF's joint names to template joints, by name
    /// or native index: {"Hips": "mod_0", "Spine": 1}.
    #[arg(long, value_name = "FILE.json", requires = "onto")]
    joint_map: Option<PathBuf>,
    /// With --onto: the body's size. `source` (default) keeps its own height (on the template's
    /// skeleton taken to its scale); `height` scales it to the template's meshes' height;
    /// `bones` puts it on the template's own bones (what the game bends it about).
    #[arg(
        long,
        value_enum,
        value_name = "WHAT",
        requires = "onto",
        default_value = "source"
    )]
    fit: FitArg,
    /// With --onto and --motions-out: a motion file of the template's model (`.mot`, or a
    /// `.pac` of motions) whose motion header the new motions take (its undecoded fields); the
    /// glTF's animations are put on the template's skeleton, bones pointing where the glTF's
    /// do. New motions named ARCHIVE_NN for this archive go into its slot NN.
    #[arg(long, value_name = "FILE", requires_all = ["onto", "motions_out"])]
    motion_template: Option<PathBuf>,
    /// Write OUT even when `rigtrip check` finds something in it that would stop the game. By
    /// default an edited file that would is refused, naming the finding; an unedited one is
    /// written as it was read, its findings reported.
    #[arg(long)]
    ignore_check: bool,
    /// The native file the glTF was exported from: what `rigtrip check` finds in it already
    /// (same place and field) is reported but does not refuse the edit (--onto compares with
    /// the template).
    #[arg(long, value_name = "FILE", conflicts_with = "onto")]
    original: Option<PathBuf>,
    /// Print the import report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct DumpArgs {
    /// The native file.
    file: PathBuf,
    #[command(flatten)]
    format: FormatArgs,
    /// Write the JSON here (atomically) instead of to standard output.
    #[arg(short, long, value_name = "OUT.json")]
    output: Option<PathBuf>,
    /// Overwrite OUT.json if it exists.
    #[arg(long)]
    force: bool,
}

#[derive(Args, Debug)]
struct BuildArgs {
    /// A JSON file written by `rigtrip dump`.
    file: PathBuf,
    /// The native file to write.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
}

#[derive(Args, Debug)]
struct LintArgs {
    /// glTF or GLB files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print the findings as JSON (the report's keys for one file, a `files` array for several).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct VerifyArgs {
    /// Files or directories (recursed).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    format: FormatArgs,
    /// Print the results as JSON.
    #[arg(long)]
    json: bool,
    /// `native`: native -> rig -> native only; `both` (default): also native -> glTF -> native
    /// through the real GLB serializer and importer, in memory; `layout`: native, and each
    /// MOD/SCM laid out anew by the game's retail rules and compared; `all`: the three.
    #[arg(long, value_enum, default_value = "both")]
    legs: LegsArg,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LegsArg {
    /// native -> rig -> native.
    Native,
    /// Also native -> glTF -> native.
    Both,
    /// native, and the file laid out anew by the retail rules.
    Layout,
    /// native, glTF and layout.
    All,
}

/// Runs the command line and returns the process exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_BAD_INPUT } else { 0 };
        }
    };
    match dispatch(&cli) {
        Ok(code) => code,
        // A reader that stopped early (`rigtrip inspect x | head`) is not an error.
        Err(e) if broken_pipe(&e) => 0,
        Err(e) => {
            let message = format!("{e:#}");
            eprintln!("rigtrip: error: {message}");
            if let Some(path) = cli.command.json_input() {
                let head = Head {
                    message: Some(message),
                    path: path.map(|p| p.display().to_string()),
                    ..Head::exit(EXIT_BAD_INPUT)
                };
                print!("{}", json_doc(&head, &()));
            }
            EXIT_BAD_INPUT
        }
    }
}

/// Whether the error is stdout's reader having gone away.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

impl Command {
    /// With `--json`: `Some`, holding the input file when the command has one (for the error
    /// document); without: `None`.
    fn json_input(&self) -> Option<Option<&Path>> {
        let (json, path) = match self {
            Command::Inspect(a) => (a.json, Some(a.file.as_path())),
            Command::Verify(a) => (a.json, None),
            Command::Check(a) => (a.json, None),
            Command::Export(a) => (
                a.json,
                match a.inputs.as_slice() {
                    [one] => Some(one.as_path()),
                    _ => None,
                },
            ),
            Command::Import(a) => (a.json, Some(a.file.as_path())),
            Command::Lint(a) => (a.json, None),
            Command::Gait(a) => (a.json, Some(a.file.as_path())),
            Command::Game(a) => (a.json(), a.game.as_deref()),
            Command::Dump(_) | Command::Build(_) | Command::OntoMap(_) => (false, None),
        };
        json.then_some(path)
    }
}

fn dispatch(cli: &Cli) -> Result<i32> {
    match &cli.command {
        Command::Inspect(a) => inspect(a),
        Command::Verify(a) => verify_cmd(cli, a),
        Command::Check(a) => crate::check::check_cmd(cli.verbosity(), a),
        Command::Export(a) => export_cmd(cli.verbosity(), a),
        Command::Gait(a) => gait_cmd(a),
        Command::Import(a) => import_cmd(cli, a),
        Command::Lint(a) => lint_cmd(cli, a),
        Command::Dump(a) => dump_cmd(cli, a),
        Command::Build(a) => build_cmd(cli, a),
        Command::OntoMap(a) => crate::onto_map::run(cli.quiet, a),
        Command::Game(a) => crate::game::run(cli.quiet, a),
    }
}

fn inspect(a: &InspectArgs) -> Result<i32> {
    let data =
        std::fs::read(&a.file).with_context(|| format!("cannot read {}", a.file.display()))?;
    if a.format.format().is_none() {
        if let Some(m) = MotionFile::detect_read_named(&a.file, &data) {
            let file = m.with_context(|| format!("{}", a.file.display()))?;
            let mut out = std::io::stdout().lock();
            if a.coverage {
                let c = ops::coverage::motion_coverage(&file, &data);
                if a.json {
                    write!(out, "{}", json_doc(&ok_head(&a.file), &c))?;
                } else {
                    write!(out, "{}", ops::coverage::render_text(&c))?;
                }
            } else {
                let r = ops::motion::report(&file, data.len());
                if a.json {
                    write!(out, "{}", json_doc(&ok_head(&a.file), &r))?;
                } else {
                    write!(out, "{}", ops::motion::render_text(&r))?;
                }
            }
            return Ok(0);
        }
    }
    let file = NativeFile::read(a.format.format(), &data)
        .map_err(|e| e.named(&a.file))
        .with_context(|| format!("{}", a.file.display()))?;
    let mut out = std::io::stdout().lock();
    if a.coverage {
        let c = ops::coverage::coverage(&file, &data);
        if a.json {
            write!(out, "{}", json_doc(&ok_head(&a.file), &c))?;
        } else {
            write!(out, "{}", ops::coverage::render_text(&c))?;
        }
        return Ok(0);
    }
    let kind = file.kind();
    let rig = rigtrip::rig::lift(file);
    let report = ops::inspect::report(kind, data.len(), &rig);
    if a.json {
        write!(out, "{}", json_doc(&ok_head(&a.file), &report))?;
    } else {
        write!(out, "{}", ops::inspect::render_text(&report))?;
    }
    Ok(0)
}

fn import_cmd(cli: &Cli, a: &ImportArgs) -> Result<i32> {
    use rigtrip::gltf::import;
    if let Some(t) = a.tolerance {
        if !(t.is_finite() && t >= 0.0) {
            bail!("--tolerance must be a finite number >= 0, got {t}");
        }
    }
    // Refused before the work, not after it.
    ops::output::check_target(&a.output, a.force, Some(&a.file))?;
    // The glTF's joint names go beside OUT when they are not the defaults; a names file already
    // there is kept in step (rewritten, defaults included), like OUT only with --force.
    let names_file = ops::names::names_path(&a.output);
    ops::output::check_target(&names_file, a.force, Some(&a.file))?;
    if let Some(dir) = &a.motions_out {
        if dir.exists() && !dir.is_dir() {
            bail!("--motions-out {}: not a folder", dir.display());
        }
    }
    let opts = import::ImportOptions {
        tolerance: a.tolerance,
        ignore_mesh_edits: a.ignore_mesh_edits,
        new_motions_into: a.new_motions_into.as_ref().map(|p| p.display().to_string()),
        rebuild_shadows: a.rebuild_shadows,
    };
    let data =
        std::fs::read(&a.file).with_context(|| format!("cannot read {}", a.file.display()))?;
    not_native(&a.file, &data)?;
    let base = buffers_dir(&a.file);
    let imported = match &a.onto {
        None => import::import_slice(&data, base, &opts),
        Some(t) => {
            ops::output::check_target(&a.output, a.force, Some(t))?;
            import::onto::import_onto(&data, base, read_template(t)?, &onto_options(a, t)?)
        }
    }
    .with_context(|| format!("{}", a.file.display()))?;
    let mut motion_paths = Vec::new();
    if let Some(dir) = &a.motions_out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for m in &imported.motions {
            let path = dir.join(&m.file);
            if path.exists() && !a.force {
                return Err(ops::output::OutputError::Exists(path).into());
            }
            if let Some(t) = &a.motion_template {
                ops::output::check_target(&path, a.force, Some(t))?;
            }
            if let Some(bytes) = &m.bytes {
                motion_paths.push((path, bytes));
            }
        }
    }
    // What the game's loader would make of it, before anything is written.
    let original = a.original.as_deref().or(a.onto.as_deref());
    let checked = crate::check::import_check(&a.output, original, &imported, &motion_paths)?;
    if let Some(why) = checked.refusal(a.ignore_check) {
        return crate::check::refuse(a.json, &a.file, &checked, &why);
    }
    ops::output::write_atomic(&a.output, &imported.bytes, a.force, Some(&a.file))?;
    let names = !imported.names.default || names_file.exists();
    if names {
        let text = format!("{}\n", serde_json::to_string_pretty(&imported.names.names)?);
        ops::output::write_atomic(&names_file, text.as_bytes(), true, Some(&a.file))?;
    }
    for (path, bytes) in &motion_paths {
        ops::output::write_atomic(path, bytes, a.force, Some(&a.file))?;
    }
    let mut out = std::io::stdout().lock();
    if a.json {
        let head = Head {
            output: Some(a.output.display().to_string()),
            bytes: Some(imported.bytes.len()),
            ..ok_head(&a.file)
        };
        let body = crate::check::WithCheck {
            report: &imported.report,
            check: &checked.files,
            check_original: checked.original.as_ref().map(|p| p.display().to_string()),
        };
        write!(out, "{}", json_doc(&head, &body))?;
    } else if !cli.quiet {
        write!(out, "{}", imported.report.render_text())?;
        write!(out, "{}", checked.render_text())?;
        writeln!(
            out,
            "wrote {} ({} bytes)",
            a.output.display(),
            imported.bytes.len()
        )?;
        if names {
            writeln!(
                out,
                "joint names kept in {} (export reads them from there)",
                names_file.display()
            )?;
        }
        for (path, bytes) in &motion_paths {
            writeln!(out, "wrote {} ({} bytes)", path.display(), bytes.len())?;
        }
        if a.motions_out.is_none() && !imported.motions.is_empty() {
            writeln!(
                out,
                "note: the glTF carries {} motion file(s); --motions-out DIR writes them",
                imported.motions.len()
            )?;
        }
    }
    Ok(0)
}

/// What `import --onto` is told: the tolerance, the template's names file (beside it, when
/// there is one) and `--joint-map`.
fn onto_options(a: &ImportArgs, t: &Path) -> Result<rigtrip::gltf::import::onto::OntoOptions> {
    use rigtrip::gltf::import::onto::{JointMap, OntoMotions, OntoOptions};
    let names = names_beside_read(t)?;
    let joint_map = match &a.joint_map {
        None => None,
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            Some(JointMap::from_json(&text).with_context(|| format!("{}", p.display()))?)
        }
    };
    let motions = match &a.motion_template {
        None => None,
        Some(p) => Some(OntoMotions {
            template_file: p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            template: std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?,
            into: a.new_motions_into.as_ref().map(|p| p.display().to_string()),
        }),
    };
    Ok(OntoOptions {
        tolerance: a.tolerance,
        names,
        joint_map,
        motions,
        fit: match a.fit {
            FitArg::Source => rigtrip::gltf::import::onto::Fit::Source,
            FitArg::Height => rigtrip::gltf::import::onto::Fit::Height,
            FitArg::Bones => rigtrip::gltf::import::onto::Fit::Bones,
        },
    })
}

/// `import --onto --fit`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum FitArg {
    /// The body's own height.
    Source,
    /// The template's meshes' height.
    Height,
    /// On the template's own bones.
    Bones,
}

/// Refuses an empty file or a native rig given to a glTF command, saying which command reads it.
fn not_native(path: &Path, data: &[u8]) -> Result<()> {
    match native_hint(data) {
        Some(hint) => bail!("{}: {hint}", path.display()),
        None => Ok(()),
    }
}

fn dump_cmd(cli: &Cli, a: &DumpArgs) -> Result<i32> {
    let data =
        std::fs::read(&a.file).with_context(|| format!("cannot read {}", a.file.display()))?;
    let motion = match a.format.format() {
        None => MotionFile::detect_read_named(&a.file, &data),
        Some(_) => None,
    };
    let value = match motion {
        Some(m) => {
            let file = m.with_context(|| format!("{}", a.file.display()))?;
            ops::dump::dump_motion(&file)
        }
        None => {
            let format = a.format.format().or_else(|| rigtrip::native::detect(&data));
            let file = NativeFile::read(format, &data)
                .map_err(|e| e.named(&a.file))
                .with_context(|| format!("{}", a.file.display()))?;
            let Some(format) = format else {
                bail!(
                    "{}: not a recognised format; use --format",
                    a.file.display()
                );
            };
            ops::dump::dump(&file, format)
        }
    };
    let text = ops::dump::render(&value);
    match &a.output {
        Some(p) => {
            ops::output::write_atomic(p, text.as_bytes(), a.force, Some(&a.file))?;
            if !cli.quiet {
                writeln!(
                    std::io::stdout().lock(),
                    "wrote {} ({} bytes)",
                    p.display(),
                    text.len()
                )?;
            }
        }
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(0)
}

fn build_cmd(cli: &Cli, a: &BuildArgs) -> Result<i32> {
    let text = std::fs::read_to_string(&a.file)
        .with_context(|| format!("cannot read {}", a.file.display()))?;
    let bytes = ops::dump::build_text(&text).with_context(|| format!("{}", a.file.display()))?;
    ops::output::write_atomic(&a.output, &bytes, a.force, Some(&a.file))?;
    if !cli.quiet {
        writeln!(
            std::io::stdout().lock(),
            "wrote {} ({} bytes)",
            a.output.display(),
            bytes.len()
        )?;
    }
    Ok(0)
}

fn lint_cmd(cli: &Cli, a: &LintArgs) -> Result<i32> {
    let reports: Vec<rigtrip::lint::LintReport> = a
        .files
        .iter()
        .map(|f| rigtrip::lint::lint_path(f))
        .collect();
    let mut out = std::io::stdout().lock();
    if a.json {
        write!(out, "{}", rigtrip::ops::output::lint_json(&reports))?;
    } else {
        for (r, f) in reports.iter().zip(&a.files) {
            if cli.quiet && !r.has_errors() && !r.has_warnings() {
                continue;
            }
            if r.not_gltf() {
                // Nothing to lint: one line, why (and which command reads a native rig).
                let why = std::fs::read(f)
                    .ok()
                    .and_then(|d| native_hint(&d))
                    .or_else(|| r.findings.first().map(|x| x.message.clone()))
                    .unwrap_or_else(|| "not glTF".into());
                writeln!(out, "{}: cannot lint: {why}", r.file)?;
                continue;
            }
            write!(out, "{}", r.render_text())?;
        }
    }
    Ok(rigtrip::lint::exit_code(&reports))
}

fn gait_cmd(a: &GaitArgs) -> Result<i32> {
    use rigtrip::gait;
    let opts = gait::GaitOptions {
        prefix: a.prefix.clone(),
        forward: gait::parse_axis(&a.forward)?,
        demand: a.demand.as_deref().map(gait::parse_demand).transpose()?,
        intended: a.intended,
    };
    let data =
        std::fs::read(&a.file).with_context(|| format!("cannot read {}", a.file.display()))?;
    not_native(&a.file, &data)?;
    let base = a.file.parent();
    let report =
        gait::analyse_slice(&data, base, &opts).with_context(|| format!("{}", a.file.display()))?;
    if let Some(out_path) = &a.output {
        let glb = gait::preview_glb(&data, base, &report)?;
        ops::output::write_atomic(out_path, &glb, a.force, Some(&a.file))?;
    }
    // A mandatory slot no clip fills crashes the game's loader: the check fails.
    let code = if report.missing.is_empty() { 0 } else { 1 };
    let mut out = std::io::stdout().lock();
    if a.json {
        let head = Head {
            path: Some(a.file.display().to_string()),
            output: a.output.as_ref().map(|p| p.display().to_string()),
            ..Head::exit(code)
        };
        write!(out, "{}", json_doc(&head, &report))?;
    } else {
        write!(out, "{}", report.render_text())?;
        if let Some(p) = &a.output {
            writeln!(out, "wrote {}", p.display())?;
        }
    }
    Ok(code)
}

fn verify_cmd(cli: &Cli, a: &VerifyArgs) -> Result<i32> {
    let files = verify::collect_files(&a.paths).context("cannot list the given paths")?;
    if files.is_empty() {
        bail!("no files found under the given paths");
    }
    let format = a.format.format();
    let legs = match a.legs {
        LegsArg::Native => verify::Legs::Native,
        LegsArg::Both => verify::Legs::Both,
        LegsArg::Layout => verify::Legs::Layout,
        LegsArg::All => verify::Legs::All,
    };
    let mut summary = verify::Summary::default();
    let mut results = Vec::new();
    // Lines are buffered and written once per chunk (stdout alone would write each line).
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    in_chunks(
        &files,
        |f| verify::verify_candidate(format, f, legs),
        |r, out| {
            summary.add(&r.verdict);
            if a.json {
                if !matches!(r.verdict, verify::Verdict::Skipped) {
                    results.push(r);
                }
                Ok(())
            } else {
                print_line(out, cli, &r)
            }
        },
        &mut out,
    )?;
    if a.json {
        let body = Files {
            files: &results,
            summary: Some(&summary),
        };
        write!(out, "{}", json_doc(&Head::exit(summary.exit_code()), &body))?;
    } else {
        write!(
            out,
            "{} identical, {} differ, {} rejected",
            summary.identical, summary.differ, summary.rejected
        )?;
        if summary.skipped > 0 {
            write!(out, ", {}", skipped_note(cli.verbose, summary.skipped))?;
        }
        if let Some(l) = summary.layout {
            write!(
                out,
                "; layout: {} retail, {} not retail, {} without one",
                l.retail, l.not_retail, l.not_applicable
            )?;
        }
        writeln!(out)?;
    }
    out.flush()?;
    Ok(summary.exit_code())
}

fn print_line(out: &mut impl Write, cli: &Cli, r: &verify::FileResult) -> Result<()> {
    let p = r.path.display();
    match &r.verdict {
        verify::Verdict::Identical {
            kind,
            gate,
            gltf,
            layout,
        } => {
            if !cli.quiet {
                writeln!(out, "identical  {kind:<5} {p}")?;
                for g in gate {
                    writeln!(out, "           note: {g} (round trip only)")?;
                }
                if let verify::GltfLeg::Skipped(why) = gltf {
                    if gate.is_empty() || cli.verbose {
                        writeln!(out, "           note: glTF leg skipped: {why}")?;
                    }
                }
                crate::layout_notes::print(out, layout, cli.verbose)?;
            }
        }
        verify::Verdict::Differ { kind, message } => {
            writeln!(out, "DIFFER     {kind:<5} {p}: {message}")?;
        }
        verify::Verdict::Rejected { message } => {
            writeln!(out, "rejected   {:<5} {p}: {message}", "-")?;
        }
        verify::Verdict::Skipped => {
            if cli.verbose {
                writeln!(out, "skipped    {:<5} {p}: not a rig file", "-")?;
            }
        }
    }
    Ok(())
}
