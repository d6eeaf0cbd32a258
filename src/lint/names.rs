//! Node names Blender would change: duplicates (renamed `.001`) and names over 63 bytes (cut).

use std::collections::HashMap;

use serde_json::Value;

use super::doc::Doc;
use super::out::Out;

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

/// Reports duplicate node names and names longer than 63 bytes.
pub(crate) fn check(doc: &Doc, out: &mut Out) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
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
            out.warning(
                "name-duplicate",
                ptr,
                format!(
                    "node {i} is named {name:?} like node {first}; Blender renames it (\"{name}.001\"), so matching by name breaks"
                ),
            );
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
}
