//! `check`: would the game load these files? The game's loader model
//! ([`crate::native::dmc3::loader`]) run over files, folders and archives, descending into
//! archive members by their own magic, with what each member's rules need from around it (an
//! archive's PTX for its models' texture slots, its body's node count for its motions and
//! shadows).

use serde::Serialize;
use std::path::{Path, PathBuf};

use crate::native::dmc3::cloth::Clt;
use crate::native::dmc3::loader::archive::{self, Slot, SlotKind};
use crate::native::dmc3::loader::model::{model_findings, model_nodes, ModelContext};
use crate::native::dmc3::loader::{motion, texture};
use crate::native::dmc3::pac::{self, Pac, MAX_NESTING};
use crate::native::dmc3::{self, cloth_check, shadow_rules, Mot, Ptx, Texture};
use crate::native::finding::{Finding, Severity};
use crate::ops::verify::Candidate;

/// What the rules of a file need that the file itself may not hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// The node count of the model motions and shadows play on (`--model`).
    pub model_nodes: Option<u8>,
    /// The texture count of the PTX a loose model is drawn with (`--textures`).
    pub textures: Option<usize>,
}

/// How a file came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Nothing would stop the game (notes aside).
    Pass,
    /// Something would stop the game.
    Stops,
    /// The file cannot be read (or is named like a game file and is none).
    Unreadable,
    /// Found in a folder and no game file.
    Skipped,
}

/// What the check found in one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileCheck {
    /// The path as given or found.
    pub path: PathBuf,
    /// What it is: `mod`, `scm`, `pac`, `mot`, `ptx`, `tm2`, `shw`, `clt`, `efm`, `hie`, or
    /// `-` when not known.
    pub format: &'static str,
    /// The outcome.
    pub status: Status,
    /// Every finding, in file order.
    pub findings: Vec<Finding>,
    /// What the check could not judge here, and why (a format whose loader is not known, a
    /// rule that needs a model or PTX that was not given).
    pub unchecked: Vec<String>,
    /// Why the file is unreadable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The findings of some bytes, before they are judged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checked {
    /// What the bytes are (see [`FileCheck::format`]).
    pub format: &'static str,
    /// Every finding.
    pub findings: Vec<Finding>,
    /// What could not be judged.
    pub unchecked: Vec<String>,
}

impl Checked {
    /// Whether anything found would stop the game.
    pub fn stops(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Stops)
    }
}

/// Counts over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Files nothing in which would stop the game.
    pub pass: usize,
    /// Files something in which would.
    pub stops: usize,
    /// Files that could not be read.
    pub unreadable: usize,
    /// Files found in folders that are no game files.
    pub skipped: usize,
    /// Findings that would stop the game, over all files.
    pub stop_findings: usize,
    /// Notes, over all files.
    pub notes: usize,
}

impl Summary {
    /// Adds one file.
    pub fn add(&mut self, f: &FileCheck) {
        match f.status {
            Status::Pass => self.pass += 1,
            Status::Stops => self.stops += 1,
            Status::Unreadable => self.unreadable += 1,
            Status::Skipped => self.skipped += 1,
        }
        let stops = f.findings.iter().filter(|x| x.severity == Severity::Stops);
        self.stop_findings += stops.count();
        self.notes += f
            .findings
            .iter()
            .filter(|x| x.severity == Severity::Note)
            .count();
    }

    /// 2 when a file was unreadable, else 1 when something would stop the game, else 0.
    pub fn exit_code(&self) -> i32 {
        if self.unreadable > 0 {
            2
        } else if self.stops > 0 {
            1
        } else {
            0
        }
    }
}

/// What a file (or member) is, by its content (and a loose file's name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Model,
    Archive,
    Motion,
    Ptx,
    Tm2,
    Shadow,
    Cloth,
    Efm,
    Hie,
}

