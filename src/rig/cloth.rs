//! Cloth text in a document, and back (see [`crate::native::dmc3::cloth`]).
//!
//! The archive tag carries each cloth member's bytes ([`MemberTag::Cloth`]) with the glTF name
//! of every node its rows named when exported. Beside `scene.extras.rigtrip`, the scene extras
//! hold flat, editable properties per block (Blender shows scene extras, and the add-on the
//! rig collection's, as custom properties): `cloth13.0 Gravity` = `[0.0, -0.2, 0.0]`, one per
//! parameter of the vocabulary (a parameter the block lacks shows the parser's default), and
//! `cloth13.0 Bone` = `"coat/mod_3 Y, coat/mod_4 Y"`: the rows as joint names (or node
//! indices) with their axes. The cloth in slot `s` drives the model in slot `s - 1` (the slot
//! maps' pairs: 12/13 coat, 2/3 wings, 4/5 devil coat, 17/18).
//!
//! On import, a property equal to what the text holds changes nothing; an edited parameter is
//! written with six decimals (integers as such), a tab after its key, the rest of the text byte
//! for byte. Rows follow the list: a listed joint without a row gets one (its axis as listed,
//! else the axis of its rest frame that points at its parent), a row whose joint is not listed
//! is removed, and rows follow the coat's renumbering. A listed joint the coat no longer has is
//! refused by name.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::archive::{ArchiveTag, MemberTag};
use super::Skeleton;
use crate::native::dmc3::cloth::{
    word, Clt, Number, RowEdit, ValueKind, AXES, BONE, CLOTH_NO, CLOTH_NUM, END, VOCABULARY,
};

/// The prefix of the properties' keys.
pub const PREFIX: &str = "cloth";
/// The key of a block's row list.
pub const ROWS: &str = BONE;

/// The property key of `key` in block `block` of the cloth in slot `slot`.
pub fn key(slot: usize, block: usize, key: &str) -> String {
    format!("{PREFIX}{slot}.{block} {key}")
}

/// `(slot, block, key)` of a property key, `None` for a key that is no cloth property.
pub fn parse_key(k: &str) -> Option<(usize, usize, &str)> {
    let rest = k.strip_prefix(PREFIX)?;
    let (at, key) = rest.split_once(' ')?;
    let (slot, block) = at.split_once('.')?;
    Some((slot.parse().ok()?, block.parse().ok()?, key))
}

/// A model's joints as an import wrote them, for the rows that name them.
#[derive(Debug, Clone, Default)]
pub struct Joints {
    /// Per original joint its index as written (`None`: removed).
    pub map: Vec<Option<usize>>,
    /// Per written joint its name in the document.
    pub names: Vec<String>,
    /// The written skeleton (its rest pose gives a new row its axis).
    pub rest: Option<Skeleton>,
}

impl Joints {
    /// The written index of original joint `k` (`Some(None)`: removed; `None`: never was).
    fn written(&self, k: usize) -> Option<Option<usize>> {
        self.map.get(k).copied()
    }
}

/// The models of an archive as imported: the document's model and each part by name.
#[derive(Debug, Clone, Default)]
pub struct Models {
    /// The document's model.
    pub model: Joints,
    /// Each part (`coat`) by name.
    pub parts: Vec<(String, Joints)>,
}

