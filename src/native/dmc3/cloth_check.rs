//! The cloth rules of `rigtrip check`: what the game's cloth parser and solver do with a cloth
//! text ([`super::cloth`]) and the coat it drives (`docs/formats.md`, "Cloth"). Each rule
//! returns [`Finding`]s; the archive walk calls [`check_archive`], or [`check`] and
//! [`check_coat`] on members it found itself.

use super::cloth::{word, Clt, Grammar, Statement, ValueKind, AXES, BONE, CLOTH_NO};
use super::pac::{slot_name, MemberKind, Pac, COAT_SLOT};
use super::Dmc3File;
use crate::native::finding::Finding;
use crate::native::record::Evidence::{self, ExeConfirmed};

/// The body joint table's size (EXE): a `WindParent` past it reads outside the table.
const BODY_JOINT_TABLE: usize = super::loader::archive::BODY_NODES as usize;
/// Dante's costume archives: his actor holds one cloth block (EXE).
pub const DANTE_COSTUMES: [&str; 6] = ["pl000", "pl011", "pl013", "pl015", "pl016", "pl018"];
/// The most cloth blocks any actor is known to hold (Vergil's, EXE).
pub const MAX_BLOCKS_KNOWN: usize = 2;
/// The slot of the body model in a player archive (the slot map's).
const BODY_SLOT: usize = 1;

/// What the cloth rules see besides the text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// The coat the rows name, when known (the model in the slot before the cloth's).
    pub coat: Option<&'a Dmc3File>,
    /// The body, whose nodes `WindParent` names, when known.
    pub body: Option<&'a Dmc3File>,
    /// The archive's file name without its extension (`pl000`), when known.
    pub archive: Option<&'a str>,
}

/// The findings of a cloth text: its grammar, its rows against the coat, `WindParent` against
/// the body, its block count against the actor.
pub fn check(clt: &Clt, cx: &Context) -> Vec<Finding> {
    let g = clt.grammar();
    let mut out = grammar(clt, &g);
    for (b, block) in g.blocks.iter().enumerate() {
        let place = format!("block {b} (line {})", block.line() + 1);
        for s in block.params.iter().chain(&block.bones) {
            out.extend(statement(s, &place));
        }
        out.extend(repeated(&block.params, &place));
        for r in &block.bones {
            out.extend(row_against_coat(r, cx.coat, &place));
        }
        if let Some(s) = block.param("WindParent") {
            out.extend(wind_parent(s, cx.body, &place));
        }
    }
    out.extend(block_count(g.blocks.len(), cx.archive));
    out
}

/// The coat's own rule (its node count is the archive rules'): a node 0 whose local transform is
/// not the identity is noted (the game forces it to the identity and makes it follow body joint 3).
pub fn check_coat(coat: &Dmc3File) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(block) = &coat.block else {
        return out;
    };
    if let Some(t) = block.transforms.first() {
        let moved = t
            .translation()
            .iter()
            .chain(&t.rotation())
            .any(|&x| x != 0.0);
        if moved {
            out.push(Finding::note(
                "node 0",
                "local transform",
                "not the identity: the game forces node 0's local transform to the identity and makes it follow body joint 3, so the coat sits where an identity root puts it",
                ExeConfirmed,
            ));
        }
    }
    out
}

/// The cloth and coat findings of an archive named `archive` (without extension): every cloth
/// member (by its content) against the model in the slot before its own and the body (slot 1),
/// and the coat rule on the model in slot 12. Places name the slot (`slot 13 (cloth)`).
pub fn check_archive(pac: &Pac, archive: Option<&str>) -> Vec<Finding> {
    let model = |slot: usize| match pac.member_of(slot).map(|m| &m.kind) {
        Some(MemberKind::Model(f)) => Some(&**f),
        _ => None,
    };
    let mut out = Vec::new();
    for m in &pac.members {
        let (MemberKind::Cloth(c), Some(&slot)) = (&m.kind, m.slots.first()) else {
            continue;
        };
        let coat = slot.checked_sub(1).and_then(model);
        let cx = Context {
            coat,
            body: model(BODY_SLOT),
            archive,
        };
        let mut found = Vec::new();
        if coat.is_none() {
            found.push(Finding::note(
                "",
                "coat",
                format!("no model in slot {}: the rows name nodes of the model before the cloth's slot, so they are not checked", slot.saturating_sub(1)),
                Evidence::Community,
            ));
        }
        found.extend(check(c, &cx));
        let place = slot_place(slot);
        out.extend(found.into_iter().map(|f| f.within(&place)));
    }
    if let Some(coat) = model(COAT_SLOT) {
        let place = slot_place(COAT_SLOT);
        out.extend(check_coat(coat).into_iter().map(|f| f.within(&place)));
    }
    out
}

