//! Argument parsing and printing for the `rigtrip` binary. Every command calls a library
//! function in `rigtrip::ops`; nothing here knows a byte offset.

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;
use std::io::Write;
use std::path::PathBuf;

use rigtrip::native::{Format, MotionFile, NativeFile};
use rigtrip::ops::{self, verify};

/// Exit code: bad input or usage.
const EXIT_BAD_INPUT: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "rigtrip",
    version,
    about = "Lossless round trips of game rigs (DMC3 MOD/SCM/EFM, PlayStation DBnnHIE.BIN) to glTF 2.0 and back",
    long_about = "rigtrip reads reverse-engineered game rig formats exactly (every byte, unknown fields \
included), lifts them into a format-neutral skeleton, and writes them back byte for byte.\n\n\
Formats: DBnnHIE.BIN hierarchy tables (PlayStation), DMC3 .mod/.scm containers, and a DMC3 \
node-domain block at a given offset inside any file (.efm and others, --block-at/--nodes).\n\n\
Exit codes: 0 ok, 1 a check failed (a file did not come back identical), 2 bad input or usage.",
    after_help = "Examples:\n  rigtrip inspect samples/DB22HIE.BIN\n  rigtrip verify samples/\n  rigtrip export samples/DB22HIE.BIN -o db22.glb --names samples/DB22HIE.names.json"
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

#[derive(Subcommand, Debug)]
enum Command {
    /// Show what a file holds: skeletons, joint trees, the spatial gate, undecoded fields.
    #[command(
        after_help = "Examples:\n  rigtrip inspect samples/DB22HIE.BIN\n  rigtrip inspect --json samples/dmc3_humanoid.mod\n  rigtrip inspect --block-at 0x35 --nodes 8 samples/dmc3_effect.efm\n  rigtrip inspect --coverage samples/dmc3_humanoid.mod"
    )]
    Inspect(InspectArgs),
    /// Check that every file comes back byte for byte (native -> rig -> native).
    #[command(
        after_help = "Prints one line per file and a summary `N identical, M differ, K rejected`.\n\
Exit 0 if all identical, 1 if any differ (a rigtrip bug: please report it), 2 if any was rejected.\n\n\
Examples:\n  rigtrip verify samples/\n  rigtrip verify -q --json path/to/dump > report.json\n  rigtrip verify --format hie DB*.BIN"
    )]
    Verify(VerifyArgs),
    /// Turn a rig file into a skinned glTF 2.0 (.glb or .gltf) that carries everything needed to rebuild it.
    #[command(
        after_help = "The space conversion is baked in: DMC3 centimetres x0.01, HIE units x0.001 \
and 180 degrees about X (Y down to glTF's Y up). In Blender, import with the default settings; \
export back with \"Include > Custom Properties\" on, or the rig cannot be rebuilt.\n\n\
Examples:\n  rigtrip export samples/DB22HIE.BIN -o db22.glb --names samples/DB22HIE.names.json\n  \
rigtrip export samples/dmc3_humanoid.mod -o humanoid.gltf\n  \
rigtrip export --block-at 0x35 --nodes 8 samples/dmc3_effect.efm -o effect.glb"
    )]
    Export(ExportArgs),
    /// Rebuild the native file from a glTF rigtrip exported, possibly edited (e.g. in Blender).
    #[command(
        after_help = "Every byte an edit does not touch comes back exactly. Joints are matched by the \
identity rigtrip stored in their extras (then by name); values within --tolerance of what export \
wrote get their original bits back (DCC tools add float noise). Moved and rotated joints, \
renames, reparenting, added leaf joints and unreferenced removals are written; anything the \
native format cannot hold is refused, naming the joint and field. In Blender, export with \
\"Include > Custom Properties\" on, or the rig cannot be rebuilt.\n\n\
Examples:\n  rigtrip import edited.glb -o DB22HIE.BIN\n  \
rigtrip import edited.gltf -o humanoid.mod --json > report.json\n  \
rigtrip import edited.glb -o humanoid.mod --tolerance 1e-3 --force"
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
    /// Write the whole native structure as diffable JSON (lossless: `build` gives the file back).
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
Examples:\n  rigtrip gait samples/mech.glb\n  \
rigtrip gait samples/mech.glb --intended --json\n  \
rigtrip gait samples/mech.glb --demand 0:0,2:12,6:40,10:0,12:-10 -o preview.glb"
    )]
    Gait(GaitArgs),
}

