//! `docs/formats.md` is what the record declarations generate
//! (`rigtrip::native::formats_doc::markdown`); `RIGTRIP_BLESS=1` writes it.

mod common;

#[test]
fn docs_formats_is_generated_from_the_records() {
    let want = rigtrip::native::formats_doc::markdown();
    common::assert_generated("docs/formats.md", &want, "formats_doc");
    // Every record's every field is in it, by offset and key.
    for needle in [
        "`+0x12` | 1 | `texture_count`",
        "### `gfxDescriptor` (0x70 bytes)",
    ] {
        assert!(want.contains(needle), "{needle}");
    }
}
