//! The commands for non-rig native files (DMC3 motions and archives): `inspect` reports and the
//! native leg of `verify`. `dump`/`build` and `inspect --coverage` handle them in their own
//! modules; the CLI picks this path once per command with [`crate::native::detect_motion`].

use serde::Serialize;

use crate::native::dmc3::motion::{Mot, Track};
use crate::native::dmc3::pac::{MemberError, MemberKind, Pac};
use crate::native::MotionFile;
use crate::ops::texture::{ModelReport, PtxReport, TextureReport};
use crate::ops::verdict::{describe_difference, Difference, GltfLeg, LegFailure, Legs, Verdict};

/// The inspect report of a motion file; `--json` prints it as is.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "format", rename_all = "lowercase")]
pub enum Report {
    /// A motion.
    Mot {
        /// Input size in bytes (`bytes` in JSON, as in every command's).
        #[serde(rename = "bytes")]
        size: usize,
        /// The motion.
        #[serde(flatten)]
        motion: MotReport,
    },
    /// An archive.
    Pac {
        /// Input size in bytes (`bytes` in JSON, as in every command's).
        #[serde(rename = "bytes")]
        size: usize,
        /// The archive.
        #[serde(flatten)]
        archive: PacReport,
    },
    /// A PTX texture bundle.
    Ptx {
        /// Input size in bytes (`bytes` in JSON, as in every command's).
        #[serde(rename = "bytes")]
        size: usize,
        /// The bundle.
        #[serde(flatten)]
        bundle: PtxReport,
    },
    /// A single gfxTexture entry.
    Tm2 {
        /// Input size in bytes (`bytes` in JSON, as in every command's).
        #[serde(rename = "bytes")]
        size: usize,
        /// The entry.
        #[serde(flatten)]
        texture: TextureReport,
    },
}

/// One motion.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct MotReport {
    /// Header size (+0x00).
    pub header_size: u32,
    /// +0x08 (census: 0).
    pub unknown_08: String,
    /// End frame (+0x0C).
    pub end_frame: f32,
    /// +0x10 as f32.
    pub unknown_10: f32,
    /// +0x14 as f32 (census: equals the end frame).
    pub unknown_14: f32,
    /// +0x18.
    pub flag_18: u16,
    /// +0x1A.
    pub unknown_1a: u16,
    /// Node count: the number of masks.
    pub node_count: usize,
    /// Bytes after the masks up to the header size.
    pub header_tail_len: usize,
    /// How many of them are non-zero.
    pub header_tail_nonzero: usize,
    /// Track count word: the number of tracks.
    pub track_count: usize,
    /// Bytes after the last track.
    pub tail_len: usize,
    /// Per node its mask.
    pub nodes: Vec<NodeReport>,
    /// Every track in file order.
    pub tracks: Vec<TrackReport>,
    /// Things a researcher should look at.
    pub notes: Vec<String>,
}

/// One node's channel mask.
#[derive(Debug, Clone, Serialize)]
pub struct NodeReport {
    /// Node index.
    pub node: usize,
    /// The mask as `0x` hex.
    pub mask: String,
    /// The channels it sets, in track order.
    pub channels: Vec<&'static str>,
}

/// One track.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct TrackReport {
    /// Index in file order.
    pub index: usize,
    /// Node it animates.
    pub node: usize,
    /// Channel name.
    pub channel: &'static str,
    /// Offset of the track in the file (or member).
    pub offset: u64,
    /// Span.
    pub span: u16,
    /// Compression number.
    pub compression: u16,
    /// Whether the keys carry tangents (compression 1 or 3).
    pub hermite: bool,
    /// The time offset added to every key's frame.
    pub time_offset: i16,
    /// Value min.
    pub min: f32,
    /// Value range.
    pub range: f32,
    /// The frames the first and last key play at (time offset included), when there are keys.
    pub frames: Option<[i32; 2]>,
    /// Bytes between the keys and the span.
    pub extra: usize,
    /// Every key decoded: frame, time played, bit 15, segment, value, in- and out-tangent.
    pub keys: Vec<KeyReport>,
}

