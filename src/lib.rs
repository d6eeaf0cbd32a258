//! rigtrip: lossless round trips of reverse-engineered game rigs to glTF 2.0 and back.
//!
//! Layers, data flowing one way through each:
//! `bytes --read--> native structs --lift--> Rig (IR) --export--> glTF` and back.
//! - [`native`]: one module per format, every byte on disk represented;
//! - [`rig`]: the format-neutral IR with world matrices, inverse bind matrices and the gate;
//! - [`rgba`]: decoded images and their PNG form, which carries a texture's native bytes;
//! - [`ops`]: what the CLI commands do, as library functions (the command line itself is the
//!   binary's, in `src/bin/rigtrip/`);
//! - `synth` (cargo feature `synth`, test data only): deterministic generators of valid files
//!   for samples, tests and benchmarks.

pub mod bytes;
/// Mech locomotion clip sets (their own crate).
pub use rigtrip_gait as gait;
pub mod gltf;
/// The skin-contract linter (its own crate).
pub use rigtrip_lint as lint;
pub mod native;
pub mod ops;
pub mod rgba;
pub mod rig;
#[cfg(any(test, feature = "synth"))]
pub mod synth;
pub use rigtrip_gltf::units;

/// An error and its sources as one line, each layer's clause once, joined by `": "` (what the
/// CLI prints with `{:#}`), for callers that report an error
/// of any layer as a string (verify's messages, the glTF leg, fuzz reports).
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    use std::fmt::Write;
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        let _ = write!(out, ": {s}");
        next = s.source();
    }
    out
}