/// Why edited cloth properties cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClothEditError {
    /// A property that names no cloth of the archive, no block, or no parameter.
    #[error("scene property {property:?}: {problem}")]
    Property {
        /// The property's key.
        property: String,
        /// What is wrong.
        problem: String,
    },
    /// A row names a joint the coat no longer has.
    #[error("cloth (slot {slot}) block {block}: the Bone row of {joint:?} (node {node} of the {model}) names a joint the {model} no longer has: the solver would read past its joints; put the joint back, or take it out of the cloth (the `cloth` bone collection, or scene property \"{}\") before deleting it", key(*slot, *block, ROWS))]
    RowWithoutJoint {
        /// The cloth's slot.
        slot: usize,
        /// The block.
        block: usize,
        /// The joint's name when exported.
        joint: String,
        /// Its original node.
        node: usize,
        /// `coat`, or `model`.
        model: String,
    },
    /// `WindParent` names a body joint the body no longer has.
    #[error("cloth (slot {slot}) block {block}: WindParent names body node {node}, which the model no longer has; set scene property \"{}\" to a body node", key(*slot, *block, "WindParent"))]
    WindParentGone {
        /// The cloth's slot.
        slot: usize,
        /// The block.
        block: usize,
        /// The node.
        node: usize,
    },
    /// The text refused the edit.
    #[error("cloth (slot {slot}): {source}")]
    Text {
        /// The cloth's slot.
        slot: usize,
        /// Why.
        #[source]
        source: crate::native::dmc3::cloth::ClothError,
    },
}

/// The keys a block shows as properties: the vocabulary's parameters (not the counts, the
/// block's number and id, rows or `End`).
fn shown(key: &str) -> bool {
    ![CLOTH_NUM, CLOTH_NO, "ClothId", BONE, END].contains(&key)
}

/// A parameter's numbers as a property value: one number, or a list.
fn value(nums: &[Number]) -> Value {
    let one = |n: &Number| match *n {
        Number::Int(i) => Value::from(i),
        Number::Float(f) => Value::from(f),
    };
    match nums {
        [n] => one(n),
        _ => Value::Array(nums.iter().map(one).collect()),
    }
}

/// The model a cloth in `slot` drives, as the tag shows it: `(part name or None for the
/// document's model, whether its joints are the model's)`; `None` when no model shown there.
fn driven(tag: &ArchiveTag, slot: usize) -> Option<(Option<String>, bool)> {
    let before = slot.checked_sub(1)?;
    tag.members.iter().find_map(|m| match m {
        MemberTag::Model { slots, .. } if slots.contains(&before) => Some((None, true)),
        MemberTag::Part {
            slots,
            name,
            joints,
            ..
        } if slots.contains(&before) => Some((Some(name.clone()), !joints.is_empty())),
        _ => None,
    })
}

/// A cloth member of an archive tag that reads as text.
struct ClothText<'a> {
    /// Its index in the tag's members.
    index: usize,
    /// Its offset on disk.
    offset: u32,
    /// Its first slot.
    slot: usize,
    /// Its bytes, as read.
    bytes: &'a [u8],
    /// Per node a row names, its joint's name in the document.
    names: &'a BTreeMap<String, String>,
    /// The text.
    clt: Clt,
}

/// Every cloth member of `tag` that reads as text, in member order.
fn cloth_texts(tag: &ArchiveTag) -> impl Iterator<Item = ClothText<'_>> {
    tag.members.iter().enumerate().filter_map(|(index, m)| {
        let MemberTag::Cloth {
            offset,
            slots,
            bytes,
            names,
        } = m
        else {
            return None;
        };
        Some(ClothText {
            index,
            offset: *offset,
            slot: *slots.first()?,
            bytes,
            names,
            clt: Clt::read(bytes)?,
        })
    })
}

/// Shows the cloth members of `tag` in a document: records in each the glTF name of every
/// node its rows name (`name(part, node)`, `None` for the document's model) and returns the
/// properties of every block, in order.
pub fn show(
    tag: &mut ArchiveTag,
    name: impl Fn(Option<&str>, usize) -> Option<String>,
) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let texts: Vec<_> = cloth_texts(tag)
        .map(|c| (c.index, c.slot, c.clt, driven(tag, c.slot)))
        .collect();
    for (index, slot, clt, drive) in texts {
        let Some(MemberTag::Cloth { names, .. }) = tag.members.get_mut(index) else {
            continue;
        };
        let node_name = |n: usize| match &drive {
            Some((part, shared)) => name(part.as_deref().filter(|_| !shared), n),
            None => None,
        };
        for (b, block) in clt.grammar().blocks.iter().enumerate() {
            for w in VOCABULARY.iter().filter(|w| shown(w.key)) {
                let nums = match block.param(w.key) {
                    Some(s) => s.numbers(),
                    None => w.default.map(|d| defaults(w.kind, d)),
                };
                if let Some(nums) = nums.filter(|n| !n.is_empty()) {
                    out.push((key(slot, b, w.key), value(&nums)));
                }
            }
            let mut rows = Vec::with_capacity(block.bones.len());
            for r in &block.bones {
                let axis = r.axis().unwrap_or_default();
                let Some(n) = r.node() else { continue };
                match node_name(n) {
                    Some(j) => {
                        rows.push(format!("{j} {axis}"));
                        names.insert(n.to_string(), j);
                    }
                    None => rows.push(format!("{n} {axis}")),
                }
            }
            out.push((key(slot, b, ROWS), Value::from(rows.join(", "))));
        }
    }
    out
}

