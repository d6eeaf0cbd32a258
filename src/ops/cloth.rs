//! Cloth text in `inspect` and `--coverage` (see [`crate::native::dmc3::cloth`]): its blocks,
//! parameters and rows, each row with the coat node it names (by the name `export` gives that
//! node when the archive holds the coat), and each line's span.

use serde::Serialize;

use crate::native::dmc3::cloth::{word, Clt, Grammar, Statement, BONE, CLOTH_NUM, END};
use crate::native::dmc3::pac::{Member, MemberKind, Pac};
use crate::native::dmc3::Dmc3File;
use crate::native::record::{Evidence, Kind};

/// A cloth member.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClothReport {
    /// The first line's comment (`NAME.clt` in retail), without `;`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Lines before the terminator.
    pub lines: usize,
    /// `crlf`, `lf` or `mixed`.
    pub line_ends: &'static str,
    /// What `ClothNum` says, as written.
    pub count: String,
    /// The blocks.
    pub blocks: Vec<ClothBlock>,
    /// Statements outside any block.
    pub stray: usize,
    /// Whether the text ends at `$`.
    pub terminated: bool,
    /// Bytes from the terminator on (it, the padding, anything after).
    pub tail_len: usize,
    /// The slot of the model its rows name (the slot before its own), when that holds a model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coat_slot: Option<usize>,
}

/// One block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClothBlock {
    /// Its `ClothNo` line, from 1.
    pub line: usize,
    /// Its parameters: key and values as written.
    pub params: Vec<ClothParam>,
    /// Its rows.
    pub bones: Vec<ClothRow>,
    /// Whether it ends with `End`.
    pub closed: bool,
}

/// One parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClothParam {
    /// The key.
    pub key: String,
    /// Its values, as written.
    pub values: Vec<String>,
}

/// One `Bone` row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClothRow {
    /// The node it names (absent when it names none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<usize>,
    /// The axis, as written.
    pub axis: String,
    /// The glTF name `export` gives that coat node (absent when the coat is unknown or lacks it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub joint: Option<String>,
    /// Whether the coat is known and has the node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_coat: Option<bool>,
}

/// The coat a cloth member's rows name: the model in the slot before its first, with its
/// slots (for the name `export` gives it) and whether its skeleton is the body's.
pub struct CoatOf<'a> {
    /// Its slot.
    pub slot: usize,
    /// The model.
    pub file: &'a Dmc3File,
    /// Its joints' glTF names are the body's (the same block).
    pub shares_body: bool,
    /// Its part name in a document (`coat`).
    pub part: String,
}

