//! `inspect --coverage`: every byte of a file accounted for, field by field, with the evidence
//! class its record declaration gives (`docs/formats.md`).
//!
//! A byte is a decoded field (we know what it means, from the executable, the layout or public
//! tools), a preserved field (its place is known, its meaning is not: carried unchanged), or an
//! undecoded range (gaps, padding, trailing bytes). The entries are disjoint and sum to the
//! file size; that is what makes the totals an honest measure of how much of a format is
//! understood.

use serde::Serialize;
use std::collections::BTreeSet;

use crate::native::dmc3::motion::{
    KeyF32, KeyF32Hermite, KeyU16, KeyU16Hermite, Mot, MotHeader, TangentRanges, TrackHead,
};
use crate::native::dmc3::pac::{MemberKind, Pac};
use crate::native::dmc3::shadow::Shw;
use crate::native::dmc3::texture::{self, DdsHeader, Descriptor, Ptx, Texture};
use crate::native::dmc3::{
    self, BlockHeader, Dmc3File, Header, MeshRecord, NodeBlock, NodeTransform, ObjectRecord,
    StreamKind,
};
use crate::native::hie::{self, HieFile, Part};
use crate::native::record::{self, FieldDef};
use crate::native::{MotionFile, NativeFile};

pub use crate::native::record::{Evidence, Kind};

/// One byte range of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// The field, e.g. `slot 3 hierarchy part 2 offset[0]`.
    pub what: String,
    /// The record type it belongs to (`part`, `mesh record`, `gap`...): what the text view
    /// merges by.
    pub record: &'static str,
    /// Decoded, preserved or undecoded.
    pub kind: Kind,
    /// Evidence class.
    pub evidence: Evidence,
}

/// Bytes per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct KindTotals {
    /// Decoded bytes.
    pub decoded: u64,
    /// Preserved bytes.
    pub preserved: u64,
    /// Undecoded bytes.
    pub undecoded: u64,
}

/// Bytes per evidence class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct EvidenceTotals {
    /// EXE_CONFIRMED bytes.
    #[serde(rename = "EXE_CONFIRMED")]
    pub exe_confirmed: u64,
    /// STRUCTURAL_CONFIRMED bytes.
    #[serde(rename = "STRUCTURAL_CONFIRMED")]
    pub structural_confirmed: u64,
    /// CORPUS_CONFIRMED bytes.
    #[serde(rename = "CORPUS_CONFIRMED")]
    pub corpus_confirmed: u64,
    /// COMMUNITY bytes.
    #[serde(rename = "COMMUNITY")]
    pub community: u64,
    /// PRESERVED_UNDECODED bytes.
    #[serde(rename = "PRESERVED_UNDECODED")]
    pub preserved_undecoded: u64,
}

/// Byte totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Per kind.
    pub by_kind: KindTotals,
    /// Per evidence class.
    pub by_evidence: EvidenceTotals,
}

/// The coverage map of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// `hie`, `mod`, `scm` or `block`.
    pub format: &'static str,
    /// File size in bytes; the entries sum to it (`bytes` in JSON, as in every command's).
    #[serde(rename = "bytes")]
    pub size: u64,
    /// Disjoint ranges in file order, covering every byte.
    pub entries: Vec<Entry>,
    /// Byte totals per kind and per class.
    pub totals: Totals,
    /// Places where the structure and the bytes disagree (only for a structure that was not
    /// read from these bytes); empty for a file as read.
    pub notes: Vec<String>,
}

/// Collects field claims before they are sorted and checked against the file.
#[derive(Default)]
struct Claims(Vec<Entry>);

impl Claims {
    fn add(
        &mut self,
        start: u64,
        len: u64,
        what: String,
        record: &'static str,
        kind: Kind,
        evidence: Evidence,
    ) {
        if len > 0 {
            self.0.push(Entry {
                start,
                end: start.saturating_add(len),
                what,
                record,
                kind,
                evidence,
            });
        }
    }

