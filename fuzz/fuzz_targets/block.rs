//! A bare node-domain block at an offset and node count taken from the input's first bytes
//! (see `rigtrip_fuzz::split_block_input`), round trip checked.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigtrip::native::Format;

fuzz_target!(|data: &[u8]| {
    if let Some((offset, nodes, file)) = rigtrip_fuzz::split_block_input(data) {
        rigtrip_fuzz::check_native(Some(Format::Block { offset, nodes }), file);
    }
});
