//! The two containers: binary GLB (JSON chunk + BIN chunk) and a single `.gltf` JSON file with
//! the buffer embedded as a base64 data URI.

use base64::Engine as _;

use super::Exported;

const MAGIC: &[u8; 4] = b"glTF";
const VERSION: u32 = 2;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The document as a GLB: 12-byte header, JSON chunk padded with spaces, BIN chunk padded with
/// zeros (omitted when there is no binary data).
pub fn to_glb(e: &Exported) -> Vec<u8> {
    let bin = &e.bin;
    let bin_pad = bin.len().next_multiple_of(4) - bin.len();
    let bin_chunk = if bin.is_empty() {
        0
    } else {
        8 + bin.len() + bin_pad
    };
    // The JSON goes straight into the output after the two headers; its length is patched in
    // afterwards. A guess at its size saves most regrowth (the text is mostly extras).
    let guess = 4096 + e.root.nodes.len() * 160 + e.root.accessors.len() * 160;
    let mut out = Vec::with_capacity(20 + guess + bin_chunk);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // total length, below
    out.extend_from_slice(&[0; 4]); // JSON chunk length, below
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    if serde_json::to_writer(&mut out, &e.root).is_err() {
        out.truncate(20);
    }
    while !out.len().is_multiple_of(4) {
        out.push(b' ');
    }
    let json_len = out.len() - 20;
    if !bin.is_empty() {
        out.reserve_exact(bin_chunk);
        out.extend_from_slice(&((bin.len() + bin_pad) as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(out.len() + bin_pad, 0);
    }
    // `export` refuses documents over 4 GiB, so these lengths fit.
    let total = out.len() as u32;
    if let Some(h) = out.get_mut(8..16) {
        h[..4].copy_from_slice(&total.to_le_bytes());
        h[4..].copy_from_slice(&(json_len as u32).to_le_bytes());
    }
    out
}

/// The document as one `.gltf` JSON file (pretty-printed), buffer 0 as a data URI.
pub fn to_gltf(e: &Exported) -> Vec<u8> {
    let mut root = e.root.clone();
    if let Some(buffer) = root.buffers.first_mut() {
        let data = base64::engine::general_purpose::STANDARD.encode(&e.bin);
        buffer.uri = Some(format!("data:application/octet-stream;base64,{data}"));
    }
    let mut out = serde_json::to_vec_pretty(&root).unwrap_or_default();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gltf::ExportReport;

    fn doc(bin: Vec<u8>) -> Exported {
        let mut root = ::gltf_json::Root::default();
        root.asset.version = "2.0".into();
        if !bin.is_empty() {
            root.push(::gltf_json::Buffer {
                byte_length: ::gltf_json::validation::USize64(bin.len() as u64),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            });
        }
        Exported {
            root,
            bin,
            report: ExportReport::default(),
        }
    }

    #[test]
    fn glb_layout_exact() {
        let e = doc(vec![1, 2, 3, 4, 5, 6, 7, 8]);
        let g = to_glb(&e);
        let json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":8}]}"#;
        let padded = json.len().div_ceil(4) * 4;
        assert_eq!(&g[0..4], b"glTF");
        assert_eq!(u32::from_le_bytes(g[4..8].try_into().unwrap()), 2);
        assert_eq!(
            u32::from_le_bytes(g[8..12].try_into().unwrap()) as usize,
            g.len()
        );
        assert_eq!(
            u32::from_le_bytes(g[12..16].try_into().unwrap()) as usize,
            padded
        );
        assert_eq!(&g[16..20], b"JSON");
        assert_eq!(&g[20..20 + json.len()], json);
        assert!(g[20 + json.len()..20 + padded].iter().all(|&c| c == b' '));
        let b = 20 + padded;
        assert_eq!(u32::from_le_bytes(g[b..b + 4].try_into().unwrap()), 8);
        assert_eq!(&g[b + 4..b + 8], b"BIN\0");
        assert_eq!(&g[b + 8..], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(g.len(), 20 + padded + 16);
    }

    #[test]
    fn glb_without_data_has_no_bin_chunk_and_gltf_embeds_base64() {
        let g = to_glb(&doc(Vec::new()));
        let json = br#"{"asset":{"version":"2.0"}}"#;
        assert_eq!(g.len(), 20 + json.len().div_ceil(4) * 4);
        let t = to_gltf(&doc(vec![0xFF, 0, 0, 1]));
        let v: serde_json::Value = serde_json::from_slice(&t).unwrap();
        assert_eq!(
            v["buffers"][0]["uri"],
            "data:application/octet-stream;base64,/wAAAQ=="
        );
        assert_eq!(v["buffers"][0]["byteLength"], 4);
    }
}
