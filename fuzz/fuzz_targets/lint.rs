//! `rigtrip lint`: any bytes as a GLB or glTF JSON (no base folder, so no external buffers).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rigtrip_fuzz::check_lint(data);
});
