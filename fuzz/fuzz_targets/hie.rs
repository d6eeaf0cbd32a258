//! DBnnHIE.BIN reader: any bytes read as HIE (and through detection), round trip checked.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigtrip::native::Format;

fuzz_target!(|data: &[u8]| {
    rigtrip_fuzz::check_native(Some(Format::Hie), data);
});
