//! What more than one benchmark times with.

use std::time::{Duration, Instant};

/// The best of `reps` runs of `f` (at least one), and its last result.
pub fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        out = Some(r);
    }
    (best, out.expect("at least one run"))
}
