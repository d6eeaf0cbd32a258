//! JSON written before the container records named what the game's executable does with their
//! fields (a dump's `file`, a glTF's `scene.extras.rigtrip.source`), read again: the old keys
//! become the new ones, a byte field that is now several fields is cut into them, and nothing
//! else changes. So `build` takes an older dump, and `import` an older GLB, as before.
//!
//! | record | before | now |
//! |---|---|---|
//! | header | `unknown_13`, `unknown_14` | `default_joint`, `resource_code` |
//! | object | `unknown_01`, `unknown_14` (28 bytes) | `alpha_control`, `unknown_14`, `render_18`, `render_1c`, `unknown_20` |
//! | mesh | `unknown_04` (12 bytes) | `clamp_min_u`, `clamp_max_u`, `clamp_min_v`, `clamp_max_v`, `unknown_0c` |
//! | mesh | `unknown_40`, `unknown_48` (8 bytes) | `workspace_offset`, `index_count`, `unknown_4c` |
//! | MOD streams | `unknown_38` (8 bytes) | `auxiliary_offset` |
//! | SCM streams | `unknown_28` (16 bytes) | `continuation`, `unknown_30` |
//!
//! A value that is not what the old form held (not hex of the old length) is left under its old
//! key, so that the reader names it as it names any unknown or missing field.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// A DMC3 file's JSON (`{"container": ..., "block": ..., "gaps": ...}`) in the current form:
/// borrowed as it is unless a record of its container still has a key of the old form.
pub fn upgrade_file(v: &Value) -> Cow<'_, Value> {
    if !file_is_old(v) {
        return Cow::Borrowed(v);
    }
    let mut v = v.clone();
    upgrade_file_in_place(&mut v);
    Cow::Owned(v)
}

/// An archive's JSON (`{"members": [...], ...}`) with every model member (nested archives
/// included) in the current form.
pub fn upgrade_pac(v: &Value) -> Cow<'_, Value> {
    if !pac_is_old(v) {
        return Cow::Borrowed(v);
    }
    let mut v = v.clone();
    upgrade_pac_in_place(&mut v);
    Cow::Owned(v)
}

/// Whether any record of the file's container holds a key of the old form.
fn file_is_old(v: &Value) -> bool {
    let has = |r: Option<&Value>, keys: &[&str]| {
        r.and_then(Value::as_object)
            .is_some_and(|m| keys.iter().any(|k| m.contains_key(*k)))
    };
    let Some(c) = v.get("container") else {
        return false;
    };
    let objects = c.get("objects").and_then(Value::as_array);
    has(c.get("header"), &["unknown_13"])
        || objects.into_iter().flatten().any(|o| {
            has(o.get("record"), &["unknown_01"])
                || o.get("record")
                    .and_then(Value::as_object)
                    .is_some_and(|r| old_bytes(r, "unknown_14", 28).is_some())
                || o.get("meshes")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .any(|m| mesh_is_old(m.get("record")))
        })
}

/// Whether a mesh record (or its MOD/SCM part) holds a key of the old form.
fn mesh_is_old(r: Option<&Value>) -> bool {
    let Some(r) = r.and_then(Value::as_object) else {
        return false;
    };
    let variant = r.get("variant").and_then(Value::as_object);
    ["unknown_04", "unknown_40", "unknown_48"]
        .iter()
        .any(|k| r.contains_key(*k))
        || variant.is_some_and(|v| {
            v.get("Mod").is_some_and(|m| m.get("unknown_38").is_some())
                || v.get("Scm").is_some_and(|m| m.get("unknown_28").is_some())
        })
}

fn pac_is_old(v: &Value) -> bool {
    members(v).any(|kind| match kind {
        Member::Model(f) => file_is_old(f),
        Member::Archive(a) => pac_is_old(a),
    })
}

/// A member's kind that may hold container records.
enum Member<'a> {
    Model(&'a Value),
    Archive(&'a Value),
}

fn members(v: &Value) -> impl Iterator<Item = Member<'_>> {
    v.get("members")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let kind = m.get("kind")?;
            kind.get("model")
                .map(Member::Model)
                .or_else(|| kind.get("archive").map(Member::Archive))
        })
}

fn upgrade_pac_in_place(v: &mut Value) {
    let Some(list) = v.get_mut("members").and_then(Value::as_array_mut) else {
        return;
    };
    for m in list {
        let Some(kind) = m.get_mut("kind") else {
            continue;
        };
        if let Some(f) = kind.get_mut("model") {
            upgrade_file_in_place(f);
        } else if let Some(a) = kind.get_mut("archive") {
            upgrade_pac_in_place(a);
        }
    }
}

fn upgrade_file_in_place(v: &mut Value) {
    let Some(c) = v.get_mut("container") else {
        return;
    };
    if let Some(h) = c.get_mut("header").and_then(Value::as_object_mut) {
        rename(h, "unknown_13", "default_joint");
        rename(h, "unknown_14", "resource_code");
    }
    let Some(objects) = c.get_mut("objects").and_then(Value::as_array_mut) else {
        return;
    };
    for o in objects {
        if let Some(r) = o.get_mut("record").and_then(Value::as_object_mut) {
            upgrade_object(r);
        }
        let Some(meshes) = o.get_mut("meshes").and_then(Value::as_array_mut) else {
            continue;
        };
        for m in meshes {
            if let Some(r) = m.get_mut("record").and_then(Value::as_object_mut) {
                upgrade_mesh(r);
            }
        }
    }
}