/// One decoded key.
#[derive(Debug, Clone, Serialize)]
pub struct KeyReport {
    /// The frame its time word holds.
    pub frame: u16,
    /// The frame it plays at: `frame` plus the track's time offset.
    pub time: i32,
    /// Bit 15 of the time word.
    pub flag: bool,
    /// How the segment to the next key plays: `hermite` or `linear`.
    pub segment: &'static str,
    /// Value.
    pub value: f32,
    /// In-tangent (0 on linear tracks).
    #[serde(rename = "in")]
    pub in_tangent: f32,
    /// Out-tangent (0 on linear tracks).
    #[serde(rename = "out")]
    pub out_tangent: f32,
}

/// One archive.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct PacReport {
    /// Slot count.
    pub slot_count: usize,
    /// Per slot its offset (`0x0`: empty) and member index.
    pub slots: Vec<SlotReport>,
    /// Empty slots.
    pub empty_slots: Vec<usize>,
    /// Bytes between the slot table and the first member.
    pub gap_len: usize,
    /// How many of them are non-zero.
    pub gap_nonzero: usize,
    /// Members in offset order.
    pub members: Vec<MemberReport>,
}

/// One slot.
#[derive(Debug, Clone, Serialize)]
pub struct SlotReport {
    /// Slot index.
    pub slot: usize,
    /// Offset as `0x` hex.
    pub offset: String,
    /// Index into `members`, `null` for an empty slot.
    pub member: Option<usize>,
}

/// One member.
#[derive(Debug, Clone, Serialize)]
pub struct MemberReport {
    /// Offset.
    pub offset: u64,
    /// Length in bytes.
    pub len: usize,
    /// Slots naming it.
    pub slots: Vec<usize>,
    /// What its own bytes are: `mot`, `mod`, `scm`, `ptx`, `tm2`, `pac`, or for opaque bytes
    /// the magic they start with (`shw`, `efm`, `pnst`, `ipum`, `mod?` for a model magic whose
    /// content did not read back exactly...) or `opaque`.
    pub kind: &'static str,
    /// The offset modulo 16 (retail members are 16-byte aligned; residues of 8 were seen).
    pub align16: u64,
    /// In an archive that carries a character, the names the player slot map gives its slots
    /// (`textures`, `body`, `shadow`, `coat`, `cloth`, `coat shadow`): names, not evidence.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<&'static str>,
    /// The motion, for a motion member (offsets relative to the member).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub motion: Option<MotReport>,
    /// The counts of a model member.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelReport>,
    /// The textures of a PTX or gfxTexture member (offsets relative to the member).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub textures: Option<Vec<TextureReport>>,
    /// A nested archive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<Box<PacReport>>,
    /// A model member's objects and meshes, as for a loose model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<crate::ops::inspect::ObjectReport>,
    /// A shadow model that fits the public layout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadow: Option<crate::ops::shadow::ShadowReport>,
    /// Cloth text: its blocks and rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cloth: Option<crate::ops::cloth::ClothReport>,
}

fn track_report(
    index: usize,
    node: usize,
    ch: &'static str,
    offset: u64,
    t: &Track,
) -> TrackReport {
    let keys: Vec<KeyReport> = t
        .decoded_keys()
        .into_iter()
        .map(|k| KeyReport {
            frame: k.frame,
            time: k.time,
            flag: k.flag,
            segment: if k.hermite { "hermite" } else { "linear" },
            value: k.value,
            in_tangent: k.in_tangent,
            out_tangent: k.out_tangent,
        })
        .collect();
    TrackReport {
        index,
        node,
        channel: ch,
        offset,
        span: t.head.span,
        compression: t.head.compression,
        hermite: t.is_hermite(),
        time_offset: t.time_offset(),
        min: t.min(),
        range: t.range(),
        frames: keys.first().zip(keys.last()).map(|(a, b)| [a.time, b.time]),
        extra: t.extra.len(),
        keys,
    }
}

