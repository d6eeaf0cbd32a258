//! The MOD/SCM post-load as the game runs it (docs/formats.md, containers and the loader): it
//! relocates header +0x20, each object's +0x08, each mesh's stream offsets (+0x10..+0x30 in a
//! MOD, +0x10..+0x20 and the colour stream at +0x38 in an SCM) and the node block's offsets,
//! then writes each mesh's generated triangle indices into the file's own bytes, at the mesh
//! record's offset plus its relative +0x40. So every offset must land inside the member, and every workspace must
//! be there, `align16(6·(v−2))` bytes long, over nothing else. The vertex shader rebuilds three
//! weights from 5-bit fields (/31) and indexes the matrix palette with bytes 1..3 of each
//! vertex's bone indices (node × 4).
//!
//! The records are decoded by their declarations ([`Header`], [`ObjectRecord`],
//! [`MeshRecord`], [`BlockHeader`]); what the game then does with their offsets is modelled
//! here, on the raw bytes, because a file whose offsets leave it is a finding, not a read error.

use super::{workspace_len, Finding, Tally};
use crate::native::dmc3::block::BlockHeader;
use crate::native::dmc3::block::BlockRels;
use crate::native::dmc3::container::{
    Header, MeshRecord, MeshVariant, ObjectRecord, StreamKind, DECODE_BUDGET_FACTOR, HEADER_LEN,
    MESH_LEN, OBJECT_LEN,
};
use crate::native::record::{Ctx, Evidence};

/// What a model's rules need from around it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModelContext {
    /// The texture count of the PTX the model is drawn with (its archive's, or one given on
    /// the command line); `None`: texture slots are not checked.
    pub textures: Option<usize>,
}

/// Every finding of the game's post-load on a MOD or SCM member `data` (which starts with its
/// magic). Empty for a file the game loads as retail files are loaded.
pub fn model_findings(data: &[u8], cx: ModelContext) -> Vec<Finding> {
    let mut m = Model {
        data,
        len: data.len() as u64,
        cx,
        out: Vec::new(),
        spans: Vec::new(),
        workspaces: Vec::new(),
        records: Vec::new(),
        budget: DECODE_BUDGET_FACTOR.saturating_mul(data.len() as u64),
    };
    if let Some(header) = m.header() {
        m.objects(&header);
        m.block(&header);
        m.workspaces();
    }
    m.out
}

/// The node count a MOD/SCM member's header gives (+0x11), when it has a whole header.
pub fn model_nodes(data: &[u8]) -> Option<u8> {
    let head: &[u8; Header::LEN] = data.get(..Header::LEN)?.try_into().ok()?;
    Header::decode(head, Ctx::default())
        .ok()
        .map(|(h, _)| h.bone_count)
}

/// A structure the game reads (or a workspace it writes), for the overlap check.
#[derive(Debug, Clone)]
struct Span {
    start: u64,
    end: u64,
    what: String,
}

/// One mesh's workspace: where its record is, the relative +0x40, its vertex count.
#[derive(Debug, Clone)]
struct Workspace {
    place: String,
    record: u64,
    rel: u64,
    vertices: u16,
}

/// The walk over one model.
struct Model<'a> {
    data: &'a [u8],
    len: u64,
    cx: ModelContext,
    out: Vec<Finding>,
    spans: Vec<Span>,
    workspaces: Vec<Workspace>,
    /// Each object's mesh records read so far: (start, end, object).
    records: Vec<(u64, u64, u8)>,
    /// Stream bytes the influence check may still read (a hostile file naming the same bytes
    /// from many meshes must not make the check take longer than reading it a few times).
    budget: u64,
}

/// The field of a mesh record that names a stream of `kind`.
fn stream_field(kind: StreamKind) -> &'static str {
    match kind {
        StreamKind::Positions => "+0x10 positions offset",
        StreamKind::Normals => "+0x18 normals offset",
        StreamKind::Uvs => "+0x20 UV offset",
        StreamKind::BoneIndices => "+0x28 bone-index offset",
        StreamKind::Weights => "+0x30 weight offset",
        StreamKind::Colours => "+0x38 colour offset",
    }
}

