//! Joint names: parsing a user's names file, and making node names fit Blender (unique, at most
//! 63 bytes) so that Blender does not rename or cut them behind our back.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use super::{ExportError, Names, NamesMissing, Renamed};
use crate::rig::Rig;

/// Longest name Blender keeps, in bytes.
pub(crate) const MAX_NAME_BYTES: usize = 63;

/// Why a names file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("names file: {0}")]
pub struct NamesError(pub String);

impl Names {
    /// Parses `{"1": ["hips", ...], "slot2": [...]}` (numeric keys are HIE slots, i.e. skeleton
    /// `slotN`; other keys are skeleton names) or a plain array of names.
    pub fn from_json(text: &str) -> Result<Names, NamesError> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| NamesError(format!("not JSON: {e}")))?;
        Names::from_value(&v)
    }

    /// [`Names::from_json`] on an already parsed value.
    pub fn from_value(v: &Value) -> Result<Names, NamesError> {
        match v {
            Value::Array(a) => Ok(Names::List(string_list(a, "the list")?)),
            Value::Object(m) => {
                let mut out = BTreeMap::new();
                for (k, v) in m {
                    let key = match k.parse::<u32>() {
                        Ok(slot) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => {
                            format!("slot{slot}")
                        }
                        _ => k.clone(),
                    };
                    let Value::Array(a) = v else {
                        return Err(NamesError(format!("key {k:?}: expected an array of names")));
                    };
                    let list = string_list(a, &format!("key {k:?}"))?;
                    if out.insert(key.clone(), list).is_some() {
                        return Err(NamesError(format!(
                            "key {k:?} names skeleton {key} a second time"
                        )));
                    }
                }
                Ok(Names::PerSkeleton(out))
            }
            _ => Err(NamesError(
                "expected an object of skeleton -> names, or an array of names".into(),
            )),
        }
    }
}

fn string_list(a: &[Value], what: &str) -> Result<Vec<String>, NamesError> {
    a.iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s.clone()),
            other => Err(NamesError(format!(
                "{what}, entry {i}: expected a string, found {other}"
            ))),
        })
        .collect()
}

/// The requested name of every joint, per skeleton: the user's when given, else the IR's, else
/// `<skeleton>_<index>` (borrowed where it can be).
pub(crate) fn requested<'a>(
    rig: &'a Rig,
    names: Option<&'a Names>,
    missing: &mut Vec<NamesMissing>,
) -> Result<Vec<Vec<Cow<'a, str>>>, ExportError> {
    let mut out: Vec<Vec<Cow<'a, str>>> = rig
        .skeletons
        .iter()
        .map(|sk| {
            sk.joints
                .iter()
                .enumerate()
                .map(|(k, j)| {
                    if j.name.is_empty() {
                        Cow::Owned(format!("{}_{k}", sk.name))
                    } else {
                        Cow::Borrowed(j.name.as_str())
                    }
                })
                .collect()
        })
        .collect();
    let given: Vec<(usize, &'a Vec<String>)> = match names {
        None => Vec::new(),
        Some(Names::List(list)) => {
            if rig.skeletons.len() != 1 {
                return Err(ExportError::Names(format!(
                    "a plain list of names needs a rig with one skeleton, this one has {}; key the lists by skeleton, e.g. {{\"1\": [...]}} for slot 1",
                    rig.skeletons.len()
                )));
            }
            vec![(0, list)]
        }
        Some(Names::PerSkeleton(map)) => {
            let mut v = Vec::with_capacity(map.len());
            for (key, list) in map {
                let Some(s) = rig.skeletons.iter().position(|sk| &sk.name == key) else {
                    let all: Vec<&str> = rig.skeletons.iter().map(|s| s.name.as_str()).collect();
                    return Err(ExportError::Names(format!(
                        "no skeleton named {key} (the rig has: {})",
                        all.join(", ")
                    )));
                };
                v.push((s, list));
            }
            v
        }
    };
    for (s, list) in given {
        let (Some(sk), Some(slot)) = (rig.skeletons.get(s), out.get_mut(s)) else {
            continue;
        };
        if list.len() > sk.joints.len() {
            return Err(ExportError::Names(format!(
                "{} names for skeleton {}, which has {} joints",
                list.len(),
                sk.name,
                sk.joints.len()
            )));
        }
        if list.len() < sk.joints.len() {
            missing.push(NamesMissing {
                skeleton: sk.name.clone(),
                given: list.len(),
                joints: sk.joints.len(),
            });
        }
        for (dst, src) in slot.iter_mut().zip(list) {
            *dst = Cow::Borrowed(src.as_str());
        }
    }
    Ok(out)
}