/// The report of one motion.
pub fn mot_report(m: &Mot) -> MotReport {
    let mut notes = Vec::new();
    let h = &m.header;
    let nonzero = m.header_tail.iter().filter(|&&b| b != 0).count();
    if nonzero > 0 {
        notes.push(format!(
            "header tail after the masks: {nonzero} non-zero byte(s) of {} (PRESERVED_UNDECODED, kept exactly)",
            m.header_tail.len()
        ));
    }
    if h.unknown_08 != 0 {
        notes.push(format!("+0x08 is {:#010x} (census: 0)", h.unknown_08));
    }
    if h.unknown_14_bits != h.end_frame_bits {
        notes.push("+0x14 differs from the end frame (census: equal)".into());
    }
    let mut at = u64::from(h.header_size) + 4;
    let mut tracks = Vec::with_capacity(m.tracks.len());
    for (i, (node, ch, t)) in m.targets().enumerate() {
        let r = track_report(i, node, ch.name(), at, t);
        if r.time_offset != 0 {
            notes.push(format!(
                "track {i} (node {node} {ch}): time offset {}: its keys play {} frame(s) {} than their time words say (census: -11 or -19 on 117 tracks of three files)",
                r.time_offset,
                r.time_offset.unsigned_abs(),
                if r.time_offset < 0 { "earlier" } else { "later" }
            ));
        }
        let linear = r
            .keys
            .iter()
            .rev()
            .skip(1)
            .filter(|k| k.segment == "linear");
        if r.compression == 3 && linear.count() > 0 {
            notes.push(format!(
                "track {i} (node {node} {ch}): linear segments (bit 15 clear) among Hermite ones (census: bit 15 set on every key)"
            ));
        }
        if r.extra > 0 {
            notes.push(format!(
                "track {i} (node {node} {ch}): {} byte(s) between the keys and the span (kept)",
                r.extra
            ));
        }
        if !matches!(r.compression, 2 | 3) {
            notes.push(format!(
                "track {i} (node {node} {ch}): compression {} never seen in the census (key layout assumed)",
                r.compression
            ));
        }
        at += t.encoded_len();
        tracks.push(r);
    }
    MotReport {
        header_size: h.header_size,
        unknown_08: format!("{:#010x}", h.unknown_08),
        end_frame: m.end_frame(),
        unknown_10: f32::from_bits(h.unknown_10_bits),
        unknown_14: f32::from_bits(h.unknown_14_bits),
        flag_18: h.flag_18,
        unknown_1a: h.unknown_1a,
        node_count: m.masks.len(),
        header_tail_len: m.header_tail.len(),
        header_tail_nonzero: nonzero,
        track_count: m.tracks.len(),
        tail_len: m.tail.len(),
        nodes: m
            .masks
            .iter()
            .enumerate()
            .map(|(node, &mask)| NodeReport {
                node,
                mask: format!("{mask:#05x}"),
                channels: crate::native::dmc3::Channel::in_mask(mask)
                    .map(|c| c.name())
                    .collect(),
            })
            .collect(),
        tracks,
        notes,
    }
}

