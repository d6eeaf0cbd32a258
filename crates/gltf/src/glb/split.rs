//! The strict split of a GLB into its JSON chunk and its first BIN chunk, for the readers that
//! stop at the first problem (import and gait). Which problem comes first is the one thing they
//! disagree on, so the caller names its rule ([`FirstChunk`]); the problem comes back typed
//! ([`GlbProblem`]) with every fact either reader words it with, and each words it its own way.
//! The linter, which reports every problem and goes on, walks [`super::chunks`] itself.

use super::{chunks, header, Step, CHUNK_BIN, CHUNK_JSON, MAGIC, VERSION};

/// Offset of the first chunk's header, right after the 12-byte GLB header.
const FIRST: usize = 12;

/// The rule a split follows on the chunks before the JSON chunk. Both rules refuse a JSON chunk
/// that is not the first chunk, as the format requires; they differ in when they look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstChunk {
    /// The first chunk is judged before anything else (gait): a first chunk of another kind is
    /// refused at once, even when its data runs past the end ([`GlbProblem::FirstNotJson`]
    /// with no `json`). A container too short for the first chunk's header, a header length
    /// under 12 included, is a cut first chunk header ([`GlbProblem::ChunkCut`]); so this rule
    /// never reports [`GlbProblem::NoJson`].
    MustBeJson,
    /// The chunks are walked in file order and the first problem met is the one reported
    /// (import): a first chunk of another kind is skipped like any unknown chunk, and only a
    /// JSON chunk found after it is refused ([`GlbProblem::FirstNotJson`] with its `json`
    /// offset); a first chunk cut or running past the end is reported as such whatever its
    /// kind. A header length under 12 is refused as a length ([`GlbProblem::Length`]); a
    /// container with no chunk at all has no JSON ([`GlbProblem::NoJson`]).
    InFileOrder,
}

/// A field of the 12-byte GLB header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderField {
    /// The version (offset 4).
    Version,
    /// The total length (offset 8).
    Length,
}

impl HeaderField {
    /// The field's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            HeaderField::Version => "version",
            HeaderField::Length => "length",
        }
    }
}

/// A field of an 8-byte chunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkField {
    /// The chunk's length (the header's first four bytes).
    Length,
    /// The chunk's type (the header's last four bytes).
    Type,
}

impl ChunkField {
    /// The field's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            ChunkField::Length => "length",
            ChunkField::Type => "type",
        }
    }
}

/// Why a GLB could not be split: the first problem met under the caller's [`FirstChunk`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum GlbProblem {
    /// The file ends before this header field (it has `file` bytes, fewer than 8 or 12).
    #[error("the GLB header's {} field is cut off: the file has {file} bytes", .field.name())]
    HeaderCut {
        /// The first field the file does not hold whole.
        field: HeaderField,
        /// The file's length.
        file: usize,
    },
    /// A version other than 2.
    #[error("GLB version {0}, expected 2")]
    Version(u32),
    /// The header's total length runs past the end of the file, or (rule
    /// [`FirstChunk::InFileOrder`]) is under the header's own 12 bytes.
    #[error("the GLB header gives a length of {declared} bytes, the file has {file}")]
    Length {
        /// The length the header gives.
        declared: u32,
        /// The file's length.
        file: usize,
    },
    /// A chunk header cut by the end of the container: `field` is the first of its fields the
    /// container does not hold whole. Under [`FirstChunk::MustBeJson`] `end` may be below
    /// `offset` (a header length under 12).
    #[error("the {} field of the GLB chunk header at {offset} is cut off by the end ({end})", .field.name())]
    ChunkCut {
        /// Offset of the chunk header.
        offset: usize,
        /// The field the end cuts.
        field: ChunkField,
        /// Whether it is the first chunk's header (offset 12).
        first: bool,
        /// The end of the container (the length its header gives).
        end: usize,
    },
    /// A chunk whose data runs past the end of the container.
    #[error("the GLB chunk at {offset} ({length} bytes) runs past the end ({end})")]
    ChunkPastEnd {
        /// Offset of the chunk header (its data starts 8 bytes on).
        offset: usize,
        /// The length its header gives.
        length: u32,
        /// Its type.
        kind: u32,
        /// Whether it is the first chunk (JSON, under [`FirstChunk::MustBeJson`]).
        first: bool,
        /// The end of the container (the length its header gives).
        end: usize,
    },
    /// The first chunk is not JSON.
    #[error("the first GLB chunk has type {kind:#x}, not JSON")]
    FirstNotJson {
        /// The first chunk's type.
        kind: u32,
        /// Where the JSON chunk found later is ([`FirstChunk::InFileOrder`]); `None` when the
        /// first chunk was refused at once ([`FirstChunk::MustBeJson`]).
        json: Option<usize>,
    },
    /// No JSON chunk at all ([`FirstChunk::InFileOrder`] only).
    #[error("the GLB has no JSON chunk")]
    NoJson,
}