#[derive(Args, Debug)]
struct FormatArgs {
    /// Read files as this format instead of detecting it from their content.
    #[arg(long, value_enum)]
    format: Option<FormatName>,
    /// Decode a DMC3 node-domain block at this byte offset (decimal or 0x-hex) of any file.
    #[arg(long, value_name = "OFFSET", value_parser = parse_offset, requires = "nodes")]
    block_at: Option<u64>,
    /// Node count of the block given by --block-at.
    #[arg(long, value_name = "N", requires = "block_at")]
    nodes: Option<usize>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatName {
    /// PlayStation DBnnHIE.BIN hierarchy table.
    Hie,
    /// DMC3 .mod/.scm container.
    Dmc3,
}

impl FormatArgs {
    fn format(&self) -> Option<Format> {
        if let (Some(offset), Some(nodes)) = (self.block_at, self.nodes) {
            return Some(Format::Block { offset, nodes });
        }
        self.format.map(|f| match f {
            FormatName::Hie => Format::Hie,
            FormatName::Dmc3 => Format::Dmc3,
        })
    }
}

fn parse_offset(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|e| format!("not an offset (decimal or 0x-hex): {e}"))
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
struct ExportArgs {
    /// The rig file to export.
    file: PathBuf,
    /// Output path; `.glb` (binary) or `.gltf` (JSON with the buffer embedded).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    #[command(flatten)]
    format: FormatArgs,
    /// Joint names as JSON: `{"1": ["hips", ...]}` per HIE slot, or a plain list for DMC3.
    #[arg(long, value_name = "NAMES.json")]
    names: Option<PathBuf>,
    /// Metres per native unit (default: DMC3 0.01, HIE 0.001).
    #[arg(long, value_name = "S")]
    scale: Option<f64>,
    /// Motion files (DMC3 .mot) or archives (.pac) to add as animations, one per motion, named
    /// after the file (`walk.mot` -> `walk`) or the archive and slot (`pl000.pac` slot 3 ->
    /// `pl000_03`).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    motions: Vec<PathBuf>,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
    /// Print the export report as JSON.
    #[arg(long)]
    json: bool,
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
    #[arg(long, value_name = "T")]
    tolerance: Option<f64>,
    /// Keep the original vertex streams even if the glTF's geometry was edited.
    #[arg(long)]
    ignore_mesh_edits: bool,
    /// Write the motion files the glTF carries (from `export --motions`) into this folder, under
    /// their original names, rebuilt from its animations.
    #[arg(long, value_name = "DIR")]
    motions_out: Option<PathBuf>,
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
    /// Print the findings as JSON (an object for one file, an array for several).
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
    /// through the real GLB serializer and importer, in memory.
    #[arg(long, value_enum, default_value = "both")]
    legs: LegsArg,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LegsArg {
    /// native -> rig -> native.
    Native,
    /// Also native -> glTF -> native.
    Both,
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
        Err(e) => {
            eprintln!("rigtrip: error: {e:#}");
            EXIT_BAD_INPUT
        }
    }
}

fn dispatch(cli: &Cli) -> Result<i32> {
    match &cli.command {
        Command::Inspect(a) => inspect(a),
        Command::Verify(a) => verify_cmd(cli, a),
        Command::Export(a) => export_cmd(cli, a),
        Command::Gait(a) => gait_cmd(a),
        Command::Import(a) => import_cmd(cli, a),
        Command::Lint(a) => lint_cmd(cli, a),
        Command::Dump(a) => dump_cmd(a),
        Command::Build(a) => build_cmd(cli, a),
    }
}

fn inspect(a: &InspectArgs) -> Result<i32> {
    let data =
        std::fs::read(&a.file).with_context(|| format!("cannot read {}", a.file.display()))?;
    if a.format.format().is_none() {
        if let Some(m) = MotionFile::detect_read(&data) {
            let file = m.with_context(|| format!("{}", a.file.display()))?;
            let mut out = std::io::stdout().lock();
            if a.coverage {
                let c = ops::coverage::motion_coverage(&file, &data);
                if a.json {
                    serde_json::to_writer_pretty(&mut out, &c)?;
                    writeln!(out)?;
                } else {
                    write!(out, "{}", ops::coverage::render_text(&c))?;
                }
            } else {
                let r = ops::motion::report(&file, data.len());
                if a.json {
                    serde_json::to_writer_pretty(&mut out, &r)?;
                    writeln!(out)?;
                } else {
                    write!(out, "{}", ops::motion::render_text(&r))?;
                }
            }
            return Ok(0);
        }
    }
    let file = NativeFile::read(a.format.format(), &data)
        .with_context(|| format!("{}", a.file.display()))?;
    let mut out = std::io::stdout().lock();
    if a.coverage {
        let c = ops::coverage::coverage(&file, &data);
        if a.json {
            serde_json::to_writer_pretty(&mut out, &c)?;
            writeln!(out)?;
        } else {
            write!(out, "{}", ops::coverage::render_text(&c))?;
        }
        return Ok(0);
    }
    let kind = file.kind();
    let rig = rigtrip::rig::lift(file);
    let report = ops::inspect::report(kind, data.len(), &rig);
    if a.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", ops::inspect::render_text(&report))?;
    }
    Ok(0)
}

