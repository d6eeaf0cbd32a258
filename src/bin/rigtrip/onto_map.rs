//! `rigtrip onto-map`: a joint map for `import --onto`, suggested for a person to correct.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use rigtrip::gltf::import::suggest::suggest;
use rigtrip::ops;

#[derive(Args, Debug)]
pub struct OntoMapArgs {
    /// The glTF or GLB with the body (its skin's joints are mapped).
    pub body: PathBuf,
    /// The native file to put it onto (its names file beside it, when there is one, names its
    /// joints; else rigtrip's defaults).
    pub template: PathBuf,
    /// The map file to write (JSON, what `import --joint-map` reads).
    #[arg(short, long, value_name = "MAP.json")]
    pub output: PathBuf,
    /// Overwrite MAP.json if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Writes the suggested map and prints how each joint was matched.
pub fn run(quiet: bool, a: &OntoMapArgs) -> Result<i32> {
    ops::output::check_target(&a.output, a.force, Some(&a.body))?;
    ops::output::check_target(&a.output, a.force, Some(&a.template))?;
    let data =
        std::fs::read(&a.body).with_context(|| format!("cannot read {}", a.body.display()))?;
    let base = crate::shared::buffers_dir(&a.body);
    let template = crate::shared::read_template(&a.template)?;
    let names = crate::shared::names_beside_read(&a.template)?;
    let got = suggest(&data, base, template, names.as_ref())
        .with_context(|| format!("{}", a.body.display()))?;
    ops::output::write_atomic(&a.output, got.map_json().as_bytes(), a.force, Some(&a.body))?;
    if !quiet {
        let mut out = std::io::stdout().lock();
        write!(out, "{}", got.render_text())?;
        writeln!(out, "wrote {}", a.output.display())?;
    }
    Ok(0)
}
