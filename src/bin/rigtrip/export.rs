//! `rigtrip export`: one rig file to a glTF (with its motions, textures, names and the other
//! models of an archive), or many to a folder in parallel, with the report of each.

use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

use rigtrip::native::{Format, NativeFile};
use rigtrip::ops::output::{json_doc, Files, Head};
use rigtrip::ops::{self, verify};
use rigtrip::rgba::AlphaContent;
use rigtrip::units;

use crate::shared::{
    in_chunks, names_beside, not_a_rig, ok_head, read_names, skipped_note, FormatArgs, Verbosity,
    EXIT_BAD_INPUT,
};

#[derive(Args, Debug)]
pub(crate) struct ExportArgs {
    /// Rig files or folders (recursed, as by verify).
    #[arg(required = true)]
    pub(crate) inputs: Vec<PathBuf>,
    /// For one file: the `.glb` (binary) or `.gltf` (JSON with the buffer embedded) to write;
    /// for several files or a folder: the folder to write one `.glb` per rig file into.
    #[arg(short, long, value_name = "OUT")]
    pub(crate) output: PathBuf,
    #[command(flatten)]
    pub(crate) format: FormatArgs,
    /// Joint names as JSON: `{"1": ["hips", ...]}` per HIE slot, or a plain list for DMC3
    /// (default: FILE's stem + `.names.json` beside FILE, as `import` writes it, if present).
    #[arg(long, value_name = "NAMES.json")]
    pub(crate) names: Option<PathBuf>,
    /// Metres per native unit (default: DMC3 0.01, HIE 0.001); must be > 0.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub(crate) scale: Option<f64>,
    /// A motion file (DMC3 .mot) or archive (.pac), or a folder (every .mot and .pac directly in
    /// it), whose motions become animations, one per motion, named after the file (`walk.mot`
    /// -> `walk`) or the archive and slot (`pl000.pac` slot 3 -> `pl000_03`). One path per
    /// --motions; repeat it for more (`--motions a.pac --motions walk.mot`). A motion that
    /// cannot go on the model is named and carried as it is; one whose translations show
    /// another skeleton is warned about, joint by joint.
    #[arg(long, value_name = "FILE|DIR")]
    pub(crate) motions: Vec<PathBuf>,
    /// The model's textures: a PTX bundle (.ptx) or a single gfxTexture entry (.tm2). Each
    /// becomes a PNG image (decoded from DXT1/DXT5, alpha kept, the native bytes inside it), shown
    /// by the material of its index (`texture_N`). An archive (.pac) brings its own.
    #[arg(long, value_name = "FILE.ptx")]
    pub(crate) textures: Option<PathBuf>,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    pub(crate) force: bool,
    /// Print the export report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn export_cmd(v: Verbosity, a: &ExportArgs) -> Result<i32> {
    let to_folder = a.inputs.len() > 1
        || a.inputs.iter().any(|p| p.is_dir())
        || (a.output.is_dir() && gltf_ext(&a.output).is_none());
    if to_folder {
        return export_many(v, a);
    }
    let input = &a.inputs[0];
    let ext = gltf_ext(&a.output).with_context(|| {
        format!(
            "{}: the output must end in .glb or .gltf (or be a folder)",
            a.output.display()
        )
    })?;
    // Without --names, the names file beside the input (what `import` writes) when there is one.
    let names_file = a.names.clone().or_else(|| names_beside(input));
    let names = names_file.as_deref().map(read_names).transpose()?;
    let motions = read_motions(&a.motions)?;
    let textures = a.textures.as_deref().map(read_textures).transpose()?;
    ops::output::check_target(&a.output, a.force, Some(input))?;
    let data = std::fs::read(input).with_context(|| format!("cannot read {}", input.display()))?;
    let done = export_one(
        a,
        input,
        &data,
        a.format.format(),
        &a.output,
        ext,
        names,
        &motions,
        textures,
    )?;
    let r = &done.report;
    for m in &r.names_missing {
        eprintln!(
            "rigtrip: warning: the names file gives {} name(s) for skeleton {}, which has {} joints; the others keep generated names",
            m.given, m.skeleton, m.joints
        );
    }
    let mut out = std::io::stdout().lock();
    if a.json {
        let head = Head {
            format: Some(done.kind.into()),
            output: Some(a.output.display().to_string()),
            bytes: Some(done.bytes),
            ..ok_head(input)
        };
        write!(out, "{}", json_doc(&head, r))?;
    } else if !v.quiet {
        print_exported(&mut out, a, &done, names_file.as_deref())?;
    }
    Ok(0)
}