    /// The declared fields of one record at `base`, each named `{prefix} {name}`. A field
    /// that is a record is listed by its own fields (for one of several, the one `variant`
    /// names); a name ending in `[]` is listed per element.
    fn record(
        &mut self,
        base: u64,
        prefix: &str,
        record: &'static str,
        fields: &[FieldDef],
        variant: Option<&str>,
    ) {
        for f in fields {
            let at = base.saturating_add(f.offset);
            if !f.variants.is_empty() {
                let pick = f
                    .variants
                    .iter()
                    .find(|(name, _)| *name == record::NESTED || Some(*name) == variant);
                if let Some((_, sub)) = pick {
                    self.record(at, prefix, record, sub, variant);
                    continue;
                }
            }
            match f.name.strip_suffix("[]") {
                Some(stem) if f.elements > 1 => {
                    let each = f.len / f.elements;
                    for k in 0..f.elements {
                        self.add(
                            at.saturating_add(k * each),
                            each,
                            format!("{prefix} {stem}[{k}]"),
                            record,
                            f.kind,
                            f.evidence,
                        );
                    }
                }
                _ => self.add(
                    at,
                    f.len,
                    format!("{prefix} {}", f.name),
                    record,
                    f.kind,
                    f.evidence,
                ),
            }
        }
    }

    /// Fields laid out in code (variable-length areas): (rel offset, len, name, kind, class).
    fn fields(
        &mut self,
        base: u64,
        prefix: &str,
        record: &'static str,
        fields: &[(u64, u64, &str, Kind, Evidence)],
    ) {
        for &(rel, len, name, kind, ev) in fields {
            self.add(
                base.saturating_add(rel),
                len,
                format!("{prefix} {name}"),
                record,
                kind,
                ev,
            );
        }
    }

    /// Another structure's claims placed at `base` (a member's offset), names prefixed.
    fn shifted(&mut self, sub: Claims, base: u64, prefix: &str) {
        for mut e in sub.0 {
            e.start = e.start.saturating_add(base);
            e.end = e.end.saturating_add(base);
            e.what = format!("{prefix}{}", e.what);
            self.0.push(e);
        }
    }

    fn gaps(&mut self, gaps: &[crate::bytes::Gap], size: u64) {
        for g in gaps {
            let what = if g.end() == size {
                "trailing bytes"
            } else {
                "gap"
            };
            self.gap(g.offset, g.bytes.len(), what.into());
        }
    }

    /// `len` bytes at `start` that no record decodes and that are kept as they are (padding,
    /// tails, gaps between structures), named `what`.
    fn gap(&mut self, start: u64, len: usize, what: String) {
        self.add(
            start,
            len as u64,
            what,
            "gap",
            Kind::Undecoded,
            Evidence::PreservedUndecoded,
        );
    }
}

use Evidence::{
    Community as COMM, CorpusConfirmed as CORPUS, ExeConfirmed as EXE, PreservedUndecoded as PU,
    StructuralConfirmed as STRUCT,
};
use Kind::{Decoded as D, Preserved as P};

/// The coverage map of `file`, which was read from `data`. Every byte of `data` lands in exactly
/// one entry; bytes the structure does not account for (only possible when `file` was not read
/// from `data`) become undecoded entries and a note.
pub fn coverage(file: &NativeFile, data: &[u8]) -> Coverage {
    let size = data.len() as u64;
    let mut c = Claims::default();
    match file {
        NativeFile::Hie(h) => hie_claims(&mut c, h, size),
        NativeFile::Dmc3(d) => dmc3_claims(&mut c, d, size),
    }
    finish(file.kind(), c, size)
}

/// The coverage map of a motion file read from `data` (see [`coverage`]).
pub fn motion_coverage(file: &MotionFile, data: &[u8]) -> Coverage {
    let size = data.len() as u64;
    let mut c = Claims::default();
    match file {
        MotionFile::Mot(m) => mot_claims(&mut c, m, 0, ""),
        MotionFile::Pac(p) => pac_claims(&mut c, p),
        MotionFile::Ptx(p) => ptx_claims(&mut c, p, 0, ""),
        MotionFile::Tm2(t) => texture_claims(&mut c, t, 0, ""),
    }
    finish(file.kind(), c, size)
}