/// The report of one member of `pac`; `names` says whether slot names apply (a character
/// archive).
fn member_report(m: &crate::native::dmc3::Member, names: bool, pac: &Pac) -> MemberReport {
    use crate::ops::texture::{model_report, ptx_report, texture_report};
    let mut r = MemberReport {
        offset: u64::from(m.offset),
        len: m.bytes().map_or(0, |b| b.len()),
        slots: m.slots.clone(),
        kind: m.kind.name(),
        align16: u64::from(m.offset) % 16,
        names: match names {
            true => m
                .slots
                .iter()
                .filter_map(|&s| crate::native::dmc3::pac::slot_name(s))
                .collect(),
            false => Vec::new(),
        },
        motion: None,
        model: None,
        textures: None,
        archive: None,
        objects: Vec::new(),
        shadow: None,
        cloth: None,
    };
    match &m.kind {
        MemberKind::Mot(mot) => r.motion = Some(mot_report(mot)),
        MemberKind::Model(f) => {
            r.model = Some(model_report(f));
            r.objects = crate::ops::inspect::container_objects(f);
        }
        MemberKind::Ptx(p) => r.textures = Some(ptx_report(p).textures),
        MemberKind::Texture(t) => r.textures = Some(vec![texture_report(t, 0, 0)]),
        MemberKind::Archive(p) => r.archive = Some(Box::new(pac_report(p))),
        MemberKind::Shadow(s) => r.shadow = Some(crate::ops::shadow::report(s, None)),
        MemberKind::Cloth(c) => {
            let coat = crate::ops::cloth::CoatOf::of(pac, m);
            r.cloth = Some(crate::ops::cloth::report(c, coat.as_ref()));
        }
        MemberKind::Opaque(_) => {}
    }
    r
}

/// The report of one archive.
pub fn pac_report(p: &Pac) -> PacReport {
    let names = p.has_model();
    let mut members: Vec<MemberReport> = p
        .members
        .iter()
        .map(|m| member_report(m, names, p))
        .collect();
    crate::ops::shadow::name_joints(p, &mut members);
    let mut member_of = vec![None; p.offsets.len()];
    for (i, m) in p.members.iter().enumerate() {
        for &s in &m.slots {
            if let Some(x) = member_of.get_mut(s) {
                *x = Some(i);
            }
        }
    }
    PacReport {
        slot_count: p.offsets.len(),
        slots: p
            .offsets
            .iter()
            .enumerate()
            .map(|(slot, &o)| SlotReport {
                slot,
                offset: format!("{o:#x}"),
                member: member_of.get(slot).copied().flatten(),
            })
            .collect(),
        empty_slots: p.empty_slots().collect(),
        gap_len: p.gap.len(),
        gap_nonzero: p.gap.iter().filter(|&&b| b != 0).count(),
        members,
    }
}

/// The report of a motion file of `size` bytes.
pub fn report(file: &MotionFile, size: usize) -> Report {
    match file {
        MotionFile::Mot(m) => Report::Mot {
            size,
            motion: mot_report(m),
        },
        MotionFile::Pac(p) => Report::Pac {
            size,
            archive: pac_report(p),
        },
        MotionFile::Ptx(p) => Report::Ptx {
            size,
            bundle: crate::ops::texture::ptx_report(p),
        },
        MotionFile::Tm2(t) => Report::Tm2 {
            size,
            texture: crate::ops::texture::texture_report(t, 0, 0),
        },
    }
}

/// How a track's segments play: `hermite`, `linear ` or `mixed  ` (padded alike).
fn segments(t: &TrackReport) -> &'static str {
    let segs = t.keys.iter().rev().skip(1);
    let hermite = segs.clone().filter(|k| k.segment == "hermite").count();
    match (hermite, segs.count()) {
        (0, _) if !t.hermite => "linear ",
        (h, n) if h == n => "hermite",
        (0, _) => "linear ",
        _ => "mixed  ",
    }
}

