//! DMC3 texture readers (PTX bundle, single gfxTexture entry), both on every input: no panic,
//! bounded allocations, `write(read(b)) == b`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigtrip::native::MotionFormat;

fuzz_target!(|data: &[u8]| {
    rigtrip_fuzz::check_non_rig(MotionFormat::Ptx, data);
    rigtrip_fuzz::check_non_rig(MotionFormat::Tm2, data);
});