/// The text summary of an export of one file: what was written, the joint names' file, the
/// animations, motions, textures, and notes on what the glTF holds differently.
fn print_exported(
    out: &mut impl Write,
    a: &ExportArgs,
    done: &Exported,
    names_file: Option<&Path>,
) -> Result<()> {
    let r = &done.report;
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
        "wrote {} ({} bytes): {} skin(s), {joints} joint(s), {meshes} mesh(es), {proxies} proxy mesh(es), scale {} m per unit",
        a.output.display(),
        done.bytes,
        r.skins.len(),
        units::value(r.space.scale)
    )?;
    if let Some(p) = names_file {
        writeln!(out, "joint names from {}", p.display())?;
    }
    for an in &r.animations {
        writeln!(
            out,
            "animation {}: {} track(s) as {} channel(s), frames 0..{}",
            an.name, an.tracks, an.channels, an.last_frame
        )?;
    }
    print_motion_fit(out, r)?;
    print_textures(out, r)?;
    for p in &r.parts {
        let mine = |x: &Option<String>| x.as_deref() == Some(p.as_str());
        let meshes = r
            .meshes
            .iter()
            .filter(|m| mine(&m.part) && !m.proxy)
            .count();
        let on = match r.skins.iter().find(|s| mine(&s.part)) {
            Some(s) => format!("on a skin of its own ({} joints)", s.joints),
            None => "on the body's joints (its skeleton is the body's)".into(),
        };
        writeln!(out, "model {p}: {meshes} mesh(es) named {p}/..., {on}")?;
    }
    for m in &r.carried_models {
        writeln!(out, "note: {m}")?;
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
    Ok(())
}

/// The textures of `--textures` (a .ptx bundle or a .tm2 entry).
fn read_textures(p: &Path) -> Result<Vec<rigtrip::native::dmc3::texture::Texture>> {
    let bytes = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?;
    ops::character::loose_textures(&bytes).with_context(|| format!("--textures {}", p.display()))
}

/// One line per texture the export wrote as an image.
fn print_textures(out: &mut impl Write, r: &rigtrip::gltf::ExportReport) -> Result<()> {
    for t in &r.textures {
        let alpha = match t.alpha {
            AlphaContent::Opaque => "opaque",
            AlphaContent::Binary => "alpha 0 or 255 (MASK)",
            AlphaContent::Graded => "graded alpha (BLEND)",
        };
        let shown = match &t.material {
            Some(m) => format!("material {m}"),
            None => "no mesh uses it".into(),
        };
        writeln!(
            out,
            "texture {}: image {} ({}x{}, PNG {} bytes), {alpha}, {shown}",
            t.index, t.image, t.width, t.height, t.png_bytes
        )?;
    }
    Ok(())
}