/// What `data` is: by content; for a loose file (`name` given) also a `.ptx`/`.tm2`/`.clt`
/// name (a texture whose DDS header was zeroed has no magic) and a HIE table.
fn kind_of(name: Option<&Path>, data: &[u8]) -> Option<Kind> {
    use crate::native::MotionFormat as M;
    let by_content = match name {
        Some(p) => crate::native::detect_motion_named(p, data),
        None => crate::native::detect_motion(data),
    };
    let named = |ext: &str| {
        name.and_then(|p| p.extension())
            .is_some_and(|e| e.eq_ignore_ascii_case(ext))
    };
    Some(match by_content {
        Some(M::Pac) => Kind::Archive,
        Some(M::Mot) => Kind::Motion,
        Some(M::Ptx) => Kind::Ptx,
        Some(M::Tm2) => Kind::Tm2,
        None if dmc3::has_container_magic(data) => Kind::Model,
        None if dmc3::shadow::has_shw_magic(data) => Kind::Shadow,
        None if data.starts_with(b"EFM ") || named("efm") => Kind::Efm,
        None if looks_like_cloth(data) || named("clt") => Kind::Cloth,
        None if name.is_some() && crate::native::hie::looks_like(data) => Kind::Hie,
        None => return None,
    })
}

/// Cloth text: `;NAME.clt`, then `ClothNum` (docs/formats.md, archives).
fn looks_like_cloth(data: &[u8]) -> bool {
    data.starts_with(b";") && data.windows(8).take(256).any(|w| w == b"ClothNum")
}

/// The format word of a kind (and of a model, its magic).
fn format_of(kind: Kind, data: &[u8]) -> &'static str {
    match kind {
        Kind::Model if data.starts_with(b"SCM ") => "scm",
        Kind::Model => "mod",
        Kind::Archive => "pac",
        Kind::Motion => "mot",
        Kind::Ptx => "ptx",
        Kind::Tm2 => "tm2",
        Kind::Shadow => "shw",
        Kind::Cloth => "clt",
        Kind::Efm => "efm",
        Kind::Hie => "hie",
    }
}

/// Checks the bytes of a file named `name` (its file name decides the player-archive rules:
/// `pl000.pac`); `Err` with why when they cannot be read as what they look like, `Ok(None)`
/// when they are no game file rigtrip knows.
pub fn check_bytes(
    name: &Path,
    data: &[u8],
    opts: &CheckOptions,
) -> Result<Option<Checked>, String> {
    let Some(kind) = kind_of(Some(name), data) else {
        return Ok(None);
    };
    let mut walk = Walk::default();
    let cx = Context {
        textures: opts.textures,
        model_nodes: opts.model_nodes,
        textures_from: "--textures",
        nodes_from: "--model",
        player: false,
    };
    let file_name = name
        .file_name()
        .map(|n| crate::ops::output::unstaged_name(&n.to_string_lossy()).to_string());
    walk.top(kind, file_name.as_deref(), data, &cx)?;
    // What a member could not be compared with is said once, not per member.
    let mut seen = std::collections::HashSet::new();
    walk.unchecked.retain(|u| seen.insert(u.clone()));
    Ok(Some(Checked {
        format: format_of(kind, data),
        findings: walk.findings,
        unchecked: walk.unchecked,
    }))
}

/// What a member's rules take from around it, and where it came from (for what the report
/// says when it is missing).
#[derive(Debug, Clone, Copy)]
struct Context {
    textures: Option<usize>,
    model_nodes: Option<u8>,
    textures_from: &'static str,
    nodes_from: &'static str,
    /// Inside a player archive, whose slots the archive's own rules judge together.
    player: bool,
}

/// The findings and the things not judged, gathered over a file and its members.
#[derive(Debug, Default)]
struct Walk {
    findings: Vec<Finding>,
    unchecked: Vec<String>,
}

/// `PLACE: ` before a note, or nothing at the top of a file.
fn at(place: &str) -> String {
    match place {
        "" => String::new(),
        p => format!("{p}: "),
    }
}

