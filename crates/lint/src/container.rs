//! Getting at the JSON and the binary data of a glTF or GLB without trusting any length in it:
//! the linter's findings on the GLB header and chunks (read by [`rigtrip_gltf::glb`]), and which
//! buffers may lack their data (the buffers themselves are loaded by
//! [`rigtrip_gltf::buffers`]).

use std::collections::HashSet;

use serde_json::Value;

use super::out::Out;
use rigtrip_gltf::glb::{self, Step};

/// The JSON text and (for a GLB) the BIN chunk of an input.
pub(crate) struct Container<'a> {
    /// The JSON bytes.
    pub json: &'a [u8],
    /// The first BIN chunk of a GLB.
    pub bin: Option<&'a [u8]>,
    /// `glb` or `gltf`.
    pub kind: &'static str,
}

/// Splits `input` into JSON and BIN; `None` (with an error finding) when no JSON can be found.
pub(crate) fn split<'a>(input: &'a [u8], out: &mut Out) -> Option<Container<'a>> {
    if input.get(..4) != Some(glb::MAGIC.as_slice()) {
        // A UTF-8 byte order mark is forbidden but harmless for us.
        let json = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
        return Some(Container {
            json,
            bin: None,
            kind: "gltf",
        });
    }
    let end = check_header(input, out)?;
    let data = input.get(..end).unwrap_or(input);
    let (json, bin) = walk_chunks(data, out)?;
    Some(Container {
        json,
        bin,
        kind: "glb",
    })
}

/// Findings on a GLB's 12-byte header; the end of the data to read (the smaller of the length
/// the header gives and the file's), `None` when the header is cut or not version 2.
fn check_header(input: &[u8], out: &mut Out) -> Option<usize> {
    let header = glb::header(input);
    let (Some(version), Some(length)) = (header.version, header.length) else {
        out.error(
            "glb-invalid",
            "",
            format!(
                "GLB header cut short: {} of its 12 bytes are present",
                input.len()
            ),
        );
        return None;
    };
    if version != 2 {
        out.error(
            "glb-invalid",
            "",
            format!("GLB version {version} at offset 0x4, expected 2"),
        );
        return None;
    }
    let mut end = input.len();
    if length as usize > input.len() {
        out.error(
            "glb-invalid",
            "",
            format!(
                "the GLB header (offset 0x8) gives a length of {length:#x} bytes, but the file has {:#x}",
                input.len()
            ),
        );
    } else if (length as usize) < input.len() {
        out.warning(
            "glb-invalid",
            "",
            format!(
                "{} bytes after the GLB length {length:#x} given at offset 0x8 are ignored",
                input.len() - length as usize
            ),
        );
        end = length as usize;
    }
    Some(end)
}

/// The JSON chunk (the first) and first BIN chunk of a GLB's `data` (cut at the length the
/// header gives), with findings on every chunk; `None` when there is no JSON chunk or the first
/// is another.
fn walk_chunks<'a>(data: &'a [u8], out: &mut Out) -> Option<(&'a [u8], Option<&'a [u8]>)> {
    let mut json: Option<&[u8]> = None;
    let mut bin: Option<&[u8]> = None;
    for (k, step) in glb::chunks(data, true).enumerate() {
        let c = match step {
            Step::Chunk(c) => c,
            Step::Cut(off) => {
                out.warning(
                    "glb-invalid",
                    "",
                    format!(
                        "{} stray bytes at offset {off:#x} after the last GLB chunk",
                        data.len() - off
                    ),
                );
                break;
            }
        };
        let (off, clen) = (c.offset, c.length);
        if !c.complete() {
            out.error(
                "glb-invalid",
                "",
                format!(
                    "GLB chunk {k} at offset {off:#x} claims {clen:#x} bytes, only {:#x} remain",
                    c.data.len()
                ),
            );
        }
        if !clen.is_multiple_of(4) {
            out.warning(
                "glb-alignment",
                "",
                format!(
                    "GLB chunk {k} at offset {off:#x} has a length of {clen:#x}, not a multiple of 4"
                ),
            );
        }
        match (k, c.kind) {
            (0, glb::CHUNK_JSON) => json = Some(c.data),
            (0, ctype) => {
                out.error(
                    "glb-invalid",
                    "",
                    format!("the first GLB chunk (offset 0xc) has type {ctype:#010x}, not JSON"),
                );
                return None;
            }
            (_, glb::CHUNK_BIN) if bin.is_none() => bin = Some(c.data),
            (_, glb::CHUNK_BIN) => out.warning(
                "glb-invalid",
                "",
                format!("a second BIN chunk at offset {off:#x} is ignored"),
            ),
            // Unknown chunk types are allowed and skipped.
            _ => {}
        }
    }
    let Some(json) = json else {
        out.error("glb-invalid", "", "the GLB has no JSON chunk");
        return None;
    };
    Some((json, bin))
}

/// The buffers whose missing data is no fault: no buffer view reads them, or they are an
/// `EXT_meshopt_compression` fallback (which has no data by design).
pub(crate) fn optional_buffers(root: &serde_json::Map<String, Value>) -> HashSet<usize> {
    let read: HashSet<u64> = root
        .get("bufferViews")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.get("buffer").and_then(Value::as_u64))
        .collect();
    let list = root.get("buffers").and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .enumerate()
        .filter(|(i, b)| {
            let fallback = b
                .pointer("/extensions/EXT_meshopt_compression/fallback")
                .and_then(Value::as_bool)
                == Some(true);
            fallback || !read.contains(&(*i as u64))
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glb_chunks_with_bad_lengths_are_reported_not_trusted() {
        let mut g = Vec::new();
        g.extend_from_slice(glb::MAGIC);
        g.extend_from_slice(&2u32.to_le_bytes());
        g.extend_from_slice(&40u32.to_le_bytes());
        g.extend_from_slice(&4u32.to_le_bytes());
        g.extend_from_slice(&glb::CHUNK_JSON.to_le_bytes());
        g.extend_from_slice(b"{}  ");
        g.extend_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        g.extend_from_slice(&glb::CHUNK_BIN.to_le_bytes());
        g.extend_from_slice(&[1, 2, 3, 4]);
        let mut out = Out::default();
        let c = split(&g, &mut out).unwrap();
        assert_eq!(c.json, b"{}  ");
        assert_eq!(c.bin, Some([1u8, 2, 3, 4].as_slice()));
        let msgs: Vec<String> = out.findings.iter().map(|f| f.message.clone()).collect();
        assert_eq!(
            msgs,
            [
                "the GLB header (offset 0x8) gives a length of 0x28 bytes, but the file has 0x24",
                "GLB chunk 1 at offset 0x18 claims 0xfffffff0 bytes, only 0x4 remain",
            ]
        );
    }
}