fn finish(format: &'static str, c: Claims, size: u64) -> Coverage {
    let (entries, notes) = settle(c.0, size);
    let mut totals = Totals::default();
    for e in &entries {
        let n = e.end - e.start;
        match e.kind {
            Kind::Decoded => totals.by_kind.decoded += n,
            Kind::Preserved => totals.by_kind.preserved += n,
            Kind::Undecoded => totals.by_kind.undecoded += n,
        }
        let t = &mut totals.by_evidence;
        match e.evidence {
            Evidence::ExeConfirmed => t.exe_confirmed += n,
            Evidence::StructuralConfirmed => t.structural_confirmed += n,
            Evidence::CorpusConfirmed => t.corpus_confirmed += n,
            Evidence::Community => t.community += n,
            Evidence::PreservedUndecoded => t.preserved_undecoded += n,
        }
    }
    Coverage {
        format,
        size,
        entries,
        totals,
        notes,
    }
}

/// Sorts the claims and makes them a partition of `0..size`: holes become undecoded entries,
/// overlapping or out-of-range parts are cut, each with a note.
fn settle(mut claims: Vec<Entry>, size: u64) -> (Vec<Entry>, Vec<String>) {
    claims.sort_by_key(|e| (e.start, e.end));
    let mut out = Vec::with_capacity(claims.len() + 1);
    let mut notes = Vec::new();
    let mut pos = 0u64;
    let hole = |start: u64, end: u64| Entry {
        start,
        end,
        what: "bytes no structure accounts for".into(),
        record: "gap",
        kind: Kind::Undecoded,
        evidence: Evidence::PreservedUndecoded,
    };
    for mut e in claims {
        if e.start > pos && pos < size {
            let end = e.start.min(size);
            notes.push(format!(
                "{pos:#x}..{end:#x}: no structure claims these bytes"
            ));
            out.push(hole(pos, end));
            pos = end;
        }
        let problem = if e.start >= size {
            Some("lies past the end of the file; left out")
        } else if e.start < pos {
            Some("overlaps an earlier field; cut")
        } else if e.end > size {
            Some("runs past the end of the file; cut")
        } else {
            None
        };
        if let Some(p) = problem {
            notes.push(format!("{} ({:#x}..{:#x}) {p}", e.what, e.start, e.end));
        }
        e.start = e.start.max(pos);
        e.end = e.end.min(size);
        if e.start < e.end {
            pos = e.end;
            out.push(e);
        }
    }
    if pos < size {
        notes.push(format!(
            "{pos:#x}..{size:#x}: no structure claims these bytes"
        ));
        out.push(hole(pos, size));
    }
    (out, notes)
}

fn hie_claims(c: &mut Claims, f: &HieFile, size: u64) {
    for k in 0..hie::SLOTS as u64 {
        c.add(
            4 * k,
            4,
            format!("slot {k} offset"),
            "slot table",
            D,
            STRUCT,
        );
    }
    for (i, h) in f.hierarchies.iter().enumerate() {
        let name = match f.first_slot(i) {
            Some(s) => format!("slot {s} hierarchy"),
            None => format!("hierarchy {i}"),
        };
        let base = u64::from(h.offset);
        let lists: u64 = h.byte_lists.lists.iter().map(|l| l.len() as u64 + 1).sum();
        c.fields(
            base,
            &name,
            "hierarchy header",
            &[
                (0, 2, "part count", D, STRUCT),
                (2, lists, "byte lists", D, STRUCT),
                (
                    2 + lists,
                    h.byte_lists.tail.len() as u64,
                    "byte-list tail",
                    P,
                    PU,
                ),
            ],
        );
        for k in 0..h.parts.len() as u64 {
            let at = base
                .saturating_add(hie::HEADER_LEN)
                .saturating_add(k.saturating_mul(hie::PART_LEN));
            c.record(at, &format!("{name} part {k}"), "part", Part::FIELDS, None);
        }
    }
    c.gaps(&f.gaps, size);
}

