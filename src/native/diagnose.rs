//! Why a file was not read, said so the reader knows what to do: an empty file, a glTF given to
//! a native command, a DBnnHIE.BIN cut short (with figures), a pre-HD DMC3 container, or an
//! unknown content with the options that read a block inside it or force a format.

use super::{dmc3, hie};

/// What an unrecognised content looks like.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unrecognised {
    /// Zero bytes.
    #[error("the file is empty (0 bytes)")]
    Empty,
    /// A glTF document (`glb` or `gltf`), not a native rig.
    #[error(
        "a glTF file ({0}), not a native rig: lint, import or gait read it (rigtrip lint FILE)"
    )]
    Gltf(&'static str),
    /// A DBnnHIE.BIN slot table whose file ends before what it points at.
    #[error("{0}")]
    Truncated(String),
    /// Nothing known.
    #[error("not a recognised format (neither a MOD/SCM magic nor a valid HIE slot table): a node-domain block inside a file (.efm) is read with --block-at OFFSET --nodes N; a format is forced with --format hie|dmc3")]
    Unknown,
    /// Nothing known, in a file named like a DMC3 container: its extension (`.mod`, `.scm`).
    #[error("named {0} but not a DMC3 container: no \"MOD \" or \"SCM \" magic at offset 0x0. If it holds a DMC3 node-domain block (a skeleton inside another file, as .efm files do), read it with --block-at OFFSET --nodes N (the block's offset and node count); a format is forced with --format hie|dmc3")]
    NamedContainer(String),
}

impl Unrecognised {
    /// Said for the file at `path`: an unknown content in a file named `.mod` or `.scm` says
    /// that the name promised a container the content is not.
    pub fn named(self, path: &std::path::Path) -> Unrecognised {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match (self, ext.as_deref()) {
            (Unrecognised::Unknown, Some(e @ ("mod" | "scm"))) => {
                Unrecognised::NamedContainer(format!(".{e}"))
            }
            (u, _) => u,
        }
    }
}

/// Says what `data`, which no format recognised, looks like.
pub fn unrecognised(data: &[u8]) -> Unrecognised {
    if data.is_empty() {
        return Unrecognised::Empty;
    }
    if data.starts_with(b"glTF") {
        return Unrecognised::Gltf("GLB");
    }
    let text = data.trim_ascii_start();
    if text.starts_with(b"{") && text.windows(7).any(|w| w == b"\"asset\"") {
        return Unrecognised::Gltf(".gltf JSON");
    }
    match hie::truncation(data) {
        Some(why) => Unrecognised::Truncated(why),
        None => Unrecognised::Unknown,
    }
}

/// Whether `data`, a MOD/SCM container the HD reader refused, has the layout of the earlier PC
/// release: a u32 block offset at +0x1C and 0x30-byte object records from 0x30
/// with a u32 mesh pointer at +4, all pointing inside the file past the records, where the HD
/// reading (u64 block offset at +0x20, 0x40-byte records with a u64 mesh offset at +8) does not.
pub fn pre_hd(data: &[u8]) -> bool {
    let word = |o: usize, n: usize| -> Option<u64> {
        let b = data.get(o..o + n)?;
        Some(b.iter().rev().fold(0u64, |v, &x| (v << 8) | u64::from(x)))
    };
    let (Some(&objects), Some(&bones)) = (data.get(0x10), data.get(0x11)) else {
        return false;
    };
    if !dmc3::has_container_magic(data) || (objects == 0 && bones == 0) {
        return false;
    }
    let len = data.len() as u64;
    let inside = |o: Option<u64>, min: u64| o.is_some_and(|o| o >= min && o < len);
    let pre_min = 0x30 + 0x30 * u64::from(objects);
    let hd_min = 0x40 + 0x40 * u64::from(objects);
    let pre = (objects == 0 || inside(word(0x34, 4), pre_min))
        && (bones == 0 || inside(word(0x1C, 4), pre_min));
    let hd = (objects == 0 || inside(word(0x48, 8), hd_min))
        && (bones == 0 || inside(word(0x20, 8), hd_min));
    pre && !hd
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pre-HD-like MOD: header with a u32 block offset at +0x1C, one 0x30-byte object record
    /// at 0x30 whose u32 mesh pointer (+4) names a mesh record at 0x60, a block at 0xB0.
    fn pre_hd_mod() -> Vec<u8> {
        let mut b = vec![0u8; 0x200];
        b[..4].copy_from_slice(b"MOD ");
        b[4..8].copy_from_slice(&1.0f32.to_le_bytes());
        b[0x10] = 1;
        b[0x11] = 2;
        b[0x1C..0x20].copy_from_slice(&0xB0u32.to_le_bytes());
        b[0x30] = 1;
        b[0x34..0x38].copy_from_slice(&0x60u32.to_le_bytes());
        b
    }

    #[test]
    fn pre_hd_layout_is_told_from_hd() {
        assert!(pre_hd(&pre_hd_mod()));
        let hd = crate::synth::dmc3::sample_mod();
        assert!(!pre_hd(&hd));
        for cut in [0x12, 0x40, 0x80, hd.len() / 2, hd.len() - 1] {
            assert!(!pre_hd(&hd[..cut]), "cut at {cut:#x}");
        }
        let mut no_magic = pre_hd_mod();
        no_magic[0] = b'X';
        assert!(!pre_hd(&no_magic));
    }

    #[test]
    fn unrecognised_contents_are_named() {
        assert_eq!(unrecognised(b""), Unrecognised::Empty);
        assert_eq!(unrecognised(b"glTF\x02\0\0\0"), Unrecognised::Gltf("GLB"));
        assert_eq!(
            unrecognised(b" {\"asset\": {\"version\": \"2.0\"}}"),
            Unrecognised::Gltf(".gltf JSON")
        );
        assert_eq!(unrecognised(b"not a rig\n"), Unrecognised::Unknown);
        let p = std::path::Path::new;
        assert_eq!(
            Unrecognised::Unknown.named(p("dir/x.MOD")),
            Unrecognised::NamedContainer(".mod".into())
        );
        assert_eq!(
            Unrecognised::Unknown.named(p("x.efm")),
            Unrecognised::Unknown
        );
        assert_eq!(Unrecognised::Empty.named(p("x.scm")), Unrecognised::Empty);
        let db22 = crate::synth::hie::sample_db22();
        assert_eq!(
            unrecognised(&db22[..0x100]).to_string(),
            "truncated DBnnHIE.BIN: the slot table needs 0x400 bytes but the file ends at 0x100"
        );
    }
}
