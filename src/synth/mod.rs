//! Deterministic generators of valid native files, built from the published layouts.
//! Samples, tests and benchmarks all come from here; nothing is copied from a game.

pub mod dmc3;
pub mod hie;
pub mod rng;