fn dmc3_claims(c: &mut Claims, f: &Dmc3File, size: u64) {
    if let Some(con) = &f.container {
        c.record(
            0,
            "container header",
            "container header",
            Header::FIELDS,
            None,
        );
        let mut seen: BTreeSet<(u64, u64, StreamKind)> = BTreeSet::new();
        for (i, obj) in con.objects.iter().enumerate() {
            c.record(
                dmc3::HEADER_LEN + i as u64 * dmc3::OBJECT_LEN,
                &format!("object {i} record"),
                "object record",
                ObjectRecord::FIELDS,
                None,
            );
            for (j, mesh) in obj.meshes.iter().enumerate() {
                let at = obj
                    .record
                    .mesh_offset
                    .saturating_add((j as u64).saturating_mul(dmc3::MESH_LEN));
                c.record(
                    at,
                    &format!("object {i} mesh {j} record"),
                    "mesh record",
                    MeshRecord::FIELDS,
                    Some(mesh.record.variant.key()),
                );
                workspace_claim(c, (i, j), at, mesh);
                let vc = mesh.vertex_count() as u64;
                for (kind, off) in mesh.record.streams() {
                    let len = vc * kind.stride();
                    // A stream several meshes name with the same offset, length and kind is one
                    // structure (the reader claims it once); it is listed under its first mesh.
                    if len > 0 && seen.insert((off, len, kind)) {
                        c.add(
                            off,
                            len,
                            format!("object {i} mesh {j} {}", kind.name()),
                            "vertex stream",
                            D,
                            COMM,
                        );
                    }
                }
            }
        }
    }
    if let Some(b) = &f.block {
        block_claims(c, b);
    }
    c.gaps(&f.gaps, size);
}

/// Mesh `j` of object `i`'s index workspace (its record at `record`), when the reader found
/// one: decoded, as the executable writes it (docs/formats.md, containers).
fn workspace_claim(c: &mut Claims, (i, j): (usize, usize), record: u64, mesh: &dmc3::Mesh) {
    if !mesh.workspace.is_present() {
        return;
    }
    c.add(
        record.saturating_add(mesh.record.workspace_offset),
        dmc3::workspace::workspace_len(mesh.vertex_count()),
        format!("object {i} mesh {j} index workspace"),
        "index workspace",
        D,
        EXE,
    );
}

/// A motion at `base` (0, or a member's offset), fields named `{prefix}...`.
fn mot_claims(c: &mut Claims, m: &Mot, base: u64, prefix: &str) {
    use crate::native::dmc3::motion::Keys;
    c.record(
        base,
        &format!("{prefix}motion header"),
        "motion header",
        MotHeader::FIELDS,
        None,
    );
    let masks_end = Mot::masks_end(m.masks.len());
    for n in 0..m.masks.len() as u64 {
        c.add(
            base + MotHeader::LEN as u64 + 2 * n,
            2,
            format!("{prefix}node {n} channel mask"),
            "channel mask",
            D,
            COMM,
        );
    }
    c.add(
        base + masks_end,
        m.header_tail.len() as u64,
        format!("{prefix}header tail"),
        "header tail",
        P,
        PU,
    );
    let mut at = base + masks_end + m.header_tail.len() as u64;
    c.add(
        at,
        4,
        format!("{prefix}track count"),
        "track count",
        D,
        COMM,
    );
    at += 4;
    for (i, (node, ch, t)) in m.targets().enumerate() {
        let p = format!("{prefix}track {i} (node {node} {ch})");
        c.record(
            at,
            &format!("{p} head"),
            "track head",
            TrackHead::FIELDS,
            None,
        );
        let mut pos = at + TrackHead::LEN as u64;
        if t.tangents.is_some() {
            c.record(
                pos,
                &format!("{p} tangents"),
                "tangent ranges",
                TangentRanges::FIELDS,
                None,
            );
            pos += TangentRanges::LEN as u64;
        }
        let (fields, len): (&[FieldDef], u64) = match &t.keys {
            Keys::F32(_) => (KeyF32::FIELDS, KeyF32::LEN as u64),
            Keys::F32Hermite(_) => (KeyF32Hermite::FIELDS, KeyF32Hermite::LEN as u64),
            Keys::U16(_) => (KeyU16::FIELDS, KeyU16::LEN as u64),
            Keys::U16Hermite(_) => (KeyU16Hermite::FIELDS, KeyU16Hermite::LEN as u64),
        };
        for k in 0..t.keys.len() as u64 {
            c.record(pos, &format!("{p} key {k}"), "key", fields, None);
            pos += len;
        }
        c.add(
            pos,
            t.extra.len() as u64,
            format!("{p} extra bytes"),
            "track extra",
            Kind::Undecoded,
            PU,
        );
        at += t.encoded_len();
    }
    c.gap(
        at,
        m.tail.len(),
        format!("{prefix}padding after the last track"),
    );
}