/// `slot N (name)` as findings name a member.
fn slot_place(slot: usize) -> String {
    match slot_name(slot) {
        Some(name) => format!("slot {slot} ({name})"),
        None => format!("slot {slot}"),
    }
}

/// The text's own grammar: a terminator, a `ClothNum` that counts the blocks, every block
/// closed, nothing outside the blocks.
fn grammar(clt: &Clt, g: &Grammar) -> Vec<Finding> {
    let mut out = Vec::new();
    if !clt.terminated() {
        out.push(Finding::stops(
            "",
            "terminator `$`",
            "missing: the parser reads until `$` and runs past the member",
            ExeConfirmed,
        ));
    }
    let count = g.count.as_ref().and_then(|c| match c.values.as_slice() {
        [v] => v.parse::<usize>().ok(),
        _ => None,
    });
    match count {
        None => out.push(Finding::stops(
            "line 1",
            "ClothNum",
            "not one whole number: the parser reads the block count from it",
            ExeConfirmed,
        )),
        Some(n) if n != g.blocks.len() => out.push(Finding::stops(
            "",
            "ClothNum",
            format!(
                "says {n} block(s), the text has {}: the parser reads {n}",
                g.blocks.len()
            ),
            ExeConfirmed,
        )),
        Some(_) => {}
    }
    for (b, block) in g.blocks.iter().enumerate() {
        if block.end.is_none() {
            out.push(Finding::stops(
                format!("block {b} (line {})", block.line() + 1),
                "End",
                "missing: the block runs into what follows",
                ExeConfirmed,
            ));
        }
    }
    for s in &g.stray {
        out.push(Finding::note(
            format!("line {}", s.line + 1),
            s.key.clone(),
            "outside any block (ClothNo ... End): the parser reads statements block by block",
            ExeConfirmed,
        ));
    }
    out
}

/// One statement of a block against the vocabulary: a known key, its value count and kind; a
/// row's node and axis.
fn statement(s: &Statement, place: &str) -> Option<Finding> {
    let at = format!("{place}, line {}", s.line + 1);
    let Some(w) = word(&s.key) else {
        return Some(Finding::note(
            at,
            s.key.clone(),
            "not in the cloth parser's vocabulary: the parser does not read it",
            ExeConfirmed,
        ));
    };
    let problem = if s.key == BONE {
        match (s.values.len(), s.node(), s.axis()) {
            (2, Some(_), Some(a)) if AXES.contains(&a) => return None,
            (2, Some(_), Some(a)) => format!("axis {a:?} is none of X Y Z NX NY NZ"),
            _ => format!(
                "{:?}: a row is a node index and an axis",
                s.values.join(" ")
            ),
        }
    } else if w.arity.is_some_and(|a| a != s.values.len()) {
        format!(
            "{} value(s), the parser reads {}",
            s.values.len(),
            w.arity.unwrap_or(0)
        )
    } else if w.kind != ValueKind::Text && s.numbers().is_none() {
        let kind = match w.kind {
            ValueKind::Int => "whole numbers",
            _ => "numbers",
        };
        format!("{:?}: the parser reads {kind}", s.values.join(" "))
    } else {
        return None;
    };
    Some(Finding::stops(at, s.key.clone(), problem, ExeConfirmed))
}

/// Keys written twice in a block (the parser reads both; which one holds is not known).
fn repeated(params: &[Statement], place: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, s) in params.iter().enumerate() {
        if s.key != CLOTH_NO && params[..i].iter().any(|p| p.key == s.key) {
            out.push(Finding::note(
                format!("{place}, line {}", s.line + 1),
                s.key.clone(),
                "written twice in the block",
                ExeConfirmed,
            ));
        }
    }
    out
}

/// A row's node against the coat: present, and not of zero length (node 0, whose local the
/// game forces to the identity, included).
fn row_against_coat(r: &Statement, coat: Option<&Dmc3File>, place: &str) -> Option<Finding> {
    let (node, block) = (r.node()?, coat?.block.as_ref()?);
    let at = format!("{place}, line {}", r.line + 1);
    let field = format!("Bone {node}");
    let Some(t) = block.transforms.get(node) else {
        return Some(Finding::stops(
            at,
            field,
            format!(
                "the coat has no node {node} ({} nodes): the solver reads past its joints",
                block.node_count()
            ),
            ExeConfirmed,
        ));
    };
    let [x, y, z] = t.translation();
    let len2 = x * x + y * y + z * z;
    let problem = match () {
        _ if node == 0 => "node 0: the game forces its local transform to the identity, a zero-length bone the solver divides by",
        _ if !len2.is_finite() => "its local translation is not finite: the solver divides by its length",
        _ if len2 == 0.0 => "its local translation is zero: the solver divides by the bone's length",
        _ => return None,
    };
    Some(Finding::stops(at, field, problem, ExeConfirmed))
}

