//! `docs/formats.md` is what the record declarations generate
//! (`rigtrip::native::formats_doc::markdown`); `RIGTRIP_BLESS=1` writes it.

#[test]
fn docs_formats_is_generated_from_the_records() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/formats.md");
    let want = rigtrip::native::formats_doc::markdown();
    if std::env::var_os("RIGTRIP_BLESS").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "docs/formats.md is stale: run RIGTRIP_BLESS=1 cargo test --test formats_doc"
    );
    // Every record's every field is in it, by offset and key.
    for needle in [
        "`+0x12` | 1 | `texture_count`",
        "### `gfxDescriptor` (0x70 bytes)",
    ] {
        assert!(want.contains(needle), "{needle}");
    }
}