/// The two parts of a glTF a reader needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts<'a> {
    /// The JSON text: a GLB's JSON chunk (padding included), or a non-GLB input whole.
    pub json: &'a [u8],
    /// A GLB's first BIN chunk.
    pub bin: Option<&'a [u8]>,
}

/// Splits `bytes` into its JSON and its first BIN chunk under `rule`, trusting no length in
/// it; an input that does not start with [`MAGIC`] is taken as JSON text and comes back whole.
/// Chunk lengths are taken as given (no alignment); chunks of unknown type after the JSON
/// chunk, a second BIN chunk and a second JSON chunk are skipped.
pub fn split(bytes: &[u8], rule: FirstChunk) -> Result<Parts<'_>, GlbProblem> {
    if !bytes.starts_with(MAGIC) {
        return Ok(Parts {
            json: bytes,
            bin: None,
        });
    }
    walk(container(bytes, rule)?, rule)
}

/// The GLB cut at the length its header gives, once the header is whole, of version 2, and
/// gives a length the file holds.
fn container(bytes: &[u8], rule: FirstChunk) -> Result<&[u8], GlbProblem> {
    let file = bytes.len();
    let cut = |field| GlbProblem::HeaderCut { field, file };
    let header = header(bytes);
    let version = header.version.ok_or(cut(HeaderField::Version))?;
    if version != VERSION {
        return Err(GlbProblem::Version(version));
    }
    let declared = header.length.ok_or(cut(HeaderField::Length))?;
    let short = rule == FirstChunk::InFileOrder && (declared as usize) < FIRST;
    bytes
        .get(..declared as usize)
        .filter(|_| !short)
        .ok_or(GlbProblem::Length { declared, file })
}

/// The chunks of `data` (a GLB cut to its length) walked under `rule`.
fn walk(data: &[u8], rule: FirstChunk) -> Result<Parts<'_>, GlbProblem> {
    let end = data.len();
    let mut json = None;
    let mut bin = None;
    let mut first_kind = 0;
    for (k, step) in chunks(data, false).enumerate() {
        let first = k == 0;
        let c = match step {
            Step::Cut(offset) => return Err(cut(offset, first, end)),
            Step::Chunk(c) => c,
        };
        if first && rule == FirstChunk::MustBeJson && c.kind != CHUNK_JSON {
            let (kind, json) = (c.kind, None);
            return Err(GlbProblem::FirstNotJson { kind, json });
        }
        if !c.complete() {
            let (offset, length, kind) = (c.offset, c.length, c.kind);
            return Err(GlbProblem::ChunkPastEnd {
                offset,
                length,
                kind,
                first,
                end,
            });
        }
        if first {
            first_kind = c.kind;
        }
        match c.kind {
            CHUNK_JSON if json.is_none() && !first => {
                let (kind, json) = (first_kind, Some(c.offset));
                return Err(GlbProblem::FirstNotJson { kind, json });
            }
            CHUNK_JSON if json.is_none() => json = Some(c.data),
            CHUNK_BIN if bin.is_none() => bin = Some(c.data),
            _ => {}
        }
    }
    match (json, rule) {
        (Some(json), _) => Ok(Parts { json, bin }),
        // No chunk at all (`end` is 12 or less): the first chunk's header is what is missing.
        (None, FirstChunk::MustBeJson) => Err(cut(FIRST, true, end)),
        (None, FirstChunk::InFileOrder) => Err(GlbProblem::NoJson),
    }
}