fn pac_claims(c: &mut Claims, p: &Pac) {
    use crate::native::dmc3::pac::TABLE_START;
    c.add(0, 4, "archive magic".into(), "archive header", D, COMM);
    c.add(4, 4, "slot count".into(), "archive header", D, COMM);
    for s in 0..p.offsets.len() as u64 {
        c.add(
            TABLE_START + 4 * s,
            4,
            format!("slot {s} offset"),
            "slot table",
            D,
            COMM,
        );
    }
    let table_end = Pac::table_end(p.offsets.len());
    c.gap(
        table_end,
        p.gap.len(),
        "bytes between the table and the first member".into(),
    );
    for (i, m) in p.members.iter().enumerate() {
        member_claims(c, m, i);
    }
}

/// One archive member at its offset, fields named `member {i} ...` (a nested archive's
/// `member {i} member {j} ...`).
fn member_claims(c: &mut Claims, m: &crate::native::dmc3::Member, i: usize) {
    let base = u64::from(m.offset);
    let prefix = format!("member {i} ");
    match &m.kind {
        MemberKind::Mot(mot) => mot_claims(c, mot, base, &prefix),
        MemberKind::Ptx(x) => ptx_claims(c, x, base, &prefix),
        MemberKind::Texture(t) => texture_claims(c, t, base, &prefix),
        MemberKind::Model(f) => {
            let size = m.bytes().map_or(0, |b| b.len() as u64);
            let mut sub = Claims::default();
            dmc3_claims(&mut sub, f, size);
            c.shifted(sub, base, &prefix);
        }
        MemberKind::Archive(a) => {
            let mut sub = Claims::default();
            pac_claims(&mut sub, a);
            c.shifted(sub, base, &prefix);
        }
        MemberKind::Shadow(shw) => shadow_claims(c, shw, base, &prefix),
        MemberKind::Cloth(clt) => {
            for (at, len, what, kind, ev) in crate::ops::cloth::spans(clt, &prefix) {
                c.add(base + at, len, what, "cloth text", kind, ev);
            }
        }
        MemberKind::Opaque(b) => c.add(
            base,
            b.len() as u64,
            format!("member {i} ({})", crate::native::dmc3::pac::opaque_label(b)),
            "opaque member",
            Kind::Undecoded,
            PU,
        ),
    }
}

