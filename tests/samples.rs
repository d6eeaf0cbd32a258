//! The committed samples are exactly what our generators write, and every one verifies.

mod common;

#[test]
fn committed_samples_equal_the_generators() {
    for (name, bytes) in rigtrip::synth::samples() {
        let on_disk = common::sample(name);
        assert!(
            on_disk == bytes,
            "samples/{name} differs from the generator: run `cargo run --example make_samples`"
        );
    }
}