impl<'a> Model<'a> {
    /// The bytes `start..start + len`, when they lie inside the member.
    fn slice(&self, start: u64, len: u64) -> Option<&'a [u8]> {
        let end = start.checked_add(len)?;
        let data: &'a [u8] = self.data;
        data.get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }

    fn stops(&mut self, place: impl Into<String>, field: &str, problem: String) {
        self.out.push(Finding::stops(
            place,
            field,
            problem,
            Evidence::ExeConfirmed,
        ));
    }

    fn claim(&mut self, start: u64, len: u64, what: impl Into<String>) {
        self.spans.push(Span {
            start,
            end: start.saturating_add(len),
            what: what.into(),
        });
    }

    /// The header, decoded; `None` (with a finding) when the member is shorter than it.
    fn header(&mut self) -> Option<Header> {
        let Some(head) = self.slice(0, HEADER_LEN) else {
            let len = self.len;
            self.stops(
                "header",
                "+0x00..+0x40",
                format!("the member is {len} bytes, shorter than the 0x40-byte header"),
            );
            return None;
        };
        let head: &[u8; Header::LEN] = head.try_into().ok()?;
        let (header, _) = Header::decode(head, Ctx::default()).ok()?;
        self.claim(0, HEADER_LEN, "the header");
        Some(header)
    }

    /// Each object record and its meshes.
    fn objects(&mut self, h: &Header) {
        let count = self.data.get(0x10).copied().unwrap_or(0);
        let ctx = Ctx {
            container: Some(h.magic),
        };
        for i in 0..count {
            let at = HEADER_LEN + u64::from(i) * OBJECT_LEN;
            let Some(rec) = self.slice(at, OBJECT_LEN) else {
                let len = self.len;
                self.stops(
                    format!("object {i}"),
                    "header +0x10 object count",
                    format!(
                        "{count} objects, but object record {i} at {at:#x} runs past the end \
                         of the member ({len:#x} bytes)"
                    ),
                );
                return;
            };
            let Some((record, c)) = rec
                .try_into()
                .ok()
                .and_then(|r| ObjectRecord::decode(r, ctx).ok())
            else {
                return;
            };
            self.claim(at, OBJECT_LEN, format!("object record {i}"));
            self.meshes(h, i, &record, c.mesh_count);
        }
    }

    /// Object `i`'s `count` mesh records (at its +0x08) and what each names.
    fn meshes(&mut self, h: &Header, i: u8, obj: &ObjectRecord, count: u8) {
        let first = obj.mesh_offset;
        let bytes = u64::from(count) * MESH_LEN;
        // An object without meshes has its offset relocated but never read.
        if count == 0 {
            return;
        }
        let Some(records) = self.slice(first, bytes) else {
            let len = self.len;
            self.stops(
                format!("object {i}"),
                "+0x08 mesh offset",
                format!(
                    "points at {first:#x}, but its {count} mesh record(s) ({bytes:#x} bytes) run \
                     past the end of the member ({len:#x}): the game relocates the offset and \
                     reads whatever lies there as meshes"
                ),
            );
            return;
        };
        if self.shared_records(i, first, first + bytes) {
            return;
        }
        self.claim(first, bytes, format!("object {i}'s mesh records"));
        let ctx = Ctx {
            container: Some(h.magic),
        };
        let mut sum = 0u32;
        for (j, rec) in (0..=u8::MAX).zip(records.chunks_exact(MeshRecord::LEN)) {
            let Some((record, c)) = rec
                .try_into()
                .ok()
                .and_then(|r| MeshRecord::decode(r, ctx).ok())
            else {
                continue;
            };
            sum += u32::from(c.vertex_count);
            let at = first + u64::from(j) * MESH_LEN;
            self.mesh(h, (i, j), at, &record, c.vertex_count);
        }
        if sum != u32::from(obj.vertex_count) {
            self.out.push(Finding::note(
                format!("object {i}"),
                "+0x02 vertex count",
                format!(
                    "says {}, but its meshes hold {sum} vertices: every retail object holds \
                     the sum",
                    obj.vertex_count
                ),
                Evidence::CorpusConfirmed,
            ));
        }
    }

    /// Whether object `i`'s mesh records `start..end` overlap an earlier object's (a finding):
    /// the game relocates a record's offsets once for each object that names it, so the second
    /// time they point nowhere. Their meshes are not read again (which also keeps the work
    /// bound by the member's size).
    fn shared_records(&mut self, i: u8, start: u64, end: u64) -> bool {
        let earlier = self
            .records
            .iter()
            .find(|r| start < r.1 && r.0 < end)
            .copied();
        self.records.push((start, end, i));
        let Some((s, e, k)) = earlier else {
            return false;
        };
        self.stops(
            format!("object {i}"),
            "+0x08 mesh offset",
            format!(
                "its mesh records ({start:#x}..{end:#x}) overlap object {k}'s ({s:#x}..{e:#x}): \
                 the game relocates their offsets once for each object, so the second time \
                 they point nowhere"
            ),
        );
        true
    }

    /// Mesh `j` of object `i`, its record at `at`.
    fn mesh(&mut self, h: &Header, (i, j): (u8, u8), at: u64, rec: &MeshRecord, vertices: u16) {
        let place = format!("object {i} mesh {j}");
        let mut streams = [None, None];
        for (kind, off) in rec.streams() {
            let got = self.stream(&place, kind, off, vertices);
            match kind {
                StreamKind::BoneIndices => streams[0] = got,
                StreamKind::Weights => streams[1] = got,
                _ => {}
            }
        }
        self.texture_slot(&place, rec.texture_index);
        self.workspaces.push(Workspace {
            place: place.clone(),
            record: at,
            rel: rec.workspace_offset,
            vertices,
        });
        let written = rec.index_count;
        if written != 0 {
            self.out.push(Finding::note(
                place.clone(),
                "+0x48 generated index count",
                format!(
                    "holds {written}: the game writes the count of the indices it generates \
                     here at load; every retail file holds 0 on disk"
                ),
                Evidence::ExeConfirmed,
            ));
        }
        if let (MeshVariant::Mod(_), [Some(bones), Some(weights)]) = (&rec.variant, streams) {
            self.influences(&place, bones, weights, h.bone_count);
        }
    }

    /// The `kind` stream of `vertices` entries at `off`: inside the member, or a finding.
    fn stream(
        &mut self,
        place: &str,
        kind: StreamKind,
        off: u64,
        vertices: u16,
    ) -> Option<&'a [u8]> {
        let len = u64::from(vertices) * kind.stride();
        // An empty stream's offset is relocated but never read.
        if len == 0 {
            return None;
        }
        let Some(bytes) = self.slice(off, len) else {
            let size = self.len;
            self.stops(
                place,
                stream_field(kind),
                format!(
                    "points at {off:#x}, but the {} of {vertices} vertices ({len:#x} bytes) runs \
                     past the end of the member ({size:#x}): the game relocates the offset and \
                     reads whatever lies there",
                    kind.name()
                ),
            );
            return None;
        };
        self.claim(off, len, format!("{place}'s {}", kind.name()));
        Some(bytes)
    }

    /// A texture slot below the PTX's count, when the PTX is known.
    fn texture_slot(&mut self, place: &str, slot: u16) {
        let Some(count) = self.cx.textures else {
            return;
        };
        if usize::from(slot) >= count {
            self.stops(
                place,
                "+0x02 texture slot",
                format!(
                    "{slot}, but the PTX holds {count} texture(s): the game takes a texture \
                     pointer from past the end of the bundle's list"
                ),
            );
        }
    }
}