impl Walk {
    /// A whole file of `kind`: a loose file's reader refusing it makes it unreadable.
    fn top(
        &mut self,
        kind: Kind,
        name: Option<&str>,
        data: &[u8],
        cx: &Context,
    ) -> Result<(), String> {
        let refused = |what: &str, e: &(dyn std::error::Error + 'static)| {
            format!("{what}: {}", crate::chain(e))
        };
        match kind {
            Kind::Archive => {
                let p = Pac::read(data).map_err(|e| refused("archive", &e))?;
                self.archive("", name, &p, data, cx, 0);
            }
            Kind::Motion => match Mot::read(data) {
                Ok(m) => self.motion("", &m, cx),
                Err(e) => {
                    let found = motion::refusal_findings(&e);
                    if found.is_empty() {
                        return Err(refused("motion", &e));
                    }
                    self.findings.extend(found);
                }
            },
            Kind::Ptx => {
                let p = Ptx::read(data).map_err(|e| refused("PTX bundle", &e))?;
                self.findings.extend(texture::ptx_findings(&p));
            }
            Kind::Tm2 => {
                let t = Texture::read(data).map_err(|e| refused("texture", &e))?;
                self.findings.extend(texture::entry_findings(&t));
            }
            other => self.dispatch(other, "", data, cx, 0),
        }
        Ok(())
    }

    /// Archive member (or a loose file whose reader is not needed) at `place`.
    fn member(&mut self, place: &str, data: &[u8], cx: &Context, depth: usize) {
        let Some(kind) = kind_of(None, data) else {
            self.unchecked.push(format!(
                "{}a member of a kind rigtrip does not know ({}): no loader model, passes",
                at(place),
                pac::opaque_label(data)
            ));
            return;
        };
        self.dispatch(kind, place, data, cx, depth);
    }

    /// A member (or loose file) of `kind` at `place`, by its rules.
    fn dispatch(&mut self, kind: Kind, place: &str, data: &[u8], cx: &Context, depth: usize) {
        match kind {
            Kind::Model => self.model(place, data, cx),
            Kind::Archive if depth < MAX_NESTING => match Pac::read(data) {
                Ok(p) => self.archive(place, None, &p, data, cx, depth + 1),
                Err(e) => self.not_read(place, "archive", &e),
            },
            Kind::Motion => match Mot::read(data) {
                Ok(m) => self.motion(place, &m, cx),
                Err(e) => match motion::refusal_findings(&e) {
                    found if found.is_empty() => self.not_read(place, "motion", &e),
                    found => self.extend(place, found),
                },
            },
            Kind::Ptx => match Ptx::read(data) {
                Ok(p) => self.extend(place, texture::ptx_findings(&p)),
                Err(e) => self.not_read(place, "PTX bundle", &e),
            },
            Kind::Tm2 => match Texture::read(data) {
                Ok(t) => self.extend(place, texture::entry_findings(&t)),
                Err(e) => self.not_read(place, "texture", &e),
            },
            Kind::Shadow => self.shadow(place, data, cx),
            Kind::Cloth => self.cloth(place, data, cx),
            Kind::Archive => self.unchecked.push(format!(
                "{}an archive nested deeper than {MAX_NESTING}: not checked",
                at(place)
            )),
            Kind::Efm => self.unchecked.push(format!(
                "{}EFM: the loader of its container is not known, passes",
                at(place)
            )),
            Kind::Hie => self.unchecked.push(format!(
                "{}DBnnHIE.BIN (a PlayStation hierarchy table): no loader model is known for \
                 it, passes",
                at(place)
            )),
        }
    }

    fn extend(&mut self, place: &str, found: Vec<Finding>) {
        self.findings.extend(found.into_iter().map(|f| match place {
            "" => f,
            p => f.within(p),
        }));
    }