fn export_cmd(cli: &Cli, a: &ExportArgs) -> Result<i32> {
    let ext = a
        .output
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if ext != "glb" && ext != "gltf" {
        bail!(
            "{}: the output must end in .glb or .gltf",
            a.output.display()
        );
    }
    let data =
        std::fs::read(&a.file).with_context(|| format!("cannot read {}", a.file.display()))?;
    let rig =
        ops::load(a.format.format(), &data).with_context(|| format!("{}", a.file.display()))?;
    let names = match &a.names {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            Some(
                rigtrip::gltf::Names::from_json(&text)
                    .with_context(|| format!("{}", p.display()))?,
            )
        }
        None => None,
    };
    let opts = rigtrip::gltf::ExportOptions {
        scale: a.scale,
        names,
    };
    let mut motions = Vec::with_capacity(a.motions.len());
    for p in &a.motions {
        let bytes = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?;
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        motions.push(
            rigtrip::gltf::MotionInput::read(&name, bytes)
                .with_context(|| format!("{}", p.display()))?,
        );
    }
    let exported = rigtrip::gltf::export_animated(&rig, &motions, &opts)
        .with_context(|| format!("{}", a.file.display()))?;
    let bytes = if ext == "glb" {
        rigtrip::gltf::to_glb(&exported)
    } else {
        rigtrip::gltf::to_gltf(&exported)
    }
    .with_context(|| format!("{}", a.file.display()))?;
    ops::output::write_atomic(&a.output, &bytes, a.force, Some(&a.file))?;
    let r = &exported.report;
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, r)?;
        writeln!(out)?;
    } else if !cli.quiet {
        let joints: usize = r.skins.iter().map(|s| s.joints).sum();
        let meshes = r
            .meshes
            .iter()
            .filter(|m| !m.proxy && m.gltf_mesh.is_some())
            .count();
        let proxies = r
            .meshes
            .iter()
            .filter(|m| m.proxy && m.gltf_mesh.is_some())
            .count();
        writeln!(
            out,
            "wrote {}: {} skin(s), {joints} joint(s), {meshes} mesh(es), {proxies} proxy mesh(es), scale {}",
            a.output.display(),
            r.skins.len(),
            r.space.scale
        )?;
        for an in &r.animations {
            writeln!(
                out,
                "animation {}: {} track(s) as {} channel(s), frames 0..{}",
                an.name, an.tracks, an.channels, an.last_frame
            )?;
        }
        let notes = [
            (
                r.zero_weight_vertices.len(),
                "vertices with zero weight sum bound to their first joint",
            ),
            (
                r.merged_joints.len(),
                "vertices naming a joint twice (weights added)",
            ),
            (
                r.dropped_weights.len(),
                "negative or non-finite weights taken as zero",
            ),
            (r.fixed_normals.len(), "zero or non-finite normals replaced"),
            (r.clamped_colors.len(), "colours clamped to 0..1"),
            (r.renamed.len(), "names changed (63-byte limit, duplicates)"),
        ];
        for (n, what) in notes {
            if n > 0 {
                writeln!(
                    out,
                    "note: {n} {what} (glTF only; native bytes untouched; --json lists them)"
                )?;
            }
        }
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
    if a.output.exists() && !a.force {
        return Err(ops::output::OutputError::Exists(a.output.clone()).into());
    }
    if let Some(dir) = &a.motions_out {
        if !dir.is_dir() {
            bail!("--motions-out {}: not a folder", dir.display());
        }
    }
    let opts = import::ImportOptions {
        tolerance: a.tolerance,
        ignore_mesh_edits: a.ignore_mesh_edits,
    };
    let data =
        std::fs::read(&a.file).with_context(|| format!("cannot read {}", a.file.display()))?;
    // Buffers a .gltf names by URI sit beside it (`.` for a bare file name, as messages say).
    let base = match a.file.parent() {
        Some(p) if p.as_os_str().is_empty() => Some(std::path::Path::new(".")),
        p => p,
    };
    let imported = import::import_slice(&data, base, &opts)
        .with_context(|| format!("{}", a.file.display()))?;
    let mut motion_paths = Vec::new();
    if let Some(dir) = &a.motions_out {
        for m in &imported.motions {
            let path = dir.join(&m.file);
            if path.exists() && !a.force {
                return Err(ops::output::OutputError::Exists(path).into());
            }
            if let Some(bytes) = &m.bytes {
                motion_paths.push((path, bytes));
            }
        }
    }
    ops::output::write_atomic(&a.output, &imported.bytes, a.force, Some(&a.file))?;
    for (path, bytes) in &motion_paths {
        ops::output::write_atomic(path, bytes, a.force, Some(&a.file))?;
    }
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &imported.report)?;
        writeln!(out)?;
    } else if !cli.quiet {
        write!(out, "{}", imported.report.render_text())?;
        writeln!(
            out,
            "wrote {} ({} bytes)",
            a.output.display(),
            imported.bytes.len()
        )?;
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

fn dump_cmd(a: &DumpArgs) -> Result<i32> {
    let data =
        std::fs::read(&a.file).with_context(|| format!("cannot read {}", a.file.display()))?;
    let motion = match a.format.format() {
        None => MotionFile::detect_read(&data),
        Some(_) => None,
    };
    let value = match motion {
        Some(m) => {
            let file = m.with_context(|| format!("{}", a.file.display()))?;
            ops::dump::dump_motion(&file)
        }
        None => {
            let format = a.format.format().or_else(|| rigtrip::native::detect(&data));
            let file =
                NativeFile::read(format, &data).with_context(|| format!("{}", a.file.display()))?;
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
        Some(p) => ops::output::write_atomic(p, text.as_bytes(), a.force, Some(&a.file))?,
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
        writeln!(out, "{}", rigtrip::lint::render_json(&reports))?;
    } else {
        for r in &reports {
            if cli.quiet && !r.has_errors() && !r.has_warnings() {
                continue;
            }
            write!(out, "{}", r.render_text())?;
        }
    }
    Ok(if reports.iter().any(|r| r.not_gltf()) {
        2
    } else if reports.iter().any(|r| r.has_errors()) {
        1
    } else {
        0
    })
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
    let base = a.file.parent();
    let report =
        gait::analyse_slice(&data, base, &opts).with_context(|| format!("{}", a.file.display()))?;
    if let Some(out_path) = &a.output {
        let glb = gait::preview_glb(&data, base, &report)?;
        ops::output::write_atomic(out_path, &glb, a.force, Some(&a.file))?;
    }
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", report.render_text())?;
        if let Some(p) = &a.output {
            writeln!(out, "wrote {}", p.display())?;
        }
    }
    Ok(0)
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
    };
    let mut summary = verify::Summary::default();
    let mut results = Vec::new();
    // Lines are buffered and written once per chunk (stdout alone would write each line).
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let progress = progress_bar(files.len() as u64);
    let show_progress = !progress.is_hidden();
    // Files are checked in parallel a chunk at a time and printed in order after each chunk:
    // output streams, and memory stays flat however many files there are.
    for chunk in files.chunks(VERIFY_CHUNK) {
        let chunk_results: Vec<verify::FileResult> = chunk
            .par_iter()
            .map(|f| {
                let r = verify::verify_candidate(format, f, legs);
                if show_progress {
                    progress.inc(1);
                }
                r
            })
            .collect();
        for r in chunk_results {
            summary.add(&r.verdict);
            if a.json {
                if !matches!(r.verdict, verify::Verdict::Skipped) {
                    results.push(r);
                }
            } else {
                print_line(&mut out, cli, &r)?;
            }
        }
        // The bar is cleared while the chunk's lines go out, then drawn again.
        progress.suspend(|| out.flush())?;
    }
    progress.finish_and_clear();
    if a.json {
        let doc = serde_json::json!({ "files": results, "summary": summary });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        write!(
            out,
            "{} identical, {} differ, {} rejected",
            summary.identical, summary.differ, summary.rejected
        )?;
        if summary.skipped > 0 {
            write!(out, ", {} skipped (not rig files)", summary.skipped)?;
        }
        writeln!(out)?;
    }
    out.flush()?;
    Ok(summary.exit_code())
}

/// Files verified in parallel before their lines are printed.
const VERIFY_CHUNK: usize = 256;

/// A progress bar on stderr when it is a terminal; a hidden one otherwise (nothing is drawn
/// into pipes or logs).
fn progress_bar(len: u64) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {per_sec} eta {eta}")
    {
        bar.set_style(style);
    }
    bar
}

fn print_line(out: &mut impl Write, cli: &Cli, r: &verify::FileResult) -> Result<()> {
    let p = r.path.display();
    match &r.verdict {
        verify::Verdict::Identical { kind, gate, gltf } => {
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