impl Model<'_> {
    /// The bone lanes and 5-bit weights of one MOD mesh, as the vertex shader reads them.
    fn influences(&mut self, place: &str, bones: &[u8], weights: &[u8], nodes: u8) {
        let cost = (bones.len() + weights.len()) as u64;
        if cost > self.budget {
            self.out.push(Finding::note(
                place,
                "bone-index and weight streams",
                "not checked: the meshes before it name more stream bytes than 8 times the \
                 member holds"
                    .to_string(),
                Evidence::ExeConfirmed,
            ));
            return;
        }
        self.budget -= cost;
        let palette = 4 * u32::from(nodes);
        let mut tallies: [Tally; 4] = Default::default();
        let total = weights.len() / 2;
        for (k, (b, w)) in bones
            .chunks_exact(4)
            .zip(weights.chunks_exact(2))
            .enumerate()
        {
            vertex(
                &mut tallies,
                k,
                b,
                u16::from_le_bytes([w[0], w[1]]),
                palette,
            );
        }
        self.influence_findings(place, total, palette, tallies);
    }

    fn influence_findings(&mut self, place: &str, total: usize, palette: u32, t: [Tally; 4]) {
        let [sums, lanes, idle, fourth] = t;
        if let Some(s) = sums.said(total, "vertices") {
            self.stops(
                place,
                "weight stream (5-bit weights)",
                format!(
                    "{s} have weights that do not sum to 31: the vertex shader takes each as \
                     /31, so such a vertex is drawn scaled toward the model's origin"
                ),
            );
        }
        if let Some(s) = lanes.said(total, "vertices") {
            self.stops(
                place,
                "bone-index stream (bytes 1..3)",
                format!(
                    "{s} weight a lane that is no node index × 4 below 4·N = {palette}: the \
                     shader reads a matrix from outside the model's palette"
                ),
            );
        }
        if let Some(s) = idle.said(total, "vertices") {
            self.out.push(Finding::note(
                place,
                "bone-index stream (bytes 1..3)",
                format!(
                    "{s} hold a lane that is no node index × 4 below 4·N = {palette}, with \
                     weight 0: the shader still reads that matrix, the weight cancels it"
                ),
                Evidence::ExeConfirmed,
            ));
        }
        if let Some(s) = fourth.said(total, "vertices") {
            self.out.push(Finding::note(
                place,
                "bone-index stream (byte 0)",
                format!(
                    "{s} hold a non-zero byte 0: no shader reads it (at most three influences \
                     exist), and every retail vertex holds 0"
                ),
                Evidence::ExeConfirmed,
            ));
        }
    }
}