    fn not_read(&mut self, place: &str, what: &str, e: &(dyn std::error::Error + 'static)) {
        self.unchecked.push(format!(
            "{}the magic says {what}, but rigtrip's reader refuses it ({}): not checked",
            at(place),
            crate::chain(e)
        ));
    }

    fn model(&mut self, place: &str, data: &[u8], cx: &Context) {
        if cx.textures.is_none() {
            self.unchecked.push(format!(
                "texture slots not compared with a PTX (none {})",
                match cx.textures_from {
                    "--textures" => "given: --textures FILE.ptx",
                    from => from,
                }
            ));
        }
        let found = model_findings(
            data,
            ModelContext {
                textures: cx.textures,
            },
        );
        self.extend(place, found);
    }

    fn motion(&mut self, place: &str, m: &Mot, cx: &Context) {
        if cx.model_nodes.is_none() {
            self.unchecked.push(format!(
                "motion node counts not compared with a model (none {})",
                match cx.nodes_from {
                    "--model" => "given: --model FILE",
                    from => from,
                }
            ));
        }
        let found = motion::motion_findings(m, cx.model_nodes.map(usize::from));
        self.extend(place, found);
    }

    /// A shadow model: its hulls by the shadow rules (`native::dmc3::shadow_rules`: lists,
    /// closure, selectors below +0x11, budgets). Its +0x11 against its model: a loose one's
    /// with `--model` here, one in an archive's by the archive rules (which know the slots).
    fn shadow(&mut self, place: &str, data: &[u8], cx: &Context) {
        let model = match place {
            "" => cx.model_nodes,
            _ => None,
        };
        if place.is_empty() && model.is_none() {
            self.unchecked.push(
                "shadow +0x11 node count not compared with a model (none given: --model FILE)"
                    .to_string(),
            );
        }
        let mut found = shadow_rules::findings(data, None);
        if let (Some(&s), Some(m)) = (data.get(0x11), model) {
            found.extend(shadow_rules::node_count_finding(s, m, "the --model"));
        }
        self.extend(place, found);
    }

    /// A cloth file: its grammar and values (`native::dmc3::cloth_check`). In a player archive
    /// its rows are judged with the archive's coat and body ([`Walk::archive`]); a loose one, or
    /// one elsewhere, by its text alone.
    fn cloth(&mut self, place: &str, data: &[u8], cx: &Context) {
        if cx.player {
            return;
        }
        let Some(clt) = Clt::read(data) else {
            self.unchecked
                .push(format!("{}cloth text not readable: not checked", at(place)));
            return;
        };
        self.unchecked.push(format!(
            "{}cloth rows not compared with a coat (none beside it)",
            at(place)
        ));
        let found = cloth_check::check(&clt, &cloth_check::Context::default());
        self.extend(place, found);
    }
}

impl Walk {
    /// An archive at `place` (`name`: its file name, for a loose one): each member by its own
    /// magic, with the archive's PTX and body, then the player code's rules on its slots.
    fn archive(
        &mut self,
        place: &str,
        name: Option<&str>,
        p: &Pac,
        data: &[u8],
        outer: &Context,
        depth: usize,
    ) {
        let members = member_bytes(p, data);
        let slots = slot_kinds(p, &members);
        let player = archive::is_player(&archive::naming(name), &slots);
        let cx = archive_context(p, &members, &slots, player, outer);
        for (m, bytes) in p.members.iter().zip(&members) {
            let inner = member_place(place, &m.slots, player);
            self.member(&inner, bytes, &cx, depth);
        }
        let mut found = archive::archive_findings(name, &slots);
        if player {
            let stem = name.map(|n| n.rsplit_once('.').map_or(n, |(s, _)| s));
            found.extend(cloth_check::check_archive(p, stem));
        }
        self.extend(place, found);
    }
}

/// Each member's bytes: from its offset to the next member's, or to the end.
fn member_bytes<'a>(p: &Pac, data: &'a [u8]) -> Vec<&'a [u8]> {
    let starts: Vec<usize> = p.members.iter().map(|m| m.offset as usize).collect();
    let ends = starts.iter().skip(1).copied().chain([data.len()]);
    starts
        .iter()
        .zip(ends)
        .map(|(&s, e)| data.get(s..e).unwrap_or_default())
        .collect()
}