impl<'a> CoatOf<'a> {
    /// The coat of the cloth member `m` of `pac`.
    pub fn of(pac: &'a Pac, m: &Member) -> Option<CoatOf<'a>> {
        let slot = m.slots.first()?.checked_sub(1)?;
        let coat = pac.member_of(slot)?;
        let MemberKind::Model(file) = &coat.kind else {
            return None;
        };
        let body = crate::ops::character::character(pac).map(|c| c.model);
        let shares_body = body.is_some_and(|b| b.block.is_some() && b.block == file.block);
        Some(CoatOf {
            slot,
            file,
            shares_body,
            part: crate::rig::archive::part_name(&coat.slots),
        })
    }

    /// The glTF name of node `k`, when the coat has it.
    fn joint(&self, k: usize) -> Option<String> {
        let n = self.file.block.as_ref()?.node_count();
        let name = crate::rig::joint_name(self.file.kind(), k);
        (k < n).then(|| match self.shares_body {
            true => name,
            false => format!("{}/{name}", self.part),
        })
    }
}

/// The report of `clt`, whose rows name nodes of `coat` when given.
pub fn report(clt: &Clt, coat: Option<&CoatOf>) -> ClothReport {
    let g = clt.grammar();
    let crlf = clt.lines.iter().filter(|l| l.ends_with("\r\n")).count();
    let lf = clt.lines.iter().filter(|l| l.ends_with('\n')).count();
    let blocks = g
        .blocks
        .iter()
        .map(|b| ClothBlock {
            line: b.line() + 1,
            params: b
                .params
                .iter()
                .map(|p| ClothParam {
                    key: p.key.clone(),
                    values: p.values.clone(),
                })
                .collect(),
            bones: b.bones.iter().map(|r| row(r, coat)).collect(),
            closed: b.end.is_some(),
        })
        .collect();
    ClothReport {
        title: clt.title().map(str::to_string),
        lines: clt.lines.len(),
        line_ends: match (crlf, lf) {
            (c, l) if c == l => "crlf",
            (0, _) => "lf",
            _ => "mixed",
        },
        count: g.count.map(|c| c.values.join(" ")).unwrap_or_default(),
        blocks,
        stray: g.stray.len(),
        terminated: clt.terminated(),
        tail_len: clt.tail.len(),
        coat_slot: coat.map(|c| c.slot),
    }
}

fn row(r: &Statement, coat: Option<&CoatOf>) -> ClothRow {
    let node = r.node();
    ClothRow {
        node,
        axis: r.values.get(1..).map(|v| v.join(" ")).unwrap_or_default(),
        joint: node.and_then(|k| coat?.joint(k)),
        in_coat: coat.and_then(|c| Some(node? < c.file.block.as_ref()?.node_count())),
    }
}

/// The text view of a report, each line after `indent`.
pub fn render(out: &mut String, r: &ClothReport, indent: &str) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "{indent}cloth text{}: {} line(s) ({}), ClothNum {}, {} block(s){}{}",
        r.title
            .as_ref()
            .map_or_else(String::new, |t| format!(" {t:?}")),
        r.lines,
        r.line_ends,
        r.count,
        r.blocks.len(),
        match r.stray {
            0 => String::new(),
            n => format!(", {n} statement(s) outside the blocks"),
        },
        match r.terminated {
            true => format!(
                ", then `$` and {} more byte(s)",
                r.tail_len.saturating_sub(1)
            ),
            false => ", no terminator `$`".to_string(),
        }
    );
    for (b, x) in r.blocks.iter().enumerate() {
        let params: Vec<String> = x
            .params
            .iter()
            .map(|p| format!("{} {}", p.key, p.values.join(" ")))
            .collect();
        let _ = writeln!(
            out,
            "{indent}  block {b} (line {}{}): {}",
            x.line,
            if x.closed { "" } else { ", no End" },
            params.join(", ")
        );
        let coat = r
            .coat_slot
            .map_or_else(|| "coat".to_string(), |s| format!("slot {s}"));
        let rows: Vec<String> = x
            .bones
            .iter()
            .map(|w| {
                let node = w.node.map_or_else(|| "?".to_string(), |n| n.to_string());
                let at = match (&w.joint, w.in_coat) {
                    (Some(j), _) => format!(" ({j})"),
                    (None, Some(false)) => format!(" (not in {coat})"),
                    _ => String::new(),
                };
                format!("{node} {}{at}", w.axis)
            })
            .collect();
        let _ = writeln!(
            out,
            "{indent}    {} Bone row(s): {}",
            x.bones.len(),
            rows.join(", ")
        );
    }
}

/// One span of a cloth member for `--coverage`: offset and length in the member, what it is,
/// its kind and evidence class.
pub type Span = (u64, u64, String, Kind, Evidence);