/// A documented default as numbers of `kind`.
fn defaults(kind: ValueKind, d: &[f64]) -> Vec<Number> {
    d.iter()
        .map(|&v| match kind {
            ValueKind::Int => Number::Int(v as i64),
            _ => Number::Float(v),
        })
        .collect()
}

/// The cloth members an import wrote anew.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rebuilt {
    /// Per member written anew, its offset in the archive read and its bytes.
    pub members: Vec<(u32, Vec<u8>)>,
    /// What changed, a line per member.
    pub notes: Vec<String>,
}

/// The cloth members rebuilt from the document: each whose properties differ from its text
/// (or whose rows' joints were renumbered), with a note.
pub fn rebuild(
    tag: &ArchiveTag,
    props: &Map<String, Value>,
    models: &Models,
) -> Result<Rebuilt, ClothEditError> {
    let mut by_slot: BTreeMap<usize, Vec<(usize, &str, &Value, &str)>> = BTreeMap::new();
    for (k, v) in props {
        if let Some((slot, block, key)) = parse_key(k) {
            by_slot.entry(slot).or_default().push((block, key, v, k));
        }
    }
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for c in cloth_texts(tag) {
        let ClothText {
            offset,
            slot,
            bytes,
            names,
            clt,
            ..
        } = c;
        let edits = by_slot.remove(&slot).unwrap_or_default();
        let drive = driven(tag, slot);
        let cx = Edit {
            slot,
            names,
            coat: drive.as_ref().map(|d| joints_of(models, d.0.as_deref())),
            model: drive.map(|d| d.0.unwrap_or_else(|| "model".into())),
            body: &models.model,
        };
        let (new, said) = cx.apply(clt.clone(), &edits)?;
        let new = new.padded_like(&clt);
        if new.write() != *bytes {
            out.push((offset, new.write()));
            notes.push(format!("cloth (slot {slot}): {}", said.join("; ")));
        }
    }
    if let Some((_, list)) = by_slot.into_iter().next() {
        let (_, _, _, k) = list[0];
        return Err(ClothEditError::Property {
            property: k.to_string(),
            problem: "no cloth text in that slot of the archive".into(),
        });
    }
    Ok(Rebuilt {
        members: out,
        notes,
    })
}

/// Refuses a cloth row whose joint the document no longer has (`present(part, node)`: whether
/// the joint of that part, `None` for the document's model, is in it), before any model is
/// imported: a row the list still names (or every row, without a list). Checked again against
/// the import's numbering by [`rebuild`]; this first look names the row before a model's own
/// import refuses the lost joint for another reason (vertices weighted to it).
pub fn lost_rows(
    tag: &ArchiveTag,
    props: &Map<String, Value>,
    present: impl Fn(Option<&str>, usize) -> bool,
) -> Result<(), ClothEditError> {
    for ClothText {
        slot, names, clt, ..
    } in cloth_texts(tag)
    {
        let Some((part, shared)) = driven(tag, slot) else {
            continue;
        };
        let part = part.as_deref().filter(|_| !shared);
        for (b, block) in clt.grammar().blocks.iter().enumerate() {
            let list = props.get(&key(slot, b, ROWS)).and_then(Value::as_str);
            for n in block.bones.iter().filter_map(|r| r.node()) {
                // Only a joint the export named was there to lose (a row past the model's
                // joints is the file's own defect, for `check`).
                let Some(name) = names.get(&n.to_string()) else {
                    continue;
                };
                let listed = list.is_none_or(|l| {
                    l.split(',').any(|e| {
                        let joint = e.split_whitespace().next().unwrap_or_default();
                        joint == name || joint == n.to_string()
                    })
                });
                if listed && !present(part, n) {
                    return Err(ClothEditError::RowWithoutJoint {
                        slot,
                        block: b,
                        joint: name.clone(),
                        node: n,
                        model: part.unwrap_or("model").to_string(),
                    });
                }
            }
        }
    }
    Ok(())
}