/// What each non-empty slot holds, as the archive rules need it.
fn slot_kinds(p: &Pac, members: &[&[u8]]) -> Vec<Slot> {
    let mut slots = Vec::new();
    for (m, bytes) in p.members.iter().zip(members) {
        let kind = if dmc3::has_container_magic(bytes) {
            match (model_nodes(bytes), bytes.starts_with(b"SCM ")) {
                (Some(nodes), scm) => SlotKind::Model {
                    kind: if scm {
                        dmc3::ContainerKind::Scm
                    } else {
                        dmc3::ContainerKind::Mod
                    },
                    nodes,
                },
                (None, _) => SlotKind::Other,
            }
        } else if dmc3::shadow::has_shw_magic(bytes) {
            bytes
                .get(0x11)
                .map_or(SlotKind::Other, |&nodes| SlotKind::Shadow { nodes })
        } else {
            SlotKind::Other
        };
        slots.extend(m.slots.iter().map(|&slot| Slot { slot, kind }));
    }
    slots.sort_by_key(|s| s.slot);
    slots
}

/// The PTX and model node count an archive's members take: its own (a player archive's slot 0
/// and body, else its first PTX and MOD), else the outer archive's or the command line's.
fn archive_context(
    p: &Pac,
    members: &[&[u8]],
    slots: &[Slot],
    player: bool,
    outer: &Context,
) -> Context {
    let ptx_of = |b: &[u8]| {
        (kind_of(None, b) == Some(Kind::Ptx))
            .then(|| Ptx::read(b).ok().map(|p| p.textures.len()))
            .flatten()
    };
    let in_slot0 = p
        .members
        .iter()
        .zip(members)
        .find(|(m, _)| m.slots.contains(&0))
        .and_then(|(_, b)| ptx_of(b));
    let textures = in_slot0.or_else(|| members.iter().find_map(|b| ptx_of(b)));
    let body = match player {
        true => archive::model_in(slots, archive::BODY_SLOT),
        false => slots.iter().find_map(|s| match s.kind {
            SlotKind::Model {
                kind: dmc3::ContainerKind::Mod,
                nodes,
            } => Some(nodes),
            _ => None,
        }),
    };
    Context {
        textures: textures.or(outer.textures),
        model_nodes: body.or(outer.model_nodes),
        textures_from: match textures {
            Some(_) => "",
            None if outer.textures.is_some() => outer.textures_from,
            None => "in the archive",
        },
        nodes_from: match body {
            Some(_) => "",
            None if outer.model_nodes.is_some() => outer.nodes_from,
            None => "in the archive: --model FILE",
        },
        player,
    }
}

/// `slot N (name)` or `slots A, B (names)` inside `outer`; names only for a player archive,
/// whose slot map they come from.
fn member_place(outer: &str, slots: &[usize], player: bool) -> String {
    let numbers: Vec<String> = slots.iter().map(|s| s.to_string()).collect();
    let names: Vec<&str> = slots.iter().filter_map(|&s| pac::slot_name(s)).collect();
    let mut own = match numbers.as_slice() {
        [one] => format!("slot {one}"),
        many => format!("slots {}", many.join(", ")),
    };
    if player && !names.is_empty() {
        own = format!("{own} ({})", names.join(", "));
    }
    match outer {
        "" => own,
        o => format!("{o}, {own}"),
    }
}

