//! Writes the bundled samples into a folder (default `samples/`) from our own generators.
//!
//! Run: `cargo run --example make_samples -- samples/`. `tests/samples.rs` checks that the
//! committed files equal what this writes, so the samples stay reproducible.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "samples".into()));
    std::fs::create_dir_all(&dir)?;
    for (name, bytes) in rigtrip::synth::samples() {
        std::fs::write(dir.join(name), bytes)?;
        println!("wrote {}", dir.join(name).display());
    }
    Ok(())
}