fn render_mot(out: &mut String, m: &MotReport, indent: &str) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "{indent}header size {:#x}, {} nodes, {} tracks, end frame {}, +0x10 {}, +0x14 {}, +0x18 {}, +0x1A {}, +0x08 {}",
        m.header_size, m.node_count, m.track_count, m.end_frame, m.unknown_10, m.unknown_14,
        m.flag_18, m.unknown_1a, m.unknown_08
    );
    let _ = writeln!(
        out,
        "{indent}header tail {} bytes ({} non-zero), {} bytes after the last track",
        m.header_tail_len, m.header_tail_nonzero, m.tail_len
    );
    for n in m.nodes.iter().filter(|n| !n.channels.is_empty()) {
        let _ = writeln!(
            out,
            "{indent}node {:>3} mask {} {}",
            n.node,
            n.mask,
            n.channels.join(" ")
        );
    }
    for t in &m.tracks {
        let frames = t
            .frames
            .map_or("-".to_string(), |[a, b]| format!("{a}..{b}"));
        let _ = writeln!(
            out,
            "{indent}track {:>3} at {:#07x}: node {:>3} {} compression {} {} keys {:>3} frames {:<9} offset {:>3} min {} range {}{}",
            t.index,
            t.offset,
            t.node,
            t.channel,
            t.compression,
            segments(t),
            t.keys.len(),
            frames,
            t.time_offset,
            t.min,
            t.range,
            if t.extra > 0 { format!(" (+{} extra bytes)", t.extra) } else { String::new() }
        );
    }
    for n in &m.notes {
        let _ = writeln!(out, "{indent}note: {n}");
    }
}

/// The text form of a report.
pub fn render_text(r: &Report) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    match r {
        Report::Mot { size, motion } => {
            let _ = writeln!(out, "mot, {size} bytes");
            render_mot(&mut out, motion, "");
        }
        Report::Pac { size, archive } => {
            let _ = write!(out, "pac, {size} bytes, ");
            render_pac(&mut out, archive, "");
        }
        Report::Ptx { size, bundle } => {
            let _ = writeln!(out, "ptx, {size} bytes");
            crate::ops::texture::render_ptx(&mut out, bundle, "");
        }
        Report::Tm2 { size, texture } => {
            let _ = writeln!(out, "tm2, {size} bytes");
            crate::ops::texture::render_texture(&mut out, texture, "");
        }
    }
    out
}

/// The text of an archive after its first words, each line after the first indented.
fn render_pac(out: &mut String, archive: &PacReport, indent: &str) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "{} slots ({} empty), {} members, {} bytes between the table and the first member ({} non-zero)",
        archive.slot_count,
        archive.empty_slots.len(),
        archive.members.len(),
        archive.gap_len,
        archive.gap_nonzero
    );
    for s in &archive.slots {
        match s.member {
            Some(m) => {
                let _ = writeln!(
                    out,
                    "{indent}slot {:>3} at {}: member {m}",
                    s.slot, s.offset
                );
            }
            None => {
                let _ = writeln!(out, "{indent}slot {:>3} empty", s.slot);
            }
        }
    }
    for (i, m) in archive.members.iter().enumerate() {
        render_member(out, i, m, indent);
    }
}

fn render_member(out: &mut String, i: usize, m: &MemberReport, indent: &str) {
    use std::fmt::Write;
    let names = match m.names.is_empty() {
        true => String::new(),
        false => format!(" ({})", m.names.join(", ")),
    };
    let align = match m.align16 {
        0 => String::new(),
        r => format!(", offset = {r} mod 16"),
    };
    let _ = writeln!(
        out,
        "{indent}member {i} at {:#x}, {} bytes, slot(s) {:?}{names}: {}{align}",
        m.offset, m.len, m.slots, m.kind
    );
    let inner = format!("{indent}    ");
    if let Some(mot) = &m.motion {
        render_mot(out, mot, &inner);
    }
    if let Some(model) = &m.model {
        crate::ops::texture::render_model(out, model, &inner);
    }
    crate::ops::inspect::render_object_lines(&m.objects, out, &inner);
    if let Some(s) = &m.shadow {
        crate::ops::shadow::render(out, s, &inner);
    }
    if let Some(c) = &m.cloth {
        crate::ops::cloth::render(out, c, &inner);
    }
    for t in m.textures.iter().flatten() {
        crate::ops::texture::render_texture(out, t, &inner);
    }
    if let Some(a) = &m.archive {
        let _ = write!(out, "{inner}pac, ");
        render_pac(out, a, &inner);
    }
}