/// Checks one file on disk. A file found in a folder that is no game file is skipped; one
/// named on the command line is unreadable.
pub fn check_candidate(c: &Candidate, opts: &CheckOptions) -> FileCheck {
    let mut out = FileCheck {
        path: c.path.clone(),
        format: "-",
        status: Status::Unreadable,
        findings: Vec::new(),
        unchecked: Vec::new(),
        message: None,
    };
    let data = match std::fs::read(&c.path) {
        Ok(d) => d,
        Err(e) => {
            out.message = Some(format!("cannot read: {e}"));
            return out;
        }
    };
    match check_bytes(&c.path, &data, opts) {
        Ok(Some(checked)) => {
            out.status = match checked.stops() {
                true => Status::Stops,
                false => Status::Pass,
            };
            out.format = checked.format;
            out.findings = checked.findings;
            out.unchecked = checked.unchecked;
        }
        Ok(None) if !c.named && !crate::ops::verify::named_like_rig(&c.path) => {
            out.status = Status::Skipped;
        }
        Ok(None) => {
            let e = crate::native::ReadError::from(crate::native::diagnose::unrecognised(&data))
                .named(&c.path);
            out.message = Some(crate::chain(&e));
        }
        Err(message) => {
            out.format = kind_of(Some(&c.path), &data).map_or("-", |k| format_of(k, &data));
            out.message = Some(message);
        }
    }
    out
}

/// One finding as a line of the text report: `stops PLACE: FIELD: PROBLEM [EVIDENCE]`.
pub fn finding_line(f: &Finding) -> String {
    let place = match f.place.as_str() {
        "" => String::new(),
        p => format!("{p}: "),
    };
    format!(
        "{:<5} {place}{}: {} [{}]",
        f.severity.name(),
        f.field,
        f.problem,
        f.evidence.name()
    )
}

/// The node count a `--model` file gives: a MOD/SCM's header, or an archive's body (slot 1,
/// else its first MOD).
pub fn model_nodes_of(data: &[u8]) -> Option<u8> {
    if dmc3::has_container_magic(data) {
        return model_nodes(data);
    }
    let p = Pac::read(data).ok()?;
    let members = member_bytes(&p, data);
    let slots = slot_kinds(&p, &members);
    archive::model_in(&slots, archive::BODY_SLOT).or_else(|| {
        slots.iter().find_map(|s| match s.kind {
            SlotKind::Model { nodes, .. } => Some(nodes),
            _ => None,
        })
    })
}

/// The texture count a `--textures` file gives: a PTX bundle's.
pub fn textures_of(data: &[u8]) -> Option<usize> {
    Ptx::read(data).ok().map(|p| p.textures.len())
}

/// `N would stop the game, M note(s)` (the parts that are not zero), or nothing when nothing
/// was found.
pub fn counts(findings: &[Finding]) -> String {
    let stops = findings
        .iter()
        .filter(|f| f.severity == Severity::Stops)
        .count();
    let notes = findings.len() - stops;
    match (stops, notes) {
        (0, 0) => String::new(),
        (s, 0) => format!("{s} would stop the game"),
        (0, n) => format!("{n} note(s)"),
        (s, n) => format!("{s} would stop the game, {n} note(s)"),
    }
}

/// The check of bytes held in memory (what `import` is about to write) as a [`FileCheck`],
/// named `path`; bytes no rule knows pass, said so.
pub fn check_in_memory(path: &Path, bytes: &[u8], opts: &CheckOptions) -> FileCheck {
    let mut f = FileCheck {
        path: path.to_path_buf(),
        format: "-",
        status: Status::Pass,
        findings: Vec::new(),
        unchecked: Vec::new(),
        message: None,
    };
    match check_bytes(path, bytes, opts) {
        Ok(Some(c)) => {
            f.status = if c.stops() {
                Status::Stops
            } else {
                Status::Pass
            };
            f.format = c.format;
            f.findings = c.findings;
            f.unchecked = c.unchecked;
        }
        Ok(None) => f
            .unchecked
            .push("no loader model is known for it, passes".into()),
        Err(why) => f.unchecked.push(format!("not checked: {why}")),
    }
    f
}