/// Reads the motion files `--motions` names (see [`motion_files`]).
fn read_motions(paths: &[PathBuf]) -> Result<Vec<rigtrip::gltf::MotionInput>> {
    let paths = motion_files(paths)?;
    let mut motions = Vec::with_capacity(paths.len());
    for p in &paths {
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
    Ok(motions)
}

/// The motion files `--motions` names: each path a file, or a folder standing for every `.mot`
/// and `.pac` directly in it (sorted); each file once.
fn motion_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = Vec::with_capacity(paths.len());
    for p in paths {
        if !p.is_dir() {
            if !out.contains(p) {
                out.push(p.clone());
            }
            continue;
        }
        let mut inside = Vec::new();
        for e in std::fs::read_dir(p).with_context(|| format!("cannot list {}", p.display()))? {
            let path = e
                .with_context(|| format!("cannot list {}", p.display()))?
                .path();
            let ext = path
                .extension()
                .map(|x| x.to_string_lossy().to_ascii_lowercase());
            if matches!(ext.as_deref(), Some("mot" | "pac")) && path.is_file() {
                inside.push(path);
            }
        }
        if inside.is_empty() {
            bail!(
                "--motions {}: no .mot or .pac file in the folder",
                p.display()
            );
        }
        inside.sort();
        for f in inside {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    Ok(out)
}

/// The motions an export carried without an animation, and the warnings about motions made
/// for another skeleton, as text.
fn print_motion_fit(out: &mut impl Write, r: &rigtrip::gltf::ExportReport) -> Result<()> {
    let slot = |slots: &[usize]| match slots.first() {
        Some(s) => format!(" slot {s}"),
        None => String::new(),
    };
    for c in &r.carried_motions {
        writeln!(
            out,
            "motion {} ({}{}): not on this model: {}; carried as it is (import --motions-out writes it back)",
            c.name,
            c.file,
            slot(&c.slots),
            c.reason
        )?;
    }
    let length = |x: f64| units::length(x * r.space.scale);
    for m in &r.motion_misfits {
        writeln!(
            out,
            "warning: motion {} ({}{}) looks made for another skeleton: {} joint(s) do not fit",
            m.name,
            m.file,
            slot(&m.slots),
            m.joints.len()
        )?;
        for j in &m.joints {
            let what = if j.misfit.root {
                "root height"
            } else {
                "bone length"
            };
            // A joint at its parent's place has no length to compare by.
            let ratio = match j.misfit.rest {
                r if r != 0.0 => format!(
                    " (x{})",
                    units::value((j.misfit.ratio() * 100.0).round() / 100.0)
                ),
                _ => String::new(),
            };
            writeln!(
                out,
                "  joint {} {} ({what}): {} in the motion, {} at rest{ratio}",
                j.misfit.joint,
                j.name,
                length(j.misfit.motion),
                length(j.misfit.rest)
            )?;
        }
    }
    Ok(())
}

/// `glb` or `gltf`, from an output path's extension.
fn gltf_ext(path: &Path) -> Option<&'static str> {
    match path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .as_deref()
    {
        Some("glb") => Some("glb"),
        Some("gltf") => Some("gltf"),
        _ => None,
    }
}

/// What one export wrote.
struct Exported {
    /// The input's kind (`hie`, `mod`, `scm`, `block`, `pac`).
    kind: &'static str,
    /// Bytes written.
    bytes: usize,
    /// The export report.
    report: rigtrip::gltf::ExportReport,
}

/// Reads `data` (from `input`), exports it and writes `out` (`ext` `glb` or `gltf`).
// The names and motions go only with a single input; the rest is what every input needs.
#[allow(clippy::too_many_arguments)]
fn export_one(
    a: &ExportArgs,
    input: &Path,
    data: &[u8],
    format: Option<Format>,
    out: &Path,
    ext: &str,
    names: Option<rigtrip::gltf::Names>,
    motions: &[rigtrip::gltf::MotionInput],
    textures: Option<Vec<rigtrip::native::dmc3::texture::Texture>>,
) -> Result<Exported> {
    let (file, textures, tag, kind) = match archive_parts(input, data, format)? {
        Some(_) if textures.is_some() => bail!(
            "{}: --textures is for a loose model; an archive brings its own (its PTX member), and import rebuilds that member from them",
            input.display()
        ),
        Some((file, t, tag)) => (file, t, Some(tag), "pac"),
        None => {
            let file = NativeFile::read(format, data)
                .map_err(|e| e.named(input))
                .with_context(|| format!("{}", input.display()))?;
            let kind = file.kind();
            (file, textures, None, kind)
        }
    };
    let (images, failed) = ops::character::images(textures.as_deref().unwrap_or_default());
    for e in failed {
        eprintln!(
            "rigtrip: warning: {}: {e}; its material has no image",
            input.display()
        );
    }
    let rig = rigtrip::rig::lift(file);
    let opts = rigtrip::gltf::ExportOptions {
        scale: a.scale,
        names,
    };
    let archive = tag.as_ref().map(|(t, p)| (t, &p[..]));
    let exported = rigtrip::gltf::export_textured(&rig, motions, &images, archive, &opts)
        .with_context(|| format!("{}", input.display()))?;
    let bytes = if ext == "glb" {
        rigtrip::gltf::to_glb(&exported)
    } else {
        rigtrip::gltf::to_gltf(&exported)
    }
    .with_context(|| format!("{}", input.display()))?;
    ops::output::write_atomic(out, &bytes, a.force, Some(input))?;
    Ok(Exported {
        kind,
        bytes: bytes.len(),
        report: exported.report,
    })
}

/// A character archive's body model, textures and what the glTF must carry to rebuild it;
/// `None` for any other file. Refuses a motion or texture file with what to do instead (unless
/// `format` forces a reading).
type Parts = (
    NativeFile,
    Option<Vec<rigtrip::native::dmc3::texture::Texture>>,
    (rigtrip::rig::archive::ArchiveTag, Vec<rigtrip::gltf::Part>),
);
fn archive_parts(input: &Path, data: &[u8], format: Option<Format>) -> Result<Option<Parts>> {
    if format.is_some() {
        return Ok(None);
    }
    let Some(m) = rigtrip::native::detect_motion_named(input, data) else {
        return Ok(None);
    };
    let pac = match m {
        rigtrip::native::MotionFormat::Pac => rigtrip::native::dmc3::Pac::read(data).ok(),
        _ => None,
    };
    let Some((pac, c)) = pac
        .as_ref()
        .and_then(|p| ops::character::character(p).map(|c| (p, c)))
    else {
        bail!("{}", not_a_rig(input, m, data));
    };
    let tag = c
        .archive(pac)
        .with_context(|| format!("{}", input.display()))?;
    let textures = c.textures.map(|(_, p)| p.textures.clone());
    Ok(Some((NativeFile::Dmc3(c.model.clone()), textures, tag)))
}

/// One file's line in `export` to a folder.
#[derive(serde::Serialize)]
struct ExportLine {
    path: PathBuf,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
}

/// Counts of an `export` to a folder.
#[derive(serde::Serialize, Default)]
struct ExportSummary {
    exported: usize,
    rejected: usize,
    skipped: usize,
}

impl ExportSummary {
    /// Counts a file's line by its status.
    fn count(&mut self, status: &str) {
        match status {
            "exported" => self.exported += 1,
            "skipped" => self.skipped += 1,
            _ => self.rejected += 1,
        }
    }
}

/// `export` of several files or folders into the folder `-o DIR`, as `verify` walks them.
fn export_many(v: Verbosity, a: &ExportArgs) -> Result<i32> {
    check_folder_export(a)?;
    let jobs = export_jobs(a)?;
    if jobs.is_empty() {
        bail!("no files found under the given paths");
    }
    std::fs::create_dir_all(&a.output)
        .with_context(|| format!("cannot create {}", a.output.display()))?;
    let format = a.format.format();
    let mut summary = ExportSummary::default();
    let mut lines = Vec::new();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    in_chunks(
        &jobs,
        |(c, target)| export_job(a, format, c, target),
        |line, out| {
            summary.count(line.status);
            if a.json {
                if line.status != "skipped" {
                    lines.push(line);
                }
                return Ok(());
            }
            print_export_line(out, v, &line)
        },
        &mut out,
    )?;
    let code = if summary.rejected > 0 {
        EXIT_BAD_INPUT
    } else {
        0
    };
    if a.json {
        let head = Head {
            output: Some(a.output.display().to_string()),
            ..Head::exit(code)
        };
        let body = Files {
            files: &lines,
            summary: Some(&summary),
        };
        write!(out, "{}", json_doc(&head, &body))?;
    } else {
        write!(
            out,
            "{} exported, {} rejected",
            summary.exported, summary.rejected
        )?;
        if summary.skipped > 0 {
            write!(out, ", {}", skipped_note(v.verbose, summary.skipped))?;
        }
        writeln!(out)?;
    }
    out.flush()?;
    Ok(code)
}

/// Refuses what an export to a folder cannot take: one file's names or motions, an output
/// that is a glTF file.
fn check_folder_export(a: &ExportArgs) -> Result<()> {
    if a.names.is_some() {
        bail!("--names gives one file's joint names: export that file alone to use it");
    }
    if !a.motions.is_empty() {
        bail!("--motions go with one model: export that model alone to add them");
    }
    if gltf_ext(&a.output).is_some() {
        match a.inputs.iter().find(|p| p.is_dir()) {
            Some(folder) => bail!(
                "{} is a folder: its rig files are exported into a folder (-o DIR), not into {}",
                folder.display(),
                a.output.display()
            ),
            None => bail!(
                "{}: several inputs are exported into a folder (-o DIR), not into one file",
                a.output.display()
            ),
        }
    }
    Ok(())
}

/// Each file under the inputs (once) with the name its output gets under `-o DIR`: its path
/// below the folder given, `.glb` appended.
fn export_jobs(a: &ExportArgs) -> Result<Vec<(verify::Candidate, PathBuf)>> {
    let mut jobs = Vec::new();
    for root in &a.inputs {
        let found = verify::collect_files(std::slice::from_ref(root))
            .with_context(|| format!("cannot list {}", root.display()))?;
        for c in found {
            let rel = match c.path.strip_prefix(root) {
                Ok(r) if !r.as_os_str().is_empty() => r.to_path_buf(),
                _ => PathBuf::from(c.path.file_name().unwrap_or(c.path.as_os_str())),
            };
            let mut name = rel.into_os_string();
            name.push(".glb");
            jobs.push((c, a.output.join(name)));
        }
    }
    Ok(verify::first_of_each_file(jobs, |(c, _)| &c.path))
}

/// Exports file `c` to `target` (with the names file beside it, when there is one); skipped
/// when, found in a folder without `--format`, it is no rig file.
fn export_job(
    a: &ExportArgs,
    format: Option<Format>,
    c: &verify::Candidate,
    target: &Path,
) -> ExportLine {
    let data = match std::fs::read(&c.path) {
        Ok(d) => d,
        Err(e) => return rejected(c, format!("cannot read: {e}")),
    };
    let detected = format.or_else(|| rigtrip::native::detect(&data));
    // Motions found in a folder are no rigs: they go with a model (`--motions`).
    let motion = format.is_none() && rigtrip::native::detect_motion(&data).is_some();
    if format.is_none()
        && !c.named
        && (motion || (detected.is_none() && !verify::named_like_rig(&c.path)))
    {
        return ExportLine {
            status: "skipped",
            ..rejected(c, String::new())
        };
    }
    let made = target
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .with_context(|| format!("cannot create the folder of {}", target.display()));
    // Each file's joint names from the names file beside it, when there is one.
    let names = match names_beside(&c.path).as_deref().map(read_names).transpose() {
        Ok(n) => n,
        Err(e) => return rejected(c, format!("{e:#}")),
    };
    match made
        .and_then(|()| export_one(a, &c.path, &data, detected, target, "glb", names, &[], None))
    {
        Ok(done) => ExportLine {
            path: c.path.clone(),
            status: "exported",
            format: Some(done.kind),
            output: Some(target.to_path_buf()),
            bytes: Some(done.bytes),
            message: None,
        },
        Err(e) => {
            // The line names the file already; the chain's first clause names it too.
            let message = format!("{e:#}");
            let prefix = format!("{}: ", c.path.display());
            let message = message
                .strip_prefix(&prefix)
                .unwrap_or(&message)
                .to_string();
            rejected(c, message)
        }
    }
}

/// One file's text line of an export to a folder: exported ones unless `--quiet`, skipped
/// ones with `--verbose`, rejected ones always.
fn print_export_line(out: &mut impl Write, v: Verbosity, line: &ExportLine) -> Result<()> {
    let p = line.path.display();
    match line.status {
        "exported" => {
            if !v.quiet {
                writeln!(
                    out,
                    "exported   {:<5} {p} -> {} ({} bytes)",
                    line.format.unwrap_or("-"),
                    line.output.as_deref().unwrap_or(Path::new("")).display(),
                    line.bytes.unwrap_or(0)
                )?;
            }
        }
        "skipped" => {
            if v.verbose {
                writeln!(out, "skipped    {:<5} {p}: not a rig file", "-")?;
            }
        }
        _ => writeln!(
            out,
            "rejected   {:<5} {p}: {}",
            "-",
            line.message.as_deref().unwrap_or("")
        )?,
    }
    Ok(())
}

/// A rejected file's line.
fn rejected(c: &verify::Candidate, message: String) -> ExportLine {
    ExportLine {
        path: c.path.clone(),
        status: "rejected",
        format: None,
        output: None,
        bytes: None,
        message: Some(message),
    }
}