fn upgrade_object(r: &mut Map<String, Value>) {
    rename(r, "unknown_01", "alpha_control");
    if let Some(b) = old_bytes(r, "unknown_14", 28) {
        r.insert("unknown_14".into(), hex32(&b[0..4]));
        r.insert("render_18".into(), hex32(&b[4..8]));
        r.insert("render_1c".into(), hex32(&b[8..12]));
        r.insert("unknown_20".into(), plain_hex(&b[12..28]));
    }
}

fn upgrade_mesh(r: &mut Map<String, Value>) {
    if let Some(b) = old_bytes(r, "unknown_04", 12) {
        r.remove("unknown_04");
        for (k, key) in ["clamp_min_u", "clamp_max_u", "clamp_min_v", "clamp_max_v"]
            .into_iter()
            .enumerate()
        {
            r.insert(
                key.into(),
                Value::from(u16::from_le_bytes([b[2 * k], b[2 * k + 1]])),
            );
        }
        r.insert("unknown_0c".into(), hex32(&b[8..12]));
    }
    rename(r, "unknown_40", "workspace_offset");
    if let Some(b) = old_bytes(r, "unknown_48", 8) {
        r.remove("unknown_48");
        r.insert("index_count".into(), hex32(&b[0..4]));
        r.insert("unknown_4c".into(), hex32(&b[4..8]));
    }
    let Some(variant) = r.get_mut("variant").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(m) = variant.get_mut("Mod").and_then(Value::as_object_mut) {
        if let Some(b) = old_bytes(m, "unknown_38", 8) {
            m.remove("unknown_38");
            m.insert("auxiliary_offset".into(), hex64(&b));
        }
    }
    if let Some(s) = variant.get_mut("Scm").and_then(Value::as_object_mut) {
        if let Some(b) = old_bytes(s, "unknown_28", 16) {
            s.remove("unknown_28");
            s.insert("continuation".into(), hex64(&b[0..8]));
            s.insert("unknown_30".into(), hex64(&b[8..16]));
        }
    }
}

/// Moves `from` to `to` unless `to` is there already.
fn rename(m: &mut Map<String, Value>, from: &str, to: &str) {
    if m.contains_key(to) {
        return;
    }
    if let Some(v) = m.remove(from) {
        m.insert(to.into(), v);
    }
}

/// The bytes of `key` when it holds the old form: plain hex (no `0x`) of exactly `len` bytes.
fn old_bytes(m: &Map<String, Value>, key: &str, len: usize) -> Option<Vec<u8>> {
    let s = m.get(key)?.as_str()?;
    if s.starts_with("0x") || s.len() != 2 * len {
        return None;
    }
    crate::bytes::hex_bytes::decode(s).ok()
}

fn hex32(b: &[u8]) -> Value {
    let mut a = [0u8; 4];
    a.copy_from_slice(b);
    Value::from(format!("{:#x}", u32::from_le_bytes(a)))
}

fn hex64(b: &[u8]) -> Value {
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Value::from(format!("{:#x}", u64::from_le_bytes(a)))
}

fn plain_hex(b: &[u8]) -> Value {
    Value::from(crate::bytes::hex_bytes::encode(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A mesh record in the old form becomes the same bytes in the new one.
    #[test]
    fn old_keys_become_the_new_fields() {
        let old = json!({"container": {"header": {"unknown_13": 1, "unknown_14": "0xd7"},
            "objects": [{"record": {"unknown_01": 128,
                "unknown_14": "00000000cdcccc3d0200000000000000000000000000000000000000"},
              "meshes": [{"record": {
                "unknown_04": "010002000300040005000000", "unknown_40": "0x3a0",
                "unknown_48": "0000000009000000",
                "variant": {"Scm": {"unknown_28": "50000000000000000100000000000000"}}}}]}]}});
        let new = upgrade_file(&old);
        let c = &new["container"];
        assert_eq!(
            c["header"],
            json!({"default_joint": 1, "resource_code": "0xd7"})
        );
        let o = &c["objects"][0]["record"];
        assert_eq!(o["alpha_control"], 128);
        assert_eq!(o["render_18"], "0x3dcccccd");
        assert_eq!(o["render_1c"], "0x2");
        assert_eq!(o["unknown_20"], "00000000000000000000000000000000");
        let m = &c["objects"][0]["meshes"][0]["record"];
        assert_eq!(
            [
                &m["clamp_min_u"],
                &m["clamp_max_u"],
                &m["clamp_min_v"],
                &m["clamp_max_v"]
            ],
            [1, 2, 3, 4]
        );
        assert_eq!(m["unknown_0c"], "0x5");
        assert_eq!(m["workspace_offset"], "0x3a0");
        assert_eq!(
            (&m["index_count"], &m["unknown_4c"]),
            (&json!("0x0"), &json!("0x9"))
        );
        assert_eq!(
            m["variant"]["Scm"],
            json!({"continuation": "0x50", "unknown_30": "0x1"})
        );
        // The new form is left as it is.
        assert!(matches!(upgrade_file(&new), Cow::Borrowed(_)));
    }
}
