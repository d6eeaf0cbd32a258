//! Node names Blender would change: duplicates (renamed `.001`, `.002`, …) and names over 63
//! bytes (cut).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::doc::Doc;
use super::out::{Out, Severity};

/// Longest name Blender keeps, in bytes.
const MAX_NAME_BYTES: usize = 63;

/// `s` cut to at most `MAX_NAME_BYTES` bytes on a character boundary.
fn cut(s: &str) -> &str {
    let mut end = MAX_NAME_BYTES.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or(s)
}

/// The name Blender gives the next `name` when it is taken: the lowest `.NNN` suffix (from
/// `.001`) that no node already has and no earlier duplicate was given.
fn blender_rename(name: &str, taken: &HashSet<String>) -> String {
    (1u32..)
        .map(|k| format!("{name}.{k:03}"))
        .find(|c| !taken.contains(c))
        .unwrap_or_default()
}

/// The nodes some skin lists as a joint (as written; the skin checks judge the indices).
fn joint_nodes(doc: &Doc) -> HashSet<u64> {
    doc.array("skins")
        .iter()
        .filter_map(|s| s.get("joints").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_u64)
        .collect()
}

/// Reports duplicate node names and names longer than 63 bytes. A duplicate is a warning when
/// one of the two nodes is a joint (matching joints by name, as animation retargeting and
/// `rigtrip import` do, breaks), an info otherwise (only the object's name changes).
pub(crate) fn check(doc: &Doc, out: &mut Out) {
    let joints = joint_nodes(doc);
    let is_joint = |i: usize| joints.contains(&(i as u64));
    let mut seen: HashMap<&str, usize> = HashMap::new();
    // Every name a node has or will have after Blender's renames (filled lazily: only files
    // with duplicates pay for it).
    let mut taken: Option<HashSet<String>> = None;
    for (i, node) in doc.array("nodes").iter().enumerate() {
        let Some(name) = node.get("name").and_then(Value::as_str) else {
            continue;
        };
        let ptr = format!("/nodes/{i}/name");
        if name.len() > MAX_NAME_BYTES {
            out.warning(
                "name-too-long",
                ptr.clone(),
                format!(
                    "node {i}: name {name:?} is {} bytes; Blender cuts it to {:?}",
                    name.len(),
                    cut(name)
                ),
            );
        }
        if let Some(first) = seen.insert(name, i) {
            // Keep the first owner for the messages of later duplicates.
            seen.insert(name, first);
            let taken = taken.get_or_insert_with(|| {
                doc.array("nodes")
                    .iter()
                    .filter_map(|n| n.get("name").and_then(Value::as_str))
                    .map(str::to_string)
                    .collect()
            });
            let renamed = blender_rename(name, taken);
            let (severity, why) = if is_joint(i) || is_joint(first) {
                (Severity::Warning, "so matching joints by name breaks")
            } else {
                (
                    Severity::Info,
                    "neither is a joint, so no rig matches by it",
                )
            };
            out.push(
                severity,
                "name-duplicate",
                ptr,
                format!(
                    "node {i} is named {name:?} like node {first}; Blender renames it ({renamed:?}), {why}"
                ),
            );
            taken.insert(renamed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_respects_utf8() {
        let s = "é".repeat(40); // 80 bytes
        assert_eq!(cut(&s).len(), 62);
        assert_eq!(cut("short"), "short");
    }

    #[test]
    fn renames_take_the_lowest_free_suffix() {
        let mut taken: HashSet<String> = ["a", "a.001", "a.003"].map(String::from).into();
        assert_eq!(blender_rename("a", &taken), "a.002");
        taken.insert("a.002".into());
        assert_eq!(blender_rename("a", &taken), "a.004");
        assert_eq!(blender_rename("b", &taken), "b.001");
    }
}