/// Vertex `k`'s bone bytes `b` and weight word `w` into the tallies of weight sums other than
/// 31, weighted lanes outside the palette, unweighted ones, and non-zero bytes 0 (each vertex
/// counted once per tally).
fn vertex(t: &mut [Tally; 4], k: usize, b: &[u8], w: u16, palette: u32) {
    let q = [w & 31, (w >> 5) & 31, (w >> 10) & 31];
    let sum = q[0] + q[1] + q[2];
    if sum != 31 {
        t[0].add(k, || format!("{} + {} + {} = {sum}", q[0], q[1], q[2]));
    }
    let mut first: [Option<(usize, u8, u16)>; 2] = [None, None];
    for (lane, (&x, &weight)) in b.iter().skip(1).zip(&q).enumerate() {
        let slot = &mut first[usize::from(weight == 0)];
        if (x % 4 != 0 || u32::from(x) >= palette) && slot.is_none() {
            *slot = Some((lane + 1, x, weight));
        }
    }
    for (tally, hit) in t[1..3].iter_mut().zip(first) {
        if let Some((byte, x, weight)) = hit {
            tally.add(k, || format!("byte {byte} = {x}, weight {weight}/31"));
        }
    }
    if let Some(&b0) = b.first().filter(|&&b0| b0 != 0) {
        t[3].add(k, || format!("byte 0 = {b0}"));
    }
}

