//! The GLB container, both ways, and the only place that knows its bytes: writing a JSON chunk
//! and a BIN chunk into a GLB, and reading a GLB's header and chunks without trusting any
//! length in it. What a reader makes of a malformed container is its own to say (the linter
//! reports and goes on, import and gait stop): this module gives the facts, and the strict
//! split of a GLB into its JSON and BIN chunks for the readers that stop ([`split()`], under
//! each reader's [`FirstChunk`] rule).

mod split;
pub use split::{split, ChunkField, FirstChunk, GlbProblem, HeaderField, Parts};

/// The first four bytes of every GLB.
pub const MAGIC: &[u8; 4] = b"glTF";
/// The container version of glTF 2.0.
pub const VERSION: u32 = 2;
/// Chunk type of the JSON chunk (`JSON`).
pub const CHUNK_JSON: u32 = 0x4E4F_534A;
/// Chunk type of the binary chunk (`BIN\0`).
pub const CHUNK_BIN: u32 = 0x004E_4942;

/// Why a document could not be written.
#[derive(Debug, thiserror::Error)]
pub enum GlbError {
    /// The JSON holds a value its model marks invalid, which has no JSON form.
    #[error("the glTF JSON cannot be serialised")]
    Json(#[source] serde_json::Error),
    /// The container would be longer than its 32-bit length fields can say.
    #[error("the GLB would exceed 4 GiB")]
    TooLarge,
}

/// A GLB: 12-byte header, the JSON chunk that `json` writes straight into the output (padded
/// with spaces; `json_guess` bytes are reserved for it), and the BIN chunk padded with zeros,
/// omitted when `bin` is empty.
pub fn write(
    json_guess: usize,
    json: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
    bin: &[u8],
) -> Result<Vec<u8>, GlbError> {
    let bin_pad = bin.len().next_multiple_of(4) - bin.len();
    let bin_chunk = if bin.is_empty() {
        0
    } else {
        8 + bin.len() + bin_pad
    };
    let mut out = Vec::new();
    // A guess too large for memory only costs regrowth.
    let _ = out.try_reserve_exact(json_guess.saturating_add(20 + 3 + bin_chunk));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // total length, below
    out.extend_from_slice(&[0; 4]); // JSON chunk length, below
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    json(&mut out).map_err(GlbError::Json)?;
    while !out.len().is_multiple_of(4) {
        out.push(b' ');
    }
    let json_len = u32::try_from(out.len() - 20).map_err(|_| GlbError::TooLarge)?;
    let total = u32::try_from(out.len() + bin_chunk).map_err(|_| GlbError::TooLarge)?;
    if !bin.is_empty() {
        out.reserve_exact(bin_chunk);
        // `total` fits in 32 bits, so does the BIN chunk's length.
        out.extend_from_slice(&((bin.len() + bin_pad) as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(out.len() + bin_pad, 0);
    }
    if let Some(h) = out.get_mut(8..16) {
        h[..4].copy_from_slice(&total.to_le_bytes());
        h[4..].copy_from_slice(&json_len.to_le_bytes());
    }
    Ok(out)
}

/// The GLB header's fields, as far as the input holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The container version (offset 4), when the input has 8 bytes.
    pub version: Option<u32>,
    /// The total length the header gives (offset 8), when the input has 12 bytes.
    pub length: Option<u32>,
}

/// The little-endian u32 at `at`, when all four bytes are there.
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Reads the header of a GLB (an input that starts with [`MAGIC`]).
pub fn header(input: &[u8]) -> Header {
    Header {
        version: u32_at(input, 4),
        length: u32_at(input, 8),
    }
}

/// One chunk as its header declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// Offset of its 8-byte header.
    pub offset: usize,
    /// The length its header gives.
    pub length: u32,
    /// Its type.
    pub kind: u32,
    /// Its data, cut at the end of the container when the length runs past it.
    pub data: &'a [u8],
}

impl Chunk<'_> {
    /// Whether all `length` bytes of the data are there.
    pub fn complete(&self) -> bool {
        self.data.len() == self.length as usize
    }
}

/// What the walk over the chunks finds next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// A chunk (check [`Chunk::complete`]).
    Chunk(Chunk<'a>),
    /// Fewer than 8 bytes, too few for a chunk header, at this offset before the end.
    Cut(usize),
}

/// The chunks of `data` (a GLB cut to the length it may use) from offset 12 on. The walk ends
/// after a cut header or a chunk running past the end. `align` starts each chunk at the next
/// multiple of 4, as writers must pad (the linter reads that way; import and gait take lengths
/// as given).
pub fn chunks(data: &[u8], align: bool) -> impl Iterator<Item = Step<'_>> {
    let mut at = Some(12usize);
    std::iter::from_fn(move || {
        let offset = at.filter(|&a| a < data.len())?;
        let (Some(length), Some(kind)) = (u32_at(data, offset), u32_at(data, offset + 4)) else {
            at = None;
            return Some(Step::Cut(offset));
        };
        let start = offset + 8;
        let stop = start.saturating_add(length as usize).min(data.len());
        let chunk = Chunk {
            offset,
            length,
            kind,
            data: data.get(start..stop).unwrap_or(&[]),
        };
        at = if !chunk.complete() {
            None
        } else if align {
            Some(stop.saturating_add(3) & !3)
        } else {
            Some(stop)
        };
        Some(Step::Chunk(chunk))
    })
}