/// The longest prefix of `s` of at most `max` bytes that ends on a char boundary.
pub(crate) fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// Hands out unique names of at most [`MAX_NAME_BYTES`] bytes.
#[derive(Debug, Default)]
pub(crate) struct NameSet {
    used: HashSet<String>,
}

impl NameSet {
    /// A set with room for `n` names before it grows.
    pub(crate) fn with_capacity(n: usize) -> NameSet {
        NameSet {
            used: HashSet::with_capacity(n),
        }
    }

    /// A unique fitting name for `wanted` (`fallback()` when `wanted` is empty); records a
    /// [`Renamed`] when the result differs from `wanted`.
    pub(crate) fn claim(
        &mut self,
        node: impl FnOnce() -> String,
        wanted: &str,
        fallback: impl FnOnce() -> String,
        renamed: &mut Vec<Renamed>,
    ) -> String {
        let fallback_name;
        let base = if wanted.is_empty() {
            fallback_name = fallback();
            fallback_name.as_str()
        } else {
            wanted
        };
        let mut name = cut(base, MAX_NAME_BYTES).to_string();
        let mut n = 1u64;
        // One hash per attempt: the insert is the test.
        while name.is_empty() || !self.used.insert(name.clone()) {
            let suffix = format!("~{n}");
            name = format!("{}{suffix}", cut(base, MAX_NAME_BYTES - suffix.len()));
            n += 1;
        }
        if name != wanted {
            renamed.push(Renamed {
                node: node(),
                from: wanted.to_string(),
                to: name.clone(),
            });
        }
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_slots_and_lists() {
        let n = Names::from_json(r#"{"1": ["hips", "chest"], "07": [], "mod": ["a"]}"#).unwrap();
        let Names::PerSkeleton(m) = n else { panic!() };
        assert_eq!(m.keys().collect::<Vec<_>>(), ["mod", "slot1", "slot7"]);
        assert_eq!(m["slot1"], ["hips", "chest"]);
        assert_eq!(
            Names::from_json(r#"["a", "b"]"#).unwrap(),
            Names::List(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            Names::from_json(r#"{"1": [3]}"#).unwrap_err().to_string(),
            "names file: key \"1\", entry 0: expected a string, found 3"
        );
        assert!(Names::from_json(r#"{"1": [], "01": []}"#).is_err());
        assert!(Names::from_json("3").is_err());
    }

    #[test]
    fn cut_respects_char_boundaries() {
        assert_eq!(cut("abc", 2), "ab");
        // "é" is two bytes: cutting inside it drops it whole.
        assert_eq!(cut("aé", 2), "a");
        assert_eq!(cut("aé", 3), "aé");
    }

    #[test]
    fn claims_are_unique_and_short() {
        let mut set = NameSet::default();
        let mut renamed = Vec::new();
        let long = "ä".repeat(40); // 80 bytes
        let a = set.claim(|| "j0".into(), &long, || "x".into(), &mut renamed);
        assert_eq!(a, "ä".repeat(31)); // 62 bytes: the 64th byte would split a char
        let b = set.claim(|| "j1".into(), &long, || "x".into(), &mut renamed);
        assert_eq!(b, format!("{}~1", "ä".repeat(30)));
        assert_eq!(b.len(), 62);
        let c = set.claim(|| "j2".into(), "hips", || "x".into(), &mut renamed);
        assert_eq!(c, "hips");
        let d = set.claim(|| "j3".into(), "hips", || "x".into(), &mut renamed);
        assert_eq!(d, "hips~1");
        let e = set.claim(|| "j4".into(), "", || "slot1_4".into(), &mut renamed);
        assert_eq!(e, "slot1_4");
        assert_eq!(renamed.len(), 4);
        assert_eq!(renamed[2].node, "j3");
        assert_eq!(renamed[3].from, "");
        let exact = "b".repeat(63);
        assert_eq!(
            set.claim(|| "j5".into(), &exact, || "x".into(), &mut renamed),
            exact
        );
        assert_eq!(renamed.len(), 4);
    }
}
