//! What more than one command of the binary uses: the parallel, chunked run with its progress
//! bar, the joint names file beside a rig, a template read for `--onto`, the folder a glTF's
//! buffers are found in.

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

use rigtrip::native::Format;
use rigtrip::ops;
use rigtrip::ops::output::Head;
use rigtrip::units;

/// Whether only problems are printed, or more detail (the global `-q` and `-v`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Verbosity {
    /// `-q`: only problems.
    pub quiet: bool,
    /// `-v`: more detail.
    pub verbose: bool,
}

/// Runs `work` on every item in parallel, a chunk at a time, with the progress bar, and hands
/// the results to `each` in order after each chunk (then flushes `out` with the bar cleared):
/// output streams, and memory stays flat however many files there are.
pub(crate) fn in_chunks<T: Sync, R: Send, W: Write>(
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    mut each: impl FnMut(R, &mut W) -> Result<()>,
    out: &mut W,
) -> Result<()> {
    let progress = progress_bar(items.len() as u64);
    let show_progress = !progress.is_hidden();
    for chunk in items.chunks(VERIFY_CHUNK) {
        let results: Vec<R> = chunk
            .par_iter()
            .map(|item| {
                let r = work(item);
                if show_progress {
                    progress.inc(1);
                }
                r
            })
            .collect();
        for r in results {
            each(r, out)?;
        }
        // The bar is cleared while the chunk's lines go out, then drawn again.
        progress.suspend(|| out.flush())?;
    }
    progress.finish_and_clear();
    Ok(())
}

/// Where the buffers a .gltf names by URI sit: beside it (`.` for a bare file name, as
/// messages say).
pub(crate) fn buffers_dir(gltf: &Path) -> Option<&Path> {
    match gltf.parent() {
        Some(p) if p.as_os_str().is_empty() => Some(Path::new(".")),
        p => p,
    }
}

/// The names file beside a template, read, when there is one.
pub(crate) fn names_beside_read(t: &Path) -> Result<Option<rigtrip::gltf::Names>> {
    names_beside(t).as_deref().map(read_names).transpose()
}

/// The native template of `import --onto`.
pub(crate) fn read_template(t: &Path) -> Result<rigtrip::native::NativeFile> {
    let bytes = std::fs::read(t).with_context(|| format!("cannot read {}", t.display()))?;
    rigtrip::native::NativeFile::read(None, &bytes)
        .with_context(|| format!("--onto {}", t.display()))
}

/// The summary's count of files skipped as not rig files, saying that -v names them.
pub(crate) fn skipped_note(verbose: bool, skipped: usize) -> String {
    if verbose {
        format!("{skipped} skipped (not rig files)")
    } else {
        format!("{skipped} skipped (not rig files; -v names them)")
    }
}

/// Files verified in parallel before their lines are printed.
pub(crate) const VERIFY_CHUNK: usize = 256;

/// A progress bar on stderr when it is a terminal; a hidden one otherwise (nothing is drawn
/// into pipes or logs).
pub(crate) fn progress_bar(len: u64) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {rate} eta {eta}")
    {
        bar.set_style(style.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&units::rate(state.per_sec()));
            },
        ));
    }
    bar
}

/// The names file beside a rig file (its stem + `.names.json`, what `import` writes), when
/// there is one.
pub(crate) fn names_beside(input: &Path) -> Option<PathBuf> {
    let p = ops::names::names_path(input);
    p.is_file().then_some(p)
}

/// A joint names file (`--names`, or the one beside the input).
pub(crate) fn read_names(p: &Path) -> Result<rigtrip::gltf::Names> {
    let text =
        std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?;
    rigtrip::gltf::Names::from_json(&text).with_context(|| format!("{}", p.display()))
}

/// Exit code: bad input or usage.
pub(crate) const EXIT_BAD_INPUT: i32 = 2;

#[derive(Args, Debug)]
pub(crate) struct FormatArgs {
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
pub(crate) enum FormatName {
    /// PlayStation DBnnHIE.BIN hierarchy table.
    Hie,
    /// DMC3 .mod/.scm container.
    Dmc3,
}

impl FormatArgs {
    pub(crate) fn format(&self) -> Option<Format> {
        if let (Some(offset), Some(nodes)) = (self.block_at, self.nodes) {
            return Some(Format::Block { offset, nodes });
        }
        self.format.map(|f| match f {
            FormatName::Hie => Format::Hie,
            FormatName::Dmc3 => Format::Dmc3,
        })
    }
}

/// A value given for an offset that is none.
#[derive(Debug, thiserror::Error)]
#[error("not an offset (decimal or 0x-hex): {0}")]
pub(crate) struct NotAnOffset(std::num::ParseIntError);

pub(crate) fn parse_offset(s: &str) -> Result<u64, NotAnOffset> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(NotAnOffset)
}

/// The head of a command's `--json` document on success: `ok`, the input file.
pub(crate) fn ok_head(path: &Path) -> Head {
    Head {
        path: Some(path.display().to_string()),
        ..Head::exit(0)
    }
}

/// Why `export` refuses a non-rig file, and what to do instead.
pub(crate) fn not_a_rig(input: &Path, m: rigtrip::native::MotionFormat, data: &[u8]) -> String {
    use rigtrip::native::MotionFormat;
    let p = input.display();
    let character = m == MotionFormat::Pac
        && rigtrip::native::dmc3::Pac::read(data).is_ok_and(|a| a.has_model());
    match m {
        MotionFormat::Pac if character => format!(
            "{p}: a character archive whose body model does not read; `rigtrip inspect {p}` lists its members"
        ),
        MotionFormat::Ptx | MotionFormat::Tm2 => format!(
            "{p}: a texture, not a rig: export it with the model it dresses (rigtrip export MODEL.mod --textures {p} -o OUT.glb); `rigtrip inspect {p}` shows its levels and headers"
        ),
        _ => format!(
            "{p}: a motion, not a rig: export it with the model it animates (rigtrip export MODEL --motions {p} -o OUT.glb)"
        ),
    }
}

/// For bytes a glTF command cannot take: an empty file, or a native rig (and which command
/// reads it).
pub(crate) fn native_hint(data: &[u8]) -> Option<String> {
    if data.is_empty() {
        return Some("the file is empty (0 bytes)".into());
    }
    let format = rigtrip::native::detect(data)?;
    Some(format!(
        "a native {format} file, not glTF: inspect reads it, export turns it into glTF (rigtrip export FILE -o OUT.glb)"
    ))
}