/// Every line of `clt` and its tail as coverage spans (offsets from the member's start): a
/// statement of the vocabulary is decoded (EXE), a comment or blank line kept (CORPUS), a key
/// outside the vocabulary undecoded; the terminator is decoded, the bytes after it padding.
pub fn spans(clt: &Clt, prefix: &str) -> Vec<Span> {
    let g = clt.grammar();
    let (lines, (tail_at, tail_len)) = clt.spans();
    let mut out: Vec<Span> = lines
        .iter()
        .enumerate()
        .map(|(i, &(at, len))| {
            let (what, kind, ev) = line_of(&g, i);
            (at, len, format!("{prefix}cloth {what}"), kind, ev)
        })
        .collect();
    if clt.terminated() {
        let t = format!("{prefix}cloth terminator `$`");
        out.push((tail_at, 1, t, Kind::Decoded, Evidence::ExeConfirmed));
        let p = format!("{prefix}cloth bytes after `$`");
        let rest = (tail_at + 1, tail_len.saturating_sub(1));
        out.push((
            rest.0,
            rest.1,
            p,
            Kind::Undecoded,
            Evidence::PreservedUndecoded,
        ));
    } else {
        let p = format!("{prefix}cloth tail");
        out.push((
            tail_at,
            tail_len,
            p,
            Kind::Undecoded,
            Evidence::PreservedUndecoded,
        ));
    }
    out
}

/// What line `i` is in `g`.
fn line_of(g: &Grammar, i: usize) -> (String, Kind, Evidence) {
    let known = |s: &Statement| word(&s.key).is_some();
    let named = |s: &Statement, at: String| -> (String, Kind, Evidence) {
        match known(s) {
            true => (at, Kind::Decoded, Evidence::ExeConfirmed),
            false => (
                format!("{at} (not in the vocabulary)"),
                Kind::Undecoded,
                Evidence::PreservedUndecoded,
            ),
        }
    };
    if let Some(c) = g.count.as_ref().filter(|c| c.line == i) {
        return named(c, format!("line {} {CLOTH_NUM}", i + 1));
    }
    for (b, block) in g.blocks.iter().enumerate() {
        if let Some(p) = block.params.iter().find(|p| p.line == i) {
            return named(p, format!("block {b} {}", p.key));
        }
        if let Some(k) = block.bones.iter().position(|r| r.line == i) {
            let r = &block.bones[k];
            let at = format!("block {b} {BONE} row {k} ({})", r.values.join(" "));
            return (at, Kind::Decoded, Evidence::ExeConfirmed);
        }
        if block.end == Some(i) {
            return (
                format!("block {b} {END}"),
                Kind::Decoded,
                Evidence::ExeConfirmed,
            );
        }
    }
    if let Some(s) = g.stray.iter().find(|s| s.line == i) {
        return named(s, format!("line {} {} (outside the blocks)", i + 1, s.key));
    }
    let what = format!("line {} (comment or blank)", i + 1);
    (what, Kind::Preserved, Evidence::CorpusConfirmed)
}

/// The dump schema of cloth text (`$defs/cltFile`).
pub fn dump_def() -> serde_json::Value {
    let statement = serde_json::json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["line", "key", "values"],
        "properties": {
            "line": { "type": "integer", "minimum": 0 },
            "key": { "type": "string" },
            "values": { "type": "array", "items": { "type": "string" } }
        }
    });
    serde_json::json!({
        "description": "Cloth text (.clt): the lines before the terminator `$`, each with its line end as read, and the tail (the terminator and every byte after it). The lines and the tail are what is written; `grammar` shows how the game's parser reads the lines (ClothNum, the blocks with their parameters and Bone rows, statements outside any block) and must agree with them.",
        "type": "object",
        "additionalProperties": false,
        "required": ["lines", "tail"],
        "properties": {
            "lines": { "type": "array", "items": { "type": "string" } },
            "tail": { "$ref": "#/$defs/base64" },
            "grammar": {
                "type": "object",
                "additionalProperties": false,
                "required": ["count", "blocks", "stray"],
                "properties": {
                    "count": { "anyOf": [statement.clone(), { "type": "null" }] },
                    "stray": { "type": "array", "items": statement.clone() },
                    "blocks": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["params", "bones", "end"],
                            "properties": {
                                "params": { "type": "array", "items": statement.clone() },
                                "bones": { "type": "array", "items": statement },
                                "end": { "type": ["integer", "null"], "minimum": 0 }
                            }
                        }
                    }
                }
            }
        }
    })
}
