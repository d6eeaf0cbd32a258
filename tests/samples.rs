//! The committed samples are exactly what our generators write, and every one verifies.

use std::path::Path;

#[test]
fn committed_samples_equal_the_generators() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    for (name, bytes) in rigtrip::synth::samples() {
        let on_disk = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            on_disk == bytes,
            "samples/{name} differs from the generator: run `cargo run --example make_samples`"
        );
    }
}
