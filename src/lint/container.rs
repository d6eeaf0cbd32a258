//! Getting at the JSON and the binary data of a glTF or GLB without trusting any length in it:
//! the linter's findings on the GLB header and chunks (read by [`crate::gltf::glb`]), and
//! buffers from the BIN chunk, `data:` URIs or files next to the input.

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

use base64::Engine as _;
use serde_json::Value;

use super::out::Out;
use crate::gltf::glb::{self, Step};
use crate::gltf::read::uri::percent_decode_lossy;
use crate::gltf::read::Buffer;

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
    let mut json: Option<&[u8]> = None;
    let mut bin: Option<&[u8]> = None;
    let data = input.get(..end).unwrap_or(input);
    for (k, step) in glb::chunks(data, true).enumerate() {
        let c = match step {
            Step::Chunk(c) => c,
            Step::Cut(off) => {
                out.warning(
                    "glb-invalid",
                    "",
                    format!(
                        "{} stray bytes at offset {off:#x} after the last GLB chunk",
                        end - off
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
    Some(Container {
        json,
        bin,
        kind: "glb",
    })
}

/// Loads every buffer of the document, reporting the ones that cannot be loaded.
pub(crate) fn load_buffers<'a>(
    root: &serde_json::Map<String, Value>,
    bin: Option<&'a [u8]>,
    base_dir: Option<&Path>,
    out: &mut Out,
) -> Vec<Buffer<'a>> {
    let list = match root.get("buffers") {
        Some(Value::Array(a)) => a.as_slice(),
        Some(_) => {
            out.error("json-schema", "/buffers", "`buffers` is not an array");
            &[]
        }
        None => &[],
    };
    list.iter()
        .enumerate()
        .map(|(i, b)| load_buffer(i, b, bin, base_dir, needed(root, i, b), out))
        .collect()
}

/// Whether missing data of buffer `i` is an error: some buffer view reads it, and it is not an
/// `EXT_meshopt_compression` fallback (which has no data by design).
fn needed(root: &serde_json::Map<String, Value>, i: usize, b: &Value) -> bool {
    let fallback = b
        .pointer("/extensions/EXT_meshopt_compression/fallback")
        .and_then(Value::as_bool)
        == Some(true);
    let read = root
        .get("bufferViews")
        .and_then(Value::as_array)
        .is_some_and(|v| {
            v.iter()
                .any(|v| v.get("buffer").and_then(Value::as_u64) == Some(i as u64))
        });
    read && !fallback
}

fn load_buffer<'a>(
    i: usize,
    b: &Value,
    bin: Option<&'a [u8]>,
    base_dir: Option<&Path>,
    needed: bool,
    out: &mut Out,
) -> Buffer<'a> {
    // Missing data nothing reads is worth knowing, not a fault.
    let missing = if needed {
        super::Severity::Error
    } else {
        super::Severity::Info
    };
    let ptr = format!("/buffers/{i}");
    let Some(declared) = b.get("byteLength").and_then(Value::as_u64) else {
        out.error(
            "json-schema",
            format!("{ptr}/byteLength"),
            format!("buffer {i} has no valid byteLength"),
        );
        return None;
    };
    let data: Cow<'a, [u8]> = match b.get("uri") {
        None => match (i, bin) {
            (0, Some(bin)) => Cow::Borrowed(bin),
            _ => {
                out.push(
                    missing,
                    "buffer-missing",
                    ptr,
                    format!("buffer {i} has no uri and is not the GLB BIN chunk"),
                );
                return None;
            }
        },
        Some(Value::String(uri)) => {
            if let Some(rest) = uri.strip_prefix("data:") {
                let Some((header, payload)) = rest.split_once(',') else {
                    out.error(
                        "buffer-invalid",
                        format!("{ptr}/uri"),
                        format!("buffer {i}: data URI without a comma"),
                    );
                    return None;
                };
                if !header.ends_with(";base64") {
                    out.warning(
                        "buffer-unresolved",
                        format!("{ptr}/uri"),
                        format!("buffer {i}: data URI is not base64; its data was not checked"),
                    );
                    return None;
                }
                match base64::engine::general_purpose::STANDARD.decode(payload) {
                    Ok(d) => Cow::Owned(d),
                    Err(e) => {
                        out.error(
                            "buffer-invalid",
                            format!("{ptr}/uri"),
                            format!("buffer {i}: data URI is not valid base64: {e}"),
                        );
                        return None;
                    }
                }
            } else if uri.contains("://") {
                out.warning(
                    "buffer-unresolved",
                    format!("{ptr}/uri"),
                    format!(
                        "buffer {i}: remote uri {uri:?} is not fetched; its data was not checked"
                    ),
                );
                return None;
            } else {
                let Some(dir) = base_dir else {
                    out.warning(
                        "buffer-unresolved",
                        format!("{ptr}/uri"),
                        format!(
                            "buffer {i}: uri {uri:?} names a file, but no base directory was given; its data was not checked"
                        ),
                    );
                    return None;
                };
                let path = dir.join(percent_decode_lossy(uri));
                // Never read more than the buffer declares: the file may be anything.
                let read = std::fs::File::open(&path).and_then(|f| {
                    let mut v = Vec::new();
                    f.take(declared).read_to_end(&mut v).map(|_| v)
                });
                match read {
                    Ok(v) => Cow::Owned(v),
                    Err(e) => {
                        out.push(
                            missing,
                            "buffer-missing",
                            format!("{ptr}/uri"),
                            format!("buffer {i}: cannot read {}: {e}", path.display()),
                        );
                        return None;
                    }
                }
            }
        }
        Some(_) => {
            out.error(
                "json-schema",
                format!("{ptr}/uri"),
                format!("buffer {i}: uri is not a string"),
            );
            return None;
        }
    };
    if (data.len() as u64) < declared {
        out.error(
            "buffer-too-short",
            ptr,
            format!(
                "buffer {i} declares {declared} bytes but only {} are there",
                data.len()
            ),
        );
        return Some(data);
    }
    // Data past byteLength (GLB padding, or a longer data URI) is not part of the buffer.
    Some(match data {
        Cow::Borrowed(d) => Cow::Borrowed(d.get(..declared as usize).unwrap_or(d)),
        Cow::Owned(mut d) => {
            d.truncate(declared as usize);
            Cow::Owned(d)
        }
    })
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
