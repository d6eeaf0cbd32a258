//! Argument parsing and printing for the `rigtrip` binary. Every command calls a library
//! function in `rigtrip::ops`; nothing here knows a byte offset.

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;

use rigtrip::native::{Format, NativeFile};
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
    after_help = "Examples:\n  rigtrip inspect samples/DB22HIE.BIN\n  rigtrip verify samples/\n  rigtrip verify --json dump/ > report.json"
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
        after_help = "Examples:\n  rigtrip inspect samples/DB22HIE.BIN\n  rigtrip inspect --json samples/dmc3_humanoid.mod\n  rigtrip inspect --block-at 0x1a3 --nodes 8 samples/effect.efm"
    )]
    Inspect(InspectArgs),
    /// Check that every file comes back byte for byte (native -> rig -> native).
    #[command(
        after_help = "Prints one line per file and a summary `N identical, M differ, K rejected`.\n\
Exit 0 if all identical, 1 if any differ (a rigtrip bug: please report it), 2 if any was rejected.\n\n\
Examples:\n  rigtrip verify samples/\n  rigtrip verify -q --json path/to/dump > report.json\n  rigtrip verify --format hie DB*.BIN"
    )]
    Verify(VerifyArgs),
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
    }
}

fn inspect(a: &InspectArgs) -> Result<i32> {
    let data =
        std::fs::read(&a.file).with_context(|| format!("cannot read {}", a.file.display()))?;
    let file = NativeFile::read(a.format.format(), &data)
        .with_context(|| format!("{}", a.file.display()))?;
    let kind = file.kind();
    let rig = rigtrip::rig::lift(file);
    let report = ops::inspect::report(kind, data.len(), &rig);
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", ops::inspect::render_text(&report))?;
    }
    Ok(0)
}

fn verify_cmd(cli: &Cli, a: &VerifyArgs) -> Result<i32> {
    let files = verify::collect_files(&a.paths).context("cannot list the given paths")?;
    if files.is_empty() {
        bail!("no files found under the given paths");
    }
    let format = a.format.format();
    let mut summary = verify::Summary::default();
    let mut results = Vec::with_capacity(files.len());
    let mut out = std::io::stdout().lock();
    for f in &files {
        let r = verify::verify_path(format, f);
        summary.add(&r.verdict);
        if !a.json {
            print_line(&mut out, cli, &r)?;
        }
        results.push(r);
    }
    if a.json {
        let doc = serde_json::json!({ "files": results, "summary": summary });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} identical, {} differ, {} rejected",
            summary.identical, summary.differ, summary.rejected
        )?;
    }
    Ok(summary.exit_code())
}

fn print_line(out: &mut impl Write, cli: &Cli, r: &verify::FileResult) -> Result<()> {
    let p = r.path.display();
    match &r.verdict {
        verify::Verdict::Identical { kind, gate } => {
            if !cli.quiet {
                writeln!(out, "identical  {kind:<5} {p}")?;
                for g in gate {
                    writeln!(out, "           note: {g} (round trip only)")?;
                }
            }
        }
        verify::Verdict::Differ { kind, message } => {
            writeln!(out, "DIFFER     {kind:<5} {p}: {message}")?;
        }
        verify::Verdict::Rejected { message } => {
            writeln!(out, "rejected   {:<5} {p}: {message}", "-")?;
        }
    }
    Ok(())
}
