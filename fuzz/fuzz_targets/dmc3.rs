//! DMC3 MOD/SCM container reader (with the block the header names), round trip checked.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigtrip::native::Format;

fuzz_target!(|data: &[u8]| {
    rigtrip_fuzz::check_native(Some(Format::Dmc3), data);
});
