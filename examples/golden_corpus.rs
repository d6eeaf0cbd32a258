//! Writes the golden corpus for `tools/golden/compare`: the bundled samples, 500 generated files
//! per format (HIE, MOD, SCM, bare node-domain blocks with their offsets in `efm/manifest.txt`,
//! exportable models) and hostile mutants (cuts, bit flips, 0xFF words, empty and wrong files).
//!
//! Run: `cargo run --release --example golden_corpus -- DIR [COUNT]`. The same seeds give the
//! same bytes, so two checkouts compare their outputs over identical inputs.

use std::fs;
use std::path::Path;

use rigtrip::synth::{dmc3, hie, rng::Rng};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    fs::write(dir.join(name), bytes)
}

/// Two cuts, three flips of one to four bits, and one word of 0xFF, each its own file.
fn mutants(dir: &Path, name: &str, bytes: &[u8], rng: &mut Rng) -> std::io::Result<()> {
    if bytes.len() < 4 {
        return Ok(());
    }
    for k in 0..2 {
        write(
            dir,
            &format!("{name}.trunc{k}"),
            &bytes[..rng.index(bytes.len())],
        )?;
    }
    for k in 0..3 {
        let mut m = bytes.to_vec();
        for _ in 0..1 + rng.index(4) {
            let i = rng.index(m.len());
            m[i] ^= 1 << rng.index(8);
        }
        write(dir, &format!("{name}.flip{k}"), &m)?;
    }
    let mut m = bytes.to_vec();
    let at = rng.index(m.len() / 4) * 4;
    m[at..at + 4].fill(0xFF);
    write(dir, &format!("{name}.ff"), &m)
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(root) = args.next() else {
        eprintln!("usage: golden_corpus DIR [COUNT]");
        std::process::exit(2);
    };
    let root = Path::new(&root);
    let count: u64 = args.next().and_then(|c| c.parse().ok()).unwrap_or(500);
    for (name, bytes) in rigtrip::synth::samples() {
        write(&root.join("samples"), name, &bytes)?;
    }
    let mut rng = Rng::new(12345);
    let mut manifest = String::new();
    let hostile = root.join("hostile");
    for s in 0..count {
        let h = hie::random(s);
        write(&root.join("hie"), &format!("r{s:03}HIE.BIN"), &h)?;
        let m = dmc3::random_mod(s);
        write(&root.join("mod"), &format!("r{s:03}.mod"), &m)?;
        let c = dmc3::random_scm(s);
        write(&root.join("scm"), &format!("r{s:03}.scm"), &c)?;
        let (b, offset, nodes) = dmc3::random_block_file(s);
        write(&root.join("efm"), &format!("r{s:03}.efm"), &b)?;
        manifest.push_str(&format!("r{s:03}.efm {offset} {nodes}\n"));
        let scm = s % 2 == 1;
        let ext = if scm { "scm" } else { "mod" };
        let e = dmc3::random_exportable(s, scm);
        write(&root.join("exportable"), &format!("e{s:03}.{ext}"), &e)?;
        if s < 60 {
            mutants(&hostile, &format!("r{s:03}HIE.BIN"), &h, &mut rng)?;
            mutants(&hostile, &format!("r{s:03}.mod"), &m, &mut rng)?;
            mutants(&hostile, &format!("r{s:03}.scm"), &c, &mut rng)?;
        }
    }
    fs::write(root.join("efm/manifest.txt"), manifest)?;
    write(&hostile, "empty.mod", b"")?;
    write(&hostile, "emptyHIE.BIN", b"")?;
    write(&hostile, "empty.bin", b"")?;
    write(&hostile, "png.mod", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")?;
    write(&hostile, "text.scm", b"hello world, not a model at all\n")?;
    write(&hostile, "short.mod", b"MOD \0\0\x80\x3f")?;
    fs::create_dir_all(hostile.join("adir.mod"))
}
