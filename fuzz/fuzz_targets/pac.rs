//! DMC3 archive reader (`.pac`): no panic, bounded allocations, `write(read(b)) == b`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rigtrip_fuzz::check_motion(true, data);
});