/// A shadow model at `base` (see [`crate::native::dmc3::shadow`]): the header's and each
/// record's named fields and undecoded bytes, each hull's four lists, and the bytes between
/// and after them as gaps.
fn shadow_claims(c: &mut Claims, shw: &Shw, base: u64, prefix: &str) {
    use crate::native::dmc3::shadow::{ADJACENCY, HEADER, RECORD, SELECTOR, TRIANGLE, VERTEX};
    let field = |c: &mut Claims, at: u64, len: u64, what: &str, kind: Kind, ev: Evidence| {
        c.add(
            base + at,
            len,
            format!("{prefix}{what}"),
            "shadow model",
            kind,
            ev,
        )
    };
    field(c, 0, 4, "magic", D, EXE);
    field(c, 4, 4, "version", D, CORPUS);
    field(c, 8, 8, "header +0x08", P, PU);
    field(c, 0x10, 1, "hull count", D, EXE);
    field(c, 0x11, 1, "node count", D, CORPUS);
    field(c, 0x12, 0x0E, "header +0x12", P, PU);
    let mut lists: Vec<(u64, u64, String)> = Vec::new();
    for (h, hull) in shw.hulls.iter().enumerate() {
        let at = (HEADER + h * RECORD) as u64;
        let name = |f: &str| format!("hull {h} {f}");
        field(c, at, 2, &name("vertex count"), D, EXE);
        field(c, at + 2, 2, &name("triangle count"), D, EXE);
        field(c, at + 4, 12, &name("+0x04"), P, PU);
        for (k, what) in ["triangle", "adjacency", "vertex", "selector"]
            .iter()
            .enumerate()
        {
            let off = at + 0x10 + 8 * k as u64;
            field(c, off, 8, &name(&format!("{what} list offset")), D, EXE);
        }
        field(c, at + 0x30, 16, &name("+0x30"), P, PU);
        let (t, v) = (hull.triangles.len() as u64, u64::from(hull.vertices));
        let sizes = [TRIANGLE, ADJACENCY, VERTEX, SELECTOR].map(|s| s as u64);
        let counts = [t, t, v, v];
        for (k, what) in ["triangles", "adjacency", "vertices", "selectors"]
            .iter()
            .enumerate()
        {
            lists.push((hull.offsets[k], counts[k] * sizes[k], name(what)));
        }
    }
    lists.sort();
    let mut at = (HEADER + shw.hulls.len() * RECORD) as u64;
    let end = at + shw.body.len() as u64;
    for (start, len, what) in lists {
        // A list shared with, or overlapping, one already claimed: only what lies beyond.
        let from = start.max(at);
        let len = (start + len).saturating_sub(from);
        c.gap(
            base + at,
            (from - at) as usize,
            format!("{prefix}shadow gap"),
        );
        field(c, from, len, &what, D, EXE);
        at = from + len;
    }
    c.gap(
        base + at,
        end.saturating_sub(at) as usize,
        format!("{prefix}shadow tail"),
    );
}

/// A gfxTexture entry at `base`: descriptor and DDS header field by field, each whole mip
/// level, the bytes after the chain.
fn texture_claims(c: &mut Claims, t: &Texture, base: u64, prefix: &str) {
    c.record(
        base,
        &format!("{prefix}descriptor"),
        "gfxTexture descriptor",
        Descriptor::FIELDS,
        None,
    );
    c.record(
        base + texture::DDS_AT as u64,
        &format!("{prefix}DDS"),
        "DDS header",
        DdsHeader::FIELDS,
        None,
    );
    for (k, l) in t.levels().iter().enumerate() {
        c.add(
            base + l.offset,
            l.len,
            format!("{prefix}mip {k} ({}x{})", l.width, l.height),
            "mip level",
            D,
            COMM,
        );
    }
    c.gap(
        base + (texture::CHAIN_AT + t.chain.len()) as u64,
        t.padding.len(),
        format!("{prefix}bytes after the mip chain"),
    );
}

/// A PTX bundle at `base`: count, span table, its padding, each texture, the tail.
fn ptx_claims(c: &mut Claims, p: &Ptx, base: u64, prefix: &str) {
    c.add(
        base,
        4,
        format!("{prefix}texture count"),
        "ptx table",
        D,
        COMM,
    );
    for k in 0..p.textures.len() as u64 {
        c.add(
            base + 4 + 4 * k,
            4,
            format!("{prefix}texture {k} span"),
            "ptx table",
            D,
            COMM,
        );
    }
    let table_end = 4 + 4 * p.textures.len() as u64;
    c.gap(
        base + table_end,
        p.table_padding.len(),
        format!("{prefix}span table padding"),
    );
    for (k, (t, at)) in p.textures.iter().zip(p.offsets()).enumerate() {
        texture_claims(c, t, base + at, &format!("{prefix}texture {k} "));
    }
    let end = base
        + p.offsets().last().map_or(table_end, |&o| o)
        + p.textures.last().map_or(0, |t| t.len());
    c.gap(
        end,
        p.tail.len(),
        format!("{prefix}bytes after the last texture"),
    );
}