/// `WindParent` names a body node (below the body's node count and the joint table's size).
fn wind_parent(s: &Statement, body: Option<&Dmc3File>, place: &str) -> Option<Finding> {
    let v: i64 = s.values.first()?.parse().ok()?;
    let at = format!("{place}, line {}", s.line + 1);
    let nodes = body.and_then(|b| b.block.as_ref()).map(|b| b.node_count());
    let limit = nodes.unwrap_or(BODY_JOINT_TABLE).min(BODY_JOINT_TABLE);
    if v < 0 {
        return Some(Finding::note(
            at,
            "WindParent",
            format!("{v}: names no body node"),
            ExeConfirmed,
        ));
    }
    (v as usize >= limit).then(|| {
        let of = match nodes {
            Some(n) => format!("the body has {n} nodes"),
            None => format!("the body joint table holds {BODY_JOINT_TABLE}"),
        };
        Finding::stops(
            at,
            "WindParent",
            format!("{v}: names no body node ({of}); the wind reads outside the joint table"),
            ExeConfirmed,
        )
    })
}

/// The block count against the actor: Dante's costumes hold one block, no actor is known to
/// hold more than [`MAX_BLOCKS_KNOWN`].
fn block_count(blocks: usize, archive: Option<&str>) -> Option<Finding> {
    let name = archive.map(str::to_ascii_lowercase);
    let dante = name.as_deref().is_some_and(|n| DANTE_COSTUMES.contains(&n));
    if dante && blocks > 1 {
        return Some(Finding::stops(
            "",
            "ClothNum",
            format!("{blocks} blocks in a Dante costume archive: his actor holds one, a second overwrites the next joint table"),
            ExeConfirmed,
        ));
    }
    (blocks > MAX_BLOCKS_KNOWN).then(|| {
        Finding::note(
            "",
            "ClothNum",
            format!("{blocks} blocks: Dante's actor holds one and Vergil's two; no actor is known to hold more"),
            ExeConfirmed,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &[u8], cx: &Context) -> Vec<(String, String)> {
        let c = Clt::read(text).unwrap();
        check(&c, cx)
            .into_iter()
            .map(|f| (f.field, f.severity.name().to_string()))
            .collect()
    }

    #[test]
    fn grammar_rules_find_each_defect() {
        let ok = b"ClothNum 1\r\nClothNo 0\r\nGravity 0 -0.2 0\r\nBone 2 NY\r\nEnd\r\n$";
        assert!(found(ok, &Context::default()).is_empty());
        let cases: [(&[u8], &str, &str); 8] = [
            (
                b"ClothNum 1\r\nClothNo 0\r\nEnd\r\n",
                "terminator `$`",
                "stops",
            ),
            (b"ClothNum 2\r\nClothNo 0\r\nEnd\r\n$", "ClothNum", "stops"),
            (b"ClothNum 1\r\nClothNo 0\r\n$", "End", "stops"),
            (
                b"ClothNum 1\r\nClothNo 0\r\nBone 2 W\r\nEnd\r\n$",
                "Bone",
                "stops",
            ),
            (
                b"ClothNum 1\r\nClothNo 0\r\nBone x NY\r\nEnd\r\n$",
                "Bone",
                "stops",
            ),
            (
                b"ClothNum 1\r\nClothNo 0\r\nGravity 0 1\r\nEnd\r\n$",
                "Gravity",
                "stops",
            ),
            (
                b"ClothNum 1\r\nClothNo 0\r\nWhirl 3\r\nEnd\r\n$",
                "Whirl",
                "note",
            ),
            (
                b"ClothNum 1\r\nStiffness 1\r\nClothNo 0\r\nEnd\r\n$",
                "Stiffness",
                "note",
            ),
        ];
        for (text, field, severity) in cases {
            let got = found(text, &Context::default());
            assert_eq!(
                got,
                [(field.to_string(), severity.to_string())],
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn two_blocks_stop_a_dante_costume_only() {
        let two = b"ClothNum 2\nClothNo 0\nEnd\nClothNo 1\nEnd\n$";
        let dante = Context {
            archive: Some("PL000"),
            ..Context::default()
        };
        assert_eq!(found(two, &dante), [("ClothNum".into(), "stops".into())]);
        let vergil = Context {
            archive: Some("pl001"),
            ..Context::default()
        };
        assert!(found(two, &vergil).is_empty());
    }
}