/// `verify` of a motion file: the native leg (`write(read(b)) == b`), then (unless `--legs
/// native`) the glTF leg ([`motion_gltf_leg`]).
pub fn verify(
    file: Result<MotionFile, crate::native::MotionError>,
    data: &[u8],
    legs: Legs,
    model: ModelVerify,
) -> Verdict {
    let file = match file {
        Ok(f) => f,
        Err(e) => {
            return Verdict::Rejected {
                message: crate::chain(&e),
            }
        }
    };
    let kind = file.kind();
    let mut buf = Vec::with_capacity(data.len());
    if let Err(e) = file.write_into(&mut buf) {
        return Verdict::Differ {
            kind,
            message: crate::chain(&e),
        };
    }
    if buf != data {
        return Verdict::Differ {
            kind,
            message: describe_difference(data, &buf),
        };
    }
    let models = match &file {
        MotionFile::Pac(p) => match model_members(p, legs, model) {
            Ok(m) => m,
            Err(e) => {
                let message = crate::chain(&e);
                return Verdict::Differ { kind, message };
            }
        },
        _ => None,
    };
    let gltf = match (legs.gltf(), &file) {
        (false, _) => GltfLeg::NotRun,
        (true, MotionFile::Ptx(_) | MotionFile::Tm2(_)) => {
            let leg = match &file {
                MotionFile::Ptx(p) => crate::ops::character::textures_gltf_leg(&p.textures),
                MotionFile::Tm2(t) => {
                    crate::ops::character::textures_gltf_leg(std::slice::from_ref(t))
                }
                _ => Ok(GltfLeg::NotRun),
            };
            match leg {
                Ok(leg) => leg,
                Err(message) => {
                    return Verdict::Differ {
                        kind,
                        message: format!("glTF leg: {message}"),
                    }
                }
            }
        }
        (true, MotionFile::Pac(p)) if crate::ops::character::character(p).is_some() => {
            match crate::ops::character::archive_gltf_leg(p, data) {
                Some(Ok(leg)) => leg,
                Some(Err(message)) => {
                    return Verdict::Differ {
                        kind,
                        message: format!(
                            "glTF leg (the archive through export and import): {message}"
                        ),
                    }
                }
                None => GltfLeg::NotRun,
            }
        }
        (true, _) => match motion_gltf_leg(data) {
            // An archive without motions: its models' legs say it.
            Ok(GltfLeg::Skipped(_)) if models.is_some() => models.unwrap_or(GltfLeg::NotRun),
            Ok(leg) => leg,
            Err(message) => {
                return Verdict::Differ {
                    kind,
                    message: format!("glTF leg: {message}"),
                }
            }
        },
    };
    Verdict::Identical {
        kind,
        gate: Vec::new(),
        gltf,
        layout: crate::ops::verdict::LayoutLeg::NotRun,
    }
}

/// How a model member's bytes are verified (a loose DMC3 model's verify, given by the caller so
/// that this module does not call back into the one that calls it).
pub type ModelVerify<'a> = &'a dyn Fn(&[u8], Legs) -> Verdict;