impl Model<'_> {
    /// The node-domain block header +0x20 names: its offsets inside the member, room in its
    /// arrays for the header's node count, node indices below it.
    fn block(&mut self, h: &Header) {
        if !h.has_block() {
            return;
        }
        let (base, n) = (h.block_offset, u64::from(h.bone_count));
        let Some(head) = self
            .slice(base, 0x20)
            .and_then(|b| <&[u8; BlockHeader::LEN]>::try_from(b).ok())
        else {
            let len = self.len;
            self.stops(
                "node block",
                "header +0x20 block offset",
                format!(
                    "points at {base:#x}, but the 0x20-byte block header runs past the end of \
                     the member ({len:#x}): the game relocates it and reads whatever lies there"
                ),
            );
            return;
        };
        let Ok(bh) = BlockHeader::decode(head, Ctx::default()) else {
            return;
        };
        self.claim(base, 0x20, "the node block header");
        let r = bh.rels;
        let arrays = [
            ("+0x00 parent_rel", "parent array", r.parent, n),
            ("+0x04 order_rel", "order array", r.order, n),
            ("+0x08 group_rel", "group array", r.group, n),
            (
                "+0x0C transform_rel",
                "transform records",
                r.transform,
                0x20 * n,
            ),
        ];
        let mut placed = Vec::with_capacity(4);
        for (field, what, rel, len) in arrays {
            let start = base.saturating_add(u64::from(rel));
            if self.slice(start, len).is_none() {
                let size = self.len;
                self.stops(
                    "node block",
                    field,
                    format!(
                        "{rel:#x} from the block: its {what} for {n} nodes, {len:#x} bytes at \
                         {start:#x}, would end past the end of the member ({size:#x})"
                    ),
                );
                continue;
            }
            placed.push(Span {
                start,
                end: start + len,
                what: what.to_string(),
            });
        }
        self.block_room(h.bone_count, &placed, r);
        self.node_indices(h.bone_count, base, r);
        self.spans.extend(placed);
    }

    /// The header's node count against the room the block's arrays have.
    fn block_room(&mut self, n: u8, placed: &[Span], r: BlockRels) {
        for (k, a) in placed.iter().enumerate() {
            if let Some(b) = placed[k + 1..]
                .iter()
                .find(|b| a.start < b.end && b.start < a.end)
            {
                self.stops(
                    "node block",
                    "header +0x11 node count",
                    format!(
                        "{n} nodes, but then the block's {} ({:#x}..{:#x}) and its {} \
                         ({:#x}..{:#x}) overlap: the block was laid out for fewer nodes, and \
                         the game reads {n} entries of each",
                        a.what, a.start, a.end, b.what, b.start, b.end
                    ),
                );
                return;
            }
        }
        // A block in the canonical placement for another count says how many nodes it holds.
        let spacing = u64::from(r.order).wrapping_sub(u64::from(r.parent));
        let canonical = r.parent == 0x20
            && spacing <= 0x100
            && u64::from(r.group).wrapping_sub(u64::from(r.order)) == spacing
            && u64::from(r.transform) == crate::bytes::align(0x20 + 3 * spacing, 16);
        if canonical && spacing != crate::bytes::align(u64::from(n), 4) {
            self.out.push(Finding::note(
                "node block",
                "header +0x11 node count",
                format!(
                    "{n} nodes, but the block's arrays are {spacing:#x} bytes apart: the \
                     canonical placement of {} to {spacing} nodes",
                    spacing.saturating_sub(3).max(1)
                ),
                Evidence::ExeConfirmed,
            ));
        }
    }

    /// Order entries below N and parents below N (or 0xFF, the root), as the game indexes its
    /// N-entry joint tables with them.
    fn node_indices(&mut self, n: u8, base: u64, r: BlockRels) {
        let at = |rel: u32| base.saturating_add(u64::from(rel));
        let order = self.slice(at(r.order), u64::from(n)).unwrap_or_default();
        let parent = self.slice(at(r.parent), u64::from(n)).unwrap_or_default();
        let bad_order = order.iter().enumerate().find(|(_, &x)| x >= n);
        let bad_parent = parent
            .iter()
            .enumerate()
            .find(|(_, &x)| x != 0xFF && x >= n);
        if let Some((p, x)) = bad_order {
            self.stops(
                "node block",
                "order array",
                format!(
                    "order position {p} holds node {x}, but there are {n} nodes: the game \
                     indexes its {n}-entry joint tables with it"
                ),
            );
        }
        if let Some((p, x)) = bad_parent {
            self.stops(
                "node block",
                "parent array",
                format!(
                    "order position {p} names parent {x}, but there are {n} nodes: the game \
                     indexes its {n}-entry joint tables with it"
                ),
            );
        }
    }
}