/// The joints of the model named `part` (`None`: the document's model).
fn joints_of<'m>(models: &'m Models, part: Option<&str>) -> &'m Joints {
    match part {
        None => &models.model,
        Some(p) => models
            .parts
            .iter()
            .find(|(n, _)| n == p)
            .map_or(&models.model, |(_, j)| j),
    }
}

/// One cloth member's edit.
struct Edit<'a> {
    slot: usize,
    /// The glTF name of each node its rows named when exported.
    names: &'a BTreeMap<String, String>,
    /// The joints of the model its rows name, when shown.
    coat: Option<&'a Joints>,
    /// That model's name (`coat`).
    model: Option<String>,
    /// The document's model (`WindParent` names its nodes).
    body: &'a Joints,
}

impl Edit<'_> {
    /// `clt` with the properties `edits` (block, key, value, property key) applied, and what
    /// changed.
    fn apply(
        &self,
        mut clt: Clt,
        edits: &[(usize, &str, &Value, &str)],
    ) -> Result<(Clt, Vec<String>), ClothEditError> {
        let mut said = Vec::new();
        let mut edited: Vec<(usize, &str)> = Vec::new();
        let blocks = clt.grammar().blocks.len();
        for &(block, key, v, prop) in edits {
            let bad = |problem: String| ClothEditError::Property {
                property: prop.to_string(),
                problem,
            };
            if block >= blocks {
                return Err(bad(format!("the cloth has {blocks} block(s)")));
            }
            if key == ROWS {
                continue;
            }
            let w = word(key)
                .filter(|w| shown(w.key))
                .ok_or_else(|| bad("not a parameter of the cloth parser's vocabulary".into()))?;
            let incoming =
                numbers(v).ok_or_else(|| bad("not a number or a list of numbers".into()))?;
            let g = clt.grammar();
            let b = &g.blocks[block];
            let was = match b.param(key) {
                Some(s) => s.numbers().unwrap_or_default(),
                None => w.default.map_or_else(Vec::new, |d| defaults(w.kind, d)),
            };
            let same = was.len() == incoming.len()
                && was
                    .iter()
                    .zip(&incoming)
                    .all(|(a, b)| a.as_f64() == b.as_f64());
            if same {
                continue;
            }
            clt = clt
                .set_value(block, key, &incoming)
                .map_err(|e| bad(e.to_string()))?;
            said.push(format!(
                "block {block} {key}: {} -> {}",
                text(&was),
                text(&incoming)
            ));
            edited.push((block, w.key));
        }
        for block in 0..blocks {
            let list = edits
                .iter()
                .find(|e| e.0 == block && e.1 == ROWS)
                .map(|e| (e.2, e.3));
            clt = self.rows(clt, block, list, &mut said)?;
            clt = self.wind_parent(clt, block, &edited, &mut said)?;
        }
        Ok((clt, said))
    }

    /// Block `block`'s rows made what `list` (the property's value and key) says, or, without
    /// a list, kept and renumbered with the coat.
    fn rows(
        &self,
        clt: Clt,
        block: usize,
        list: Option<(&Value, &str)>,
        said: &mut Vec<String>,
    ) -> Result<Clt, ClothEditError> {
        let g = clt.grammar();
        let rows = &g.blocks[block].bones;
        let listed = match list {
            Some((v, prop)) => Some(self.listed(v, prop)?),
            None => None,
        };
        // Per row of node n: Some(axis given) when an entry not taken by an earlier row of the
        // same node lists it (every row is listed, without a list).
        let mut used = vec![false; listed.as_ref().map_or(0, Vec::len)];
        let mut entry = |n: usize| match &listed {
            None => Some(None),
            Some(l) => {
                let i = (0..l.len()).find(|&i| !used[i] && l[i].original == Some(n))?;
                used[i] = true;
                Some(l[i].axis.clone())
            }
        };
        let mut edits: Vec<RowEdit> = Vec::with_capacity(rows.len());
        for r in rows {
            let Some(n) = r.node() else {
                edits.push(RowEdit {
                    line: Some(r.line),
                    node: None,
                    axis: String::new(),
                });
                continue;
            };
            match (entry(n), self.now(n)) {
                (Some(_), None) => return Err(self.gone(block, n)),
                (None, _) => said.push(format!("block {block}: the row of node {n} removed")),
                (Some(axis), Some(w)) => {
                    if w != n {
                        said.push(format!(
                            "block {block}: the row of node {n} now names node {w}"
                        ));
                    }
                    let was = r.axis().unwrap_or_default();
                    let axis = axis.unwrap_or_else(|| was.to_string());
                    if axis != was {
                        said.push(format!(
                            "block {block}: the row of node {n}: axis {was} -> {axis}"
                        ));
                    }
                    edits.push(RowEdit {
                        line: Some(r.line),
                        node: Some(w),
                        axis,
                    });
                }
            }
        }
        self.added(block, rows, listed.as_deref(), &mut edits, said)?;
        clt.set_rows(block, &edits)
            .map_err(|source| ClothEditError::Text {
                slot: self.slot,
                source,
            })
    }

    /// A new row in `edits` for every listed joint no row of `rows` names (with the axis
    /// listed, else [`Edit::default_axis`]); a listed joint the coat lost is refused.
    fn added(
        &self,
        block: usize,
        rows: &[crate::native::dmc3::cloth::Statement],
        listed: Option<&[Listed]>,
        edits: &mut Vec<RowEdit>,
        said: &mut Vec<String>,
    ) -> Result<(), ClothEditError> {
        let had = |k: usize| rows.iter().any(|r| r.node() == Some(k));
        for e in listed.into_iter().flatten() {
            if e.original.is_some_and(had) {
                continue;
            }
            let Some(w) = e.written else {
                return Err(self.gone(block, e.original.unwrap_or_default()));
            };
            if edits.iter().any(|x| x.node == Some(w)) {
                continue;
            }
            let axis = e.axis.clone().unwrap_or_else(|| self.default_axis(w));
            said.push(format!(
                "block {block}: a row added for {:?} (node {w}, axis {axis})",
                e.name
            ));
            edits.push(RowEdit {
                line: None,
                node: Some(w),
                axis,
            });
        }
        Ok(())
    }

    /// The written index of original node `n` of the coat (`None`: removed); `n` itself
    /// without a coat, or for a node the coat never had.
    fn now(&self, n: usize) -> Option<usize> {
        match self.coat.and_then(|c| c.written(n)) {
            Some(w) => w,
            None => Some(n),
        }
    }

    /// The refusal of a row whose node `n` the coat lost.
    fn gone(&self, block: usize, n: usize) -> ClothEditError {
        ClothEditError::RowWithoutJoint {
            slot: self.slot,
            block,
            joint: self
                .names
                .get(&n.to_string())
                .cloned()
                .unwrap_or_else(|| format!("node {n}")),
            node: n,
            model: self.model.clone().unwrap_or_else(|| "coat".into()),
        }
    }

    /// The entries of a row list: each joint resolved, with its axis when given.
    fn listed(&self, v: &Value, prop: &str) -> Result<Vec<Listed>, ClothEditError> {
        let bad = |problem: String| ClothEditError::Property {
            property: prop.to_string(),
            problem,
        };
        let text = v.as_str().ok_or_else(|| {
            bad("not a text (joint names with their axes, separated by commas)".into())
        })?;
        let mut out = Vec::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (name, axis) = match entry.rsplit_once(char::is_whitespace) {
                Some((n, a)) if AXES.contains(&a) => (n.trim(), Some(a.to_string())),
                _ => (entry, None),
            };
            let model = self.model.as_deref().unwrap_or("coat");
            let (original, written) = self
                .resolve(name)
                .ok_or_else(|| bad(format!("{name:?} names no joint of the {model}")))?;
            out.push(Listed {
                name: name.to_string(),
                original,
                written,
                axis,
            });
        }
        Ok(out)
    }

    /// What a listed name stands for, as (original node, written node): a joint as written
    /// now (by its name), else a node the rows named when exported (by its name then, or its
    /// index). `None` when it names nothing.
    fn resolve(&self, name: &str) -> Option<(Option<usize>, Option<usize>)> {
        if let Some(c) = self.coat {
            if let Some(w) = c.names.iter().position(|n| n == name) {
                let original = c.map.iter().position(|m| *m == Some(w));
                return Some((original, Some(w)));
            }
        }
        let exported = self.names.iter().find(|(_, n)| *n == name);
        let k = exported
            .and_then(|(k, _)| k.parse().ok())
            .or_else(|| name.parse().ok())?;
        Some((Some(k), self.now(k)))
    }

    /// The axis a new row of node `w` gets: the axis of its rest frame that points at its
    /// parent (`Y` without a coat or a parent).
    fn default_axis(&self, w: usize) -> String {
        let rest = self.coat.and_then(|c| c.rest.as_ref());
        let j = rest.and_then(|s| s.joints.get(w));
        let to_parent = j.map(|j| -(j.rotation.inverse() * j.translation));
        let d = match to_parent {
            Some(d) if d.length() > 0.0 => d,
            _ => return "Y".into(),
        };
        let a = d.abs();
        let (k, v) = match () {
            _ if a.x >= a.y && a.x >= a.z => (0, d.x),
            _ if a.y >= a.z => (1, d.y),
            _ => (2, d.z),
        };
        let axis = ["X", "Y", "Z"][k];
        match v < 0.0 {
            true => format!("N{axis}"),
            false => axis.into(),
        }
    }

    /// `WindParent` of block `block` following the body's renumbering when its property was
    /// not edited (an edited one is the user's); refused when its node is gone.
    fn wind_parent(
        &self,
        clt: Clt,
        block: usize,
        edited: &[(usize, &str)],
        said: &mut Vec<String>,
    ) -> Result<Clt, ClothEditError> {
        let g = clt.grammar();
        let Some(s) = g.blocks[block].param("WindParent") else {
            return Ok(clt);
        };
        let Some(n) = s.values.first().and_then(|v| v.parse::<usize>().ok()) else {
            return Ok(clt);
        };
        // An edited WindParent is the user's choice (already written); else it follows the body.
        let edited = edited.contains(&(block, "WindParent"));
        match self.body.written(n) {
            Some(Some(w)) if w != n && !edited => {
                said.push(format!(
                    "block {block} WindParent: {n} -> {w} (the body renumbered)"
                ));
                clt.set_value(block, "WindParent", &[Number::Int(w as i64)])
                    .map_err(|source| ClothEditError::Text {
                        slot: self.slot,
                        source,
                    })
            }
            Some(None) if !edited => Err(ClothEditError::WindParentGone {
                slot: self.slot,
                block,
                node: n,
            }),
            _ => Ok(clt),
        }
    }
}

