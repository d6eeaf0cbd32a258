//! `rigtrip check`: the game's loader model over files, folders and archives, one line per
//! finding and a line per file; and the same check on what `import` is about to write.

use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

use rigtrip::ops::check::{self, CheckOptions, FileCheck, Status, Summary};
use rigtrip::ops::output::{json_doc, Files, Head};
use rigtrip::ops::verify;

use crate::shared::{in_chunks, Verbosity};

#[derive(Args, Debug)]
pub(crate) struct CheckArgs {
    /// Files or folders (recursed, as by verify): models (.mod, .scm), archives (.pac),
    /// motions (.mot), textures (.ptx, .tm2), shadows and cloth.
    #[arg(required = true)]
    pub(crate) paths: Vec<PathBuf>,
    /// The model the motions and shadows play on (a .mod, or a .pac with a body model): their
    /// node counts must be its. An archive with a body model uses its own.
    #[arg(long, value_name = "FILE")]
    pub(crate) model: Option<PathBuf>,
    /// The PTX bundle loose models are drawn with: their texture slots must be below its
    /// count. An archive uses its own.
    #[arg(long, value_name = "FILE.ptx")]
    pub(crate) textures: Option<PathBuf>,
    /// Print the results as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The `after_help` of `check`.
pub(crate) const CHECK_HELP: &str = "Runs what the game's loader does with each file, as \
docs/formats.md describes the HD PC executable: every offset it relocates inside its member, \
the index workspaces it writes into (align16(6*(vertices-2)) bytes at mesh record + the \
relative +0x40, over nothing else), object vertex sums, 5-bit weights summing to 31, bone \
lanes below 4*N, texture slots below the PTX's count; at most 64 textures per PTX, the five \
descriptor fields its loader reads, DirectXTK's DDS limits; at most 32,767 keys per motion \
track and the model's node count; in a player archive (plNNN.pac, or an archive with a body in \
slot 1) a coat of at most 39 nodes, a body of at most 96, shadows on their model's node count \
and slot 14 in Dante's costume archives.\n\n\
Each finding is one line: stops (the game would crash, write outside the file or read \
garbage) or note (it loads, unlike every retail file), the place (slot, object, mesh), the \
field, what the game does, and the evidence class. What could not be judged (a format whose \
loader is not known, such as DBnnHIE.BIN or EFM; a rule that needs a model or PTX not given) \
is said so and passes.\n\n\
Exit 0 when nothing would stop the game, 1 when something would, 2 when a file cannot be \
read.\n\n\
Examples:\n  rigtrip check samples/\n  rigtrip check pl000.pac\n  \
rigtrip check --model pl000.mod motions/pl000_00_3.pac\n  \
rigtrip check --textures pl000.ptx pl000.mod\n  rigtrip check --json -q mods/ > findings.json";

pub(crate) fn check_cmd(v: Verbosity, a: &CheckArgs) -> Result<i32> {
    let opts = options(a)?;
    let files = verify::collect_files(&a.paths).context("cannot list the given paths")?;
    if files.is_empty() {
        bail!("no files found under the given paths");
    }
    let mut summary = Summary::default();
    let mut results = Vec::new();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    in_chunks(
        &files,
        |f| check::check_candidate(f, &opts),
        |r, out| {
            summary.add(&r);
            if a.json {
                if r.status != Status::Skipped {
                    results.push(r);
                }
                Ok(())
            } else {
                print_file(out, v, &r)
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
        print_summary(&mut out, v, &summary)?;
    }
    out.flush()?;
    Ok(summary.exit_code())
}

/// `--model` and `--textures`, read.
fn options(a: &CheckArgs) -> Result<CheckOptions> {
    let read =
        |p: &PathBuf| std::fs::read(p).with_context(|| format!("cannot read {}", p.display()));
    let model_nodes = match &a.model {
        None => None,
        Some(p) => Some(check::model_nodes_of(&read(p)?).with_context(|| {
            format!(
                "--model {}: neither a MOD/SCM nor an archive with a model",
                p.display()
            )
        })?),
    };
    let textures = match &a.textures {
        None => None,
        Some(p) => Some(
            check::textures_of(&read(p)?)
                .with_context(|| format!("--textures {}: not a PTX bundle", p.display()))?,
        ),
    };
    Ok(CheckOptions {
        model_nodes,
        textures,
    })
}

/// One file's lines: `STATUS FORMAT PATH: counts`, then its findings and what was not judged.
fn print_file(out: &mut impl Write, v: Verbosity, r: &FileCheck) -> Result<()> {
    let p = r.path.display();
    let f = r.format;
    match r.status {
        Status::Skipped => {
            if v.verbose {
                writeln!(out, "skipped {:<4} {p}: no game file", "-")?;
            }
            return Ok(());
        }
        Status::Unreadable => {
            let why = r.message.as_deref().unwrap_or("cannot be read");
            writeln!(out, "unreadable {f:<4} {p}: {why}")?;
            return Ok(());
        }
        Status::Pass if v.quiet && r.findings.is_empty() => return Ok(()),
        Status::Pass => write!(out, "pass    {f:<4} {p}")?,
        Status::Stops => write!(out, "STOPS   {f:<4} {p}")?,
    }
    writeln!(out, "{}", counts(&r.findings))?;
    for finding in &r.findings {
        writeln!(out, "        {}", check::finding_line(finding))?;
    }
    if !v.quiet {
        for u in &r.unchecked {
            writeln!(out, "        unchecked: {u}")?;
        }
    }
    Ok(())
}

/// `: N would stop the game, M note(s)`, or nothing when nothing was found.
fn counts(findings: &[rigtrip::native::finding::Finding]) -> String {
    match check::counts(findings).as_str() {
        "" => String::new(),
        c => format!(": {c}"),
    }
}

fn print_summary(out: &mut impl Write, v: Verbosity, s: &Summary) -> Result<()> {
    write!(
        out,
        "{} pass, {} would stop the game, {} unreadable",
        s.pass, s.stops, s.unreadable
    )?;
    if s.skipped > 0 {
        write!(
            out,
            ", {}",
            crate::shared::skipped_note(v.verbose, s.skipped)
        )?;
    }
    writeln!(out)?;
    Ok(())
}

/// Runs `rigtrip check` on what `import` is about to write (`out`, and the motion files),
/// comparing the output with `original` (`--original`, or the `--onto` template) when given.
pub(crate) fn import_check(
    out: &std::path::Path,
    original: Option<&std::path::Path>,
    imported: &rigtrip::gltf::import::Imported,
    motions: &[(PathBuf, &Vec<u8>)],
) -> Result<rigtrip::ops::import_check::ImportCheck> {
    let original = match original {
        Some(p) => {
            let b = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?;
            Some((p, b))
        }
        None => None,
    };
    let motions: Vec<(PathBuf, &[u8])> = motions
        .iter()
        .map(|(p, b)| (p.clone(), b.as_slice()))
        .collect();
    Ok(rigtrip::ops::import_check::import_check(
        out,
        &imported.bytes,
        &motions,
        &imported.report,
        original.as_ref().map(|(p, b)| (*p, b.as_slice())),
    ))
}

/// The import report with the check of what was written (`--json`).
#[derive(serde::Serialize)]
pub(crate) struct WithCheck<'a> {
    /// The import report's keys.
    #[serde(flatten)]
    pub report: &'a rigtrip::gltf::import::ImportReport,
    /// One entry per file written: what `rigtrip check` finds in it.
    pub check: &'a [FileCheck],
    /// The file whose findings did not count against the edit (`--original`, or the template).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_original: Option<String>,
}

/// Refuses an import: its findings that would stop the game on stderr (text) or in the error
/// document (`--json`, under `check`), then `why`. Nothing is written; exit 2, a refused edit.
pub(crate) fn refuse(
    json: bool,
    input: &std::path::Path,
    checked: &rigtrip::ops::import_check::ImportCheck,
    why: &str,
) -> Result<i32> {
    let code = crate::shared::EXIT_BAD_INPUT;
    if json {
        #[derive(serde::Serialize)]
        struct Body<'a> {
            check: &'a [FileCheck],
        }
        let head = Head {
            message: Some(why.to_string()),
            path: Some(input.display().to_string()),
            ..Head::exit(code)
        };
        let body = Body {
            check: &checked.files,
        };
        write!(std::io::stdout().lock(), "{}", json_doc(&head, &body))?;
    } else {
        eprint!("{}", checked.render_text());
    }
    eprintln!("rigtrip: error: {}: {why}", input.display());
    Ok(code)
}