/// Why a model member of an archive does not verify.
#[derive(Debug, thiserror::Error)]
enum MemberFailure {
    /// Its bytes could not be written out of the archive.
    #[error(transparent)]
    Unwritable(#[from] MemberError),
    /// It differs or is rejected as a loose model (verify's message).
    #[error("member at {offset:#x} (slot(s) {slots:?}, {kind}): {message}")]
    Model {
        /// Its offset.
        offset: u32,
        /// The slots naming it.
        slots: Vec<usize>,
        /// Its kind's name.
        kind: &'static str,
        /// What verify said of it.
        message: String,
    },
    /// A member of the archive at `offset`, itself a member.
    #[error("nested archive at {offset:#x}: {}", crate::chain(.inner.as_ref()))]
    Nested {
        /// Its offset.
        offset: u32,
        /// What failed inside.
        inner: Box<MemberFailure>,
    },
}

/// Verifies every model member of an archive (nested archives included) as a loose model is
/// verified: `Err` names the first that differs or is rejected; `Ok(None)` when there is no
/// model; else the models' glTF leg (identical when every one's is, else the first other).
fn model_members(
    p: &Pac,
    legs: Legs,
    model: ModelVerify,
) -> Result<Option<GltfLeg>, MemberFailure> {
    let mut leg: Option<GltfLeg> = None;
    for m in &p.members {
        let found = match &m.kind {
            MemberKind::Model(_) => {
                let bytes = m.bytes()?;
                match model(&bytes, legs) {
                    Verdict::Identical { gltf, .. } => Some(gltf),
                    Verdict::Differ { message, .. } | Verdict::Rejected { message } => {
                        return Err(MemberFailure::Model {
                            offset: m.offset,
                            slots: m.slots.clone(),
                            kind: m.kind.name(),
                            message,
                        })
                    }
                    Verdict::Skipped => None,
                }
            }
            MemberKind::Archive(inner) => {
                model_members(inner, legs, model).map_err(|e| MemberFailure::Nested {
                    offset: m.offset,
                    inner: Box::new(e),
                })?
            }
            _ => None,
        };
        leg = match (leg, found) {
            (None, f) => f,
            (Some(GltfLeg::Identical), Some(f)) => Some(f),
            (l, _) => l,
        };
    }
    Ok(leg)
}

/// A motion file's glTF leg: native -> IR -> native (lower of lift), then every motion exported
/// as an animation onto a bare skeleton of its node count (the real GLB serializer) and
/// imported again (the real importer), the rebuilt motion file compared with `data`.
pub fn motion_gltf_leg(data: &[u8]) -> Result<GltfLeg, LegFailure> {
    use crate::gltf::{export_animated, import, to_glb, ExportOptions, MotionInput};
    let input =
        MotionInput::read("motion", data.to_vec()).map_err(|e| LegFailure::Read(Box::new(e)))?;
    let lowered = input
        .file
        .write(&mut Vec::new())
        .map_err(|e| LegFailure::Lower(Box::new(e)))?;
    if lowered != data {
        return Err(LegFailure::Ir(Difference::of(data, &lowered)));
    }
    let mut counts = input
        .file
        .motions
        .iter()
        .filter_map(|s| s.motion.as_ref().map(|m| m.joints));
    let Some(joints) = counts.next() else {
        return Ok(GltfLeg::Skipped("no motion in the file".into()));
    };
    if counts.any(|n| n != joints) {
        return Ok(GltfLeg::Skipped(
            "its motions animate different node counts".into(),
        ));
    }
    let Some(rig) = crate::rig::motion::bare_rig(joints) else {
        return Ok(GltfLeg::Skipped(format!(
            "{joints} nodes: no model of that many nodes to play it on"
        )));
    };
    let exported = match export_animated(
        &rig,
        std::slice::from_ref(&input),
        &ExportOptions::default(),
    ) {
        Ok(e) => e,
        Err(e) => return Ok(GltfLeg::Skipped(crate::chain(&e))),
    };
    // A motion that cannot be an animation rides as bytes only: the leg would check nothing.
    if let Some(c) = exported.report.carried_motions.first() {
        return Ok(GltfLeg::Skipped(format!("motion {}: {}", c.name, c.reason)));
    }
    let glb = to_glb(&exported).map_err(LegFailure::glb)?;
    let imported = import::import_slice(&glb, None, &import::ImportOptions::default())
        .map_err(LegFailure::import)?;
    match imported.motions.first().and_then(|m| m.bytes.as_deref()) {
        Some(b) if b == data => Ok(GltfLeg::Identical),
        Some(b) => Err(LegFailure::Differ(Difference::of(data, b))),
        None => Err(LegFailure::NoMotionFile),
    }
}