impl Model<'_> {
    /// Every workspace: present, inside the member, over nothing the game reads and over no
    /// other workspace.
    fn workspaces(&mut self) {
        let mut spans = std::mem::take(&mut self.spans);
        spans.sort_by_key(|s| (s.start, s.end));
        // For each prefix of the sorted spans, the one reaching furthest: the one a range
        // starting before some point can overlap, found in O(log n).
        let mut reach: Vec<usize> = Vec::with_capacity(spans.len());
        for (k, s) in spans.iter().enumerate() {
            let best = match reach.last() {
                Some(&b) if spans[b].end >= s.end => b,
                _ => k,
            };
            reach.push(best);
        }
        let mut placed: Vec<Span> = Vec::new();
        for ws in std::mem::take(&mut self.workspaces) {
            if let Some(span) = self.workspace(&ws, &spans, &reach) {
                placed.push(span);
            }
        }
        self.workspace_overlaps(placed);
    }

    /// One workspace against the member and the structures; its range when it passes.
    fn workspace(&mut self, ws: &Workspace, spans: &[Span], reach: &[usize]) -> Option<Span> {
        let need = workspace_len(ws.vertices);
        if need == 0 {
            return None;
        }
        let field = "+0x40 index workspace offset";
        let v = ws.vertices;
        let writes = format!(
            "the game writes up to {need:#x} bytes of indices there (align16(6·({v} − 2)))"
        );
        if ws.rel == 0 {
            self.stops(
                &ws.place,
                field,
                format!("0: no workspace, so {writes}, over the mesh record itself"),
            );
            return None;
        }
        let start = ws.record.wrapping_add(ws.rel);
        let end = start.checked_add(need).filter(|&e| e <= self.len);
        let Some(end) = end else {
            let len = self.len;
            self.stops(
                &ws.place,
                field,
                format!(
                    "{:#x} from the record at {:#x}: {writes}, at {start:#x}, past the end of \
                     the member ({len:#x})",
                    ws.rel, ws.record
                ),
            );
            return None;
        };
        let before = spans.partition_point(|s| s.start < end);
        let hit = before
            .checked_sub(1)
            .and_then(|k| reach.get(k))
            .and_then(|&b| spans.get(b))
            .filter(|s| s.end > start);
        if let Some(s) = hit {
            self.stops(
                &ws.place,
                field,
                format!(
                    "{:#x} from the record at {:#x}: {writes}, at {start:#x}..{end:#x}, over \
                     {} ({:#x}..{:#x})",
                    ws.rel, ws.record, s.what, s.start, s.end
                ),
            );
            return None;
        }
        Some(Span {
            start,
            end,
            what: ws.place.clone(),
        })
    }

    /// Workspaces that pass on their own but overlap each other: the later mesh's indices
    /// overwrite the earlier's (or its own), named once, at the one that starts later.
    fn workspace_overlaps(&mut self, mut placed: Vec<Span>) {
        placed.sort_by_key(|s| (s.start, s.end));
        let mut furthest: Option<usize> = None;
        for k in 0..placed.len() {
            if let Some(f) = furthest.filter(|&f| placed[f].end > placed[k].start) {
                let (a, b) = (&placed[f], &placed[k]);
                let problem = format!(
                    "the workspace at {:#x}..{:#x} overlaps {}'s at {:#x}..{:#x}: the game \
                     writes both meshes' indices into the same bytes",
                    b.start, b.end, a.what, a.start, a.end
                );
                let place = b.what.clone();
                self.stops(place, "+0x40 index workspace offset", problem);
            }
            if furthest.is_none_or(|f| placed[f].end < placed[k].end) {
                furthest = Some(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_member_is_named_by_its_header() {
        let f = model_findings(b"MOD \0\0\0\0", ModelContext::default());
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].place.as_str(), f[0].field.as_str()),
            ("header", "+0x00..+0x40")
        );
        assert_eq!(model_nodes(b"MOD "), None);
    }
}