/// The chunk header at `offset`, cut by the container's `end`.
fn cut(offset: usize, first: bool, end: usize) -> GlbProblem {
    let field = if end.saturating_sub(offset) < 4 {
        ChunkField::Length
    } else {
        ChunkField::Type
    };
    GlbProblem::ChunkCut {
        offset,
        field,
        first,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ChunkField as C;
    use FirstChunk::{InFileOrder, MustBeJson};
    use GlbProblem as P;

    const X: u32 = 0x1234_5678;

    /// A version 2 GLB header giving `length` (`None`: the whole length), then `body`.
    fn glb(length: Option<u32>, body: &[u8]) -> Vec<u8> {
        let length = length.unwrap_or(12 + body.len() as u32);
        let mut g = MAGIC.to_vec();
        g.extend_from_slice(&VERSION.to_le_bytes());
        g.extend_from_slice(&length.to_le_bytes());
        g.extend_from_slice(body);
        g
    }

    /// A chunk header giving `length` and `kind`, then `data`.
    fn chunk(length: u32, kind: u32, data: &[u8]) -> Vec<u8> {
        [&length.to_le_bytes()[..], &kind.to_le_bytes(), data].concat()
    }

    /// A whole chunk of `data`.
    fn whole(kind: u32, data: &[u8]) -> Vec<u8> {
        chunk(data.len() as u32, kind, data)
    }

    /// The split under each rule.
    fn both(g: &[u8]) -> [Result<Parts<'_>, GlbProblem>; 2] {
        [split(g, MustBeJson), split(g, InFileOrder)]
    }

    #[test]
    fn a_whole_glb_gives_its_json_and_first_bin() {
        let g = glb(
            None,
            &[whole(CHUNK_JSON, b"{}  "), whole(CHUNK_BIN, b"bin!")].concat(),
        );
        let parts = Parts {
            json: b"{}  ",
            bin: Some(b"bin!"),
        };
        assert_eq!(both(&g), [Ok(parts), Ok(parts)]);
        let g = glb(None, &whole(CHUNK_JSON, b"{}  "));
        let parts = Parts {
            json: b"{}  ",
            bin: None,
        };
        assert_eq!(both(&g), [Ok(parts), Ok(parts)]);
    }

    #[test]
    fn other_input_comes_back_whole() {
        for text in [&b"{\"asset\":{}}"[..], b"\xEF\xBB\xBF{}", b"glT", b""] {
            let parts = Parts {
                json: text,
                bin: None,
            };
            assert_eq!(both(text), [Ok(parts), Ok(parts)]);
        }
    }

    #[test]
    fn a_short_header() {
        for file in [4, 7] {
            let g = &glb(None, &[])[..file];
            let cut = P::HeaderCut {
                field: HeaderField::Version,
                file,
            };
            assert_eq!(both(g), [Err(cut), Err(cut)]);
        }
        for file in [8, 11] {
            let g = &glb(None, &[])[..file];
            let cut = P::HeaderCut {
                field: HeaderField::Length,
                file,
            };
            assert_eq!(both(g), [Err(cut), Err(cut)]);
        }
        // The version is judged before the length is missed.
        let mut g = glb(None, &[]);
        g[4] = 1;
        assert_eq!(both(&g[..10]), [Err(P::Version(1)), Err(P::Version(1))]);
    }

    #[test]
    fn another_version() {
        let mut g = glb(None, &whole(CHUNK_JSON, b"{}  "));
        g[4..8].copy_from_slice(&3u32.to_le_bytes());
        assert_eq!(both(&g), [Err(P::Version(3)), Err(P::Version(3))]);
    }

    #[test]
    fn a_length_under_12() {
        let g = glb(Some(8), &whole(CHUNK_JSON, b"{}  "));
        let cut = P::ChunkCut {
            offset: 12,
            field: C::Length,
            first: true,
            end: 8,
        };
        let length = P::Length {
            declared: 8,
            file: 24,
        };
        assert_eq!(both(&g), [Err(cut), Err(length)]);
    }

    #[test]
    fn a_length_of_the_header_alone() {
        let g = glb(Some(12), &whole(CHUNK_JSON, b"{}  "));
        let cut = P::ChunkCut {
            offset: 12,
            field: C::Length,
            first: true,
            end: 12,
        };
        assert_eq!(both(&g), [Err(cut), Err(P::NoJson)]);
    }

    #[test]
    fn a_length_past_the_file() {
        let g = glb(Some(100), &whole(CHUNK_JSON, b"{}  "));
        let length = P::Length {
            declared: 100,
            file: 24,
        };
        assert_eq!(both(&g), [Err(length), Err(length)]);
    }

    #[test]
    fn bytes_past_the_length_are_not_read() {
        let body = [whole(CHUNK_JSON, b"{}  "), vec![0xFF; 5]].concat();
        let g = glb(Some(24), &body);
        let parts = Parts {
            json: b"{}  ",
            bin: None,
        };
        assert_eq!(both(&g), [Ok(parts), Ok(parts)]);
    }

    #[test]
    fn an_unknown_first_chunk_whole() {
        let body = [whole(X, b"????"), whole(CHUNK_JSON, b"{}  ")].concat();
        let refused = P::FirstNotJson {
            kind: X,
            json: None,
        };
        let found = P::FirstNotJson {
            kind: X,
            json: Some(24),
        };
        assert_eq!(both(&glb(None, &body)), [Err(refused), Err(found)]);
        // Without a JSON chunk after it, the walk finds none; after a cut header, the cut.
        let g = glb(
            None,
            &[whole(X, b"????"), whole(CHUNK_BIN, b"bin!")].concat(),
        );
        assert_eq!(both(&g), [Err(refused), Err(P::NoJson)]);
        let g = glb(None, &[whole(X, b"????"), vec![0; 2]].concat());
        let cut = P::ChunkCut {
            offset: 24,
            field: C::Length,
            first: false,
            end: 26,
        };
        assert_eq!(both(&g), [Err(refused), Err(cut)]);
    }

    #[test]
    fn an_unknown_first_chunk_past_the_end() {
        let g = glb(None, &chunk(100, X, b"????"));
        let refused = P::FirstNotJson {
            kind: X,
            json: None,
        };
        let past = P::ChunkPastEnd {
            offset: 12,
            length: 100,
            kind: X,
            first: true,
            end: 24,
        };
        assert_eq!(both(&g), [Err(refused), Err(past)]);
    }

    #[test]
    fn a_json_chunk_after_a_bin_chunk() {
        let body = [whole(CHUNK_BIN, b"bin!"), whole(CHUNK_JSON, b"{}  ")].concat();
        let refused = P::FirstNotJson {
            kind: CHUNK_BIN,
            json: None,
        };
        let found = P::FirstNotJson {
            kind: CHUNK_BIN,
            json: Some(24),
        };
        assert_eq!(both(&glb(None, &body)), [Err(refused), Err(found)]);
    }

    #[test]
    fn no_json_chunk() {
        let g = glb(None, &whole(CHUNK_BIN, b"bin!"));
        let refused = P::FirstNotJson {
            kind: CHUNK_BIN,
            json: None,
        };
        assert_eq!(both(&g), [Err(refused), Err(P::NoJson)]);
    }

    #[test]
    fn the_first_chunk_header_cut() {
        // The length field (2 of its bytes), then the type field (2 of its bytes).
        for (end, field) in [(14, C::Length), (18, C::Type)] {
            let g = glb(Some(end), &whole(CHUNK_JSON, b"{}  "));
            let cut = P::ChunkCut {
                offset: 12,
                field,
                first: true,
                end: end as usize,
            };
            assert_eq!(both(&g), [Err(cut), Err(cut)]);
        }
        // The length field whole, the type field missing.
        let g = glb(Some(16), &whole(CHUNK_JSON, b"{}  "));
        let cut = P::ChunkCut {
            offset: 12,
            field: C::Type,
            first: true,
            end: 16,
        };
        assert_eq!(both(&g), [Err(cut), Err(cut)]);
    }

    #[test]
    fn a_later_chunk_header_cut() {
        for (extra, field) in [(2, C::Length), (4, C::Type), (6, C::Type)] {
            let g = glb(None, &[whole(CHUNK_JSON, b"{}  "), vec![0; extra]].concat());
            let cut = P::ChunkCut {
                offset: 24,
                field,
                first: false,
                end: 24 + extra,
            };
            assert_eq!(both(&g), [Err(cut), Err(cut)]);
        }
    }

    #[test]
    fn chunk_data_past_the_end() {
        let g = glb(None, &chunk(100, CHUNK_JSON, b"{}  "));
        let past = P::ChunkPastEnd {
            offset: 12,
            length: 100,
            kind: CHUNK_JSON,
            first: true,
            end: 24,
        };
        assert_eq!(both(&g), [Err(past), Err(past)]);
        let body = [whole(CHUNK_JSON, b"{}  "), chunk(100, CHUNK_BIN, b"bin!")].concat();
        let past = P::ChunkPastEnd {
            offset: 24,
            length: 100,
            kind: CHUNK_BIN,
            first: false,
            end: 36,
        };
        assert_eq!(both(&glb(None, &body)), [Err(past), Err(past)]);
        // Cut at the length the header gives, not at the file's end.
        let body = [whole(CHUNK_JSON, b"{}  "), whole(CHUNK_BIN, b"bin!")].concat();
        let past = P::ChunkPastEnd {
            offset: 24,
            length: 4,
            kind: CHUNK_BIN,
            first: false,
            end: 34,
        };
        assert_eq!(both(&glb(Some(34), &body)), [Err(past), Err(past)]);
    }

    #[test]
    fn a_second_bin_chunk_is_skipped() {
        let body = [
            whole(CHUNK_JSON, b"{}  "),
            whole(CHUNK_BIN, b"one!"),
            whole(CHUNK_BIN, b"two!"),
        ];
        let parts = Parts {
            json: b"{}  ",
            bin: Some(b"one!"),
        };
        assert_eq!(both(&glb(None, &body.concat())), [Ok(parts), Ok(parts)]);
    }

    #[test]
    fn unknown_and_repeated_chunks_after_the_json_are_skipped() {
        let body = [
            whole(CHUNK_JSON, b"{}  "),
            whole(X, b"????"),
            whole(CHUNK_BIN, b"bin!"),
            whole(X, b""),
            whole(CHUNK_JSON, b"[]  "),
        ];
        let parts = Parts {
            json: b"{}  ",
            bin: Some(b"bin!"),
        };
        assert_eq!(both(&glb(None, &body.concat())), [Ok(parts), Ok(parts)]);
    }
}