/// A listed joint.
#[derive(Debug, Clone, PartialEq)]
struct Listed {
    /// As listed.
    name: String,
    /// Its node in the coat as exported, when it had one.
    original: Option<usize>,
    /// Its node as written (`None`: removed).
    written: Option<usize>,
    /// The axis listed with it.
    axis: Option<String>,
}

/// A property value as numbers.
fn numbers(v: &Value) -> Option<Vec<Number>> {
    let one = |x: &Value| {
        x.as_i64()
            .map(Number::Int)
            .or_else(|| x.as_f64().map(Number::Float))
    };
    match v {
        Value::Array(a) => a.iter().map(one).collect(),
        _ => one(v).map(|n| vec![n]),
    }
}

/// Numbers as the report says them.
fn text(nums: &[Number]) -> String {
    let t: Vec<String> = nums.iter().map(|n| n.text()).collect();
    t.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An archive tag with the body in slot 1, the coat (a part) in 12 and `cloth` in 13,
    /// whose rows named coat nodes 3 and 5 as `coat/mod_3` and `coat/mod_5`.
    fn tag(cloth: Vec<u8>) -> ArchiveTag {
        let names =
            [(3, "coat/mod_3"), (5, "coat/mod_5")].map(|(n, j)| (n.to_string(), j.to_string()));
        ArchiveTag {
            offsets: vec![0; 14],
            gap: Vec::new(),
            members: vec![
                MemberTag::Model {
                    offset: 0x40,
                    slots: vec![1],
                },
                MemberTag::Part {
                    offset: 0x80,
                    slots: vec![12],
                    name: "coat".into(),
                    scene: Value::Null,
                    joints: Vec::new(),
                },
                MemberTag::Cloth {
                    offset: 0xC0,
                    slots: vec![13],
                    bytes: cloth,
                    names: names.into_iter().collect(),
                },
            ],
            properties: Map::new(),
        }
    }

    /// Joints where original `gone` was removed and those after it moved down one.
    fn without(count: usize, gone: usize) -> Joints {
        let map = (0..count)
            .map(|k| match k.cmp(&gone) {
                std::cmp::Ordering::Less => Some(k),
                std::cmp::Ordering::Equal => None,
                std::cmp::Ordering::Greater => Some(k - 1),
            })
            .collect();
        Joints {
            map,
            names: Vec::new(),
            rest: None,
        }
    }

    #[test]
    fn rows_follow_the_coat_s_numbering_and_wind_parent_the_body_s() {
        let text = crate::synth::cloth::coat_clt("c", &[(3, "Y"), (5, "NX")], 7);
        let t = tag(text.clone());
        let models = Models {
            model: without(10, 2),
            parts: vec![("coat".into(), without(8, 1))],
        };
        let r = rebuild(&t, &Map::new(), &models).unwrap();
        let [(offset, bytes)] = &r.members[..] else {
            panic!("{r:?}")
        };
        assert_eq!(*offset, 0xC0);
        let want = String::from_utf8_lossy(&text)
            .replace("Bone\t3 Y", "Bone\t2 Y")
            .replace("Bone\t5 NX", "Bone\t4 NX")
            .replace("WindParent\t7", "WindParent\t6");
        assert_eq!(String::from_utf8_lossy(bytes), want);
        // Nothing renumbered: nothing written.
        let same = Models {
            model: without(10, 9),
            parts: vec![("coat".into(), without(8, 7))],
        };
        assert_eq!(rebuild(&t, &Map::new(), &same).unwrap(), Rebuilt::default());
        // A row's joint removed: refused, naming it.
        let lost = Models {
            model: without(10, 9),
            parts: vec![("coat".into(), without(8, 5))],
        };
        let e = rebuild(&t, &Map::new(), &lost).unwrap_err();
        assert!(
            e.to_string()
                .contains("\"coat/mod_5\" (node 5 of the coat)"),
            "{e}"
        );
        // WindParent's body node removed: refused, naming the property to set.
        let wind = Models {
            model: without(10, 7),
            parts: vec![("coat".into(), without(8, 7))],
        };
        let e = rebuild(&t, &Map::new(), &wind).unwrap_err();
        assert!(e.to_string().contains("cloth13.0 WindParent"), "{e}");
    }
}