fn block_claims(c: &mut Claims, b: &NodeBlock) {
    let base = b.offset;
    let name = "node-domain block";
    c.record(base, name, "block header", BlockHeader::FIELDS, None);
    let n = b.node_count() as u64;
    c.fields(
        base,
        name,
        "block array",
        &[
            (u64::from(b.rels.parent), n, "parent array", D, EXE),
            (u64::from(b.rels.order), n, "order array", D, EXE),
            // Layout proven, meaning unknown: carried, not interpreted.
            (u64::from(b.rels.group), n, "group array", P, STRUCT),
        ],
    );
    let t0 = base.saturating_add(u64::from(b.rels.transform));
    for k in 0..n {
        c.record(
            t0.saturating_add(k.saturating_mul(dmc3::TRANSFORM_LEN)),
            &format!("{name} node {k}"),
            "transform record",
            NodeTransform::FIELDS,
            None,
        );
    }
    for g in &b.padding {
        c.add(
            base.saturating_add(g.offset),
            g.bytes.len() as u64,
            format!("{name} padding"),
            "padding",
            Kind::Undecoded,
            Evidence::PreservedUndecoded,
        );
    }
}

fn percent(n: u64, size: u64) -> f64 {
    if size == 0 {
        0.0
    } else {
        100.0 * n as f64 / size as f64
    }
}

/// Readable text: totals per kind and per class, then the ranges in file order with adjacent
/// entries of the same record type, kind and class merged into one line.
pub fn render_text(c: &Coverage) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "coverage of a {} file, {} bytes ({:#x})",
        c.format, c.size, c.size
    );
    out.push_str("by kind (what rigtrip does with the bytes):\n");
    let k = &c.totals.by_kind;
    for (name, n) in [
        ("decoded", k.decoded),
        ("preserved", k.preserved),
        ("undecoded", k.undecoded),
    ] {
        let _ = writeln!(
            out,
            "  {name:<21} {n:>10} bytes {:>6.2}%",
            percent(n, c.size)
        );
    }
    out.push_str("by evidence (how the meaning is known):\n");
    let e = &c.totals.by_evidence;
    for (ev, n) in [
        (Evidence::ExeConfirmed, e.exe_confirmed),
        (Evidence::StructuralConfirmed, e.structural_confirmed),
        (Evidence::CorpusConfirmed, e.corpus_confirmed),
        (Evidence::Community, e.community),
        (Evidence::PreservedUndecoded, e.preserved_undecoded),
    ] {
        let _ = writeln!(
            out,
            "  {:<21} {n:>10} bytes {:>6.2}%",
            ev.name(),
            percent(n, c.size)
        );
    }
    for n in &c.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    out.push_str("ranges (start..end, kind, evidence, field):\n");
    let mut i = 0;
    while i < c.entries.len() {
        let first = &c.entries[i];
        let mut j = i + 1;
        while j < c.entries.len() {
            let e = &c.entries[j];
            if e.start != c.entries[j - 1].end
                || e.record != first.record
                || e.kind != first.kind
                || e.evidence != first.evidence
            {
                break;
            }
            j += 1;
        }
        let last = &c.entries[j - 1];
        let what = if j - i == 1 {
            first.what.clone()
        } else {
            format!("{} .. {} ({} fields)", first.what, last.what, j - i)
        };
        let _ = writeln!(
            out,
            "{:#010x}..{:#010x} {:<9} {:<20} {what}",
            first.start,
            last.end,
            first.kind.name(),
            first.evidence.name()
        );
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(start: u64, end: u64, what: &str) -> Entry {
        Entry {
            start,
            end,
            what: what.into(),
            record: "part",
            kind: Kind::Decoded,
            evidence: Evidence::ExeConfirmed,
        }
    }

    #[test]
    fn settle_fills_holes_and_cuts_overlaps() {
        let (e, notes) = settle(
            vec![entry(4, 8, "b"), entry(0, 2, "a"), entry(6, 12, "c")],
            10,
        );
        let spans: Vec<(u64, u64, &str)> = e
            .iter()
            .map(|x| (x.start, x.end, x.what.as_str()))
            .collect();
        assert_eq!(
            spans,
            vec![
                (0, 2, "a"),
                (2, 4, "bytes no structure accounts for"),
                (4, 8, "b"),
                (8, 10, "c"),
            ]
        );
        assert_eq!(notes.len(), 2);
        assert_eq!(notes[0], "0x2..0x4: no structure claims these bytes");
        assert_eq!(notes[1], "c (0x6..0xc) overlaps an earlier field; cut");
    }
}
