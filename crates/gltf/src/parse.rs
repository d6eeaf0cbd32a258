//! The glTF JSON parsed into a [`Value`] tree, except the `extras` of nodes and scenes, which
//! stay text (borrowed from the document) until something reads them: rigtrip's own extras are
//! then read typed straight from that text ([`typed`]), and the `Value` readers (which know what
//! Blender rewrites and word every error) run only when the typed read declines.
//!
//! The tree is the one `serde_json::from_str::<Value>` gives for the same text, minus those
//! `extras` keys; every error is the one it gives (an error, or extras nested deep enough to
//! meet its nesting limit, which the text capture does not count, send the document through
//! the plain parse again).

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};
use std::fmt;

/// The document: its tree without node and scene extras, and those extras as text (index =
/// position in `nodes` / `scenes`; empty when the member is not an array).
#[derive(Debug, Default)]
pub struct Parsed<'a> {
    /// The JSON root.
    pub json: Value,
    /// `nodes[i].extras`, when `nodes[i]` is an object that has them.
    pub node_extras: Vec<Option<&'a RawValue>>,
    /// `scenes[i].extras`, likewise.
    pub scene_extras: Vec<Option<&'a RawValue>>,
}

/// Opening brackets an extras text may hold before its real nesting depth is checked: below
/// this no nesting can reach serde_json's limit (128, of which the document spends three above
/// the extras).
const BRACKETS_UNCHECKED: usize = 100;

/// Parses `text` (see the module comment). On any error, and for extras nested deep enough to
/// meet serde_json's limit, the plain parse decides: its error (the text capture words some
/// errors differently, e.g. one column off for a control character in a string), or its tree
/// with every extras still in place.
pub fn parse(text: &str) -> Result<Parsed<'_>, serde_json::Error> {
    let mut d = serde_json::Deserializer::from_str(text);
    let fast = Top.deserialize(&mut d).and_then(|p| d.end().map(|()| p));
    match fast {
        Ok(p)
            if !p
                .node_extras
                .iter()
                .chain(&p.scene_extras)
                .flatten()
                .any(|r| too_deep(r.get())) =>
        {
            Ok(p)
        }
        _ => serde_json::from_str::<Value>(text).map(|json| Parsed {
            json,
            ..Parsed::default()
        }),
    }
}

/// Whether a JSON text nests deeper than [`BRACKETS_UNCHECKED`] (cheap tests first: a text
/// shorter than twice that cannot open that many brackets and close them; then the count).
fn too_deep(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 2 * BRACKETS_UNCHECKED || brackets(b) < BRACKETS_UNCHECKED {
        return false;
    }
    let (mut depth, mut most, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &c in b {
        if in_str {
            match c {
                _ if esc => esc = false,
                b'\\' => esc = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                most = most.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    most >= BRACKETS_UNCHECKED
}

/// How many `[` and `{` bytes `b` holds, counted in blocks of at most 255 bytes with byte-wide
/// sums (which the compiler turns into vector instructions: a scan of every extras text).
fn brackets(b: &[u8]) -> usize {
    b.chunks(255)
        .map(|c| {
            let n = c
                .iter()
                .fold(0u8, |n, &x| n + u8::from(x == b'[' || x == b'{'));
            usize::from(n)
        })
        .sum()
}

/// Which member's items keep their extras as text.
#[derive(Clone, Copy)]
enum Member {
    Nodes,
    Scenes,
}

/// A visitor's scalar methods: the `Value` [`AnyValue`] builds, passed through `$wrap`.
macro_rules! scalars {
    ($wrap:expr) => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            AnyValue.visit_bool(v).map($wrap)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            AnyValue.visit_i64(v).map($wrap)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            AnyValue.visit_u64(v).map($wrap)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            AnyValue.visit_f64(v).map($wrap)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            AnyValue.visit_str(v).map($wrap)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            AnyValue.visit_unit().map($wrap)
        }
    };
}

/// The root: an object's `nodes` and `scenes` through [`List`], everything else as `Value`.
struct Top;

impl<'de> DeserializeSeed<'de> for Top {
    type Value = Parsed<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Parsed<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top {
    type Value = Parsed<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed<'de>, A::Error> {
        let mut out = Parsed::default();
        let mut m = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let member = match key.as_str() {
                "nodes" => Some(Member::Nodes),
                "scenes" => Some(Member::Scenes),
                _ => None,
            };
            match member {
                Some(member) => {
                    let (v, extras) = map.next_value_seed(List)?;
                    match member {
                        Member::Nodes => out.node_extras = extras,
                        Member::Scenes => out.scene_extras = extras,
                    }
                    m.insert(key, v);
                }
                None => {
                    let v = map.next_value::<Value>()?;
                    m.insert(key, v);
                }
            }
        }
        out.json = Value::Object(m);
        Ok(out)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Parsed<'de>, A::Error> {
        AnyValue.visit_seq(seq).map(root)
    }
    scalars!(root);
}

/// A root that is not an object (the caller refuses it).
fn root(json: Value) -> Parsed<'static> {
    Parsed {
        json,
        ..Parsed::default()
    }
}

/// `nodes` / `scenes`: an array's items through [`Item`]; anything else as `Value`, no extras.
struct List;

impl<'de> DeserializeSeed<'de> for List {
    type Value = (Value, Vec<Option<&'de RawValue>>);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

type Listed<'de> = (Value, Vec<Option<&'de RawValue>>);

impl<'de> Visitor<'de> for List {
    type Value = Listed<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Listed<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        let mut extras = Vec::with_capacity(items.capacity());
        while let Some((v, e)) = seq.next_element_seed(Item)? {
            items.push(v);
            extras.push(e);
        }
        Ok((Value::Array(items), extras))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Listed<'de>, A::Error> {
        AnyValue.visit_map(map).map(|v| (v, Vec::new()))
    }
    scalars!(|v| (v, Vec::new()));
}

/// One node or scene: an object's `extras` as text (the last one, as a map keeps the last of
/// a repeated key), the rest as `Value`; anything else as `Value`.
struct Item;

type Itemised<'de> = (Value, Option<&'de RawValue>);

impl<'de> DeserializeSeed<'de> for Item {
    type Value = Itemised<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Item {
    type Value = Itemised<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Itemised<'de>, A::Error> {
        let mut m = Map::new();
        let mut extras = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "extras" {
                extras = Some(map.next_value::<&'de RawValue>()?);
            } else {
                let v = map.next_value::<Value>()?;
                m.insert(key, v);
            }
        }
        Ok((Value::Object(m), extras))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Itemised<'de>, A::Error> {
        AnyValue.visit_seq(seq).map(|v| (v, None))
    }
    scalars!(|v| (v, None));
}

/// What serde_json's own `Value` visitor builds, for the visitors above to hand on whatever
/// they do not treat specially.
struct AnyValue;

impl<'de> Visitor<'de> for AnyValue {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = seq.next_element::<Value>()? {
            v.push(x);
        }
        Ok(Value::Array(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

/// Reading rigtrip's own extras typed, straight from their text. Every reader here returns
/// `None` for anything but the plain form rigtrip writes (a repeated key, a number as a string,
/// an array where an object belongs, ...): the caller then runs the `Value` reader, which
/// accepts what Blender rewrites and words every error.
pub mod typed {
    use super::*;

    /// A value kept as text, present even when it is `null` (`Option<&RawValue>` alone reads
    /// `null` as absent).
    pub fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
        <&'de RawValue>::deserialize(d).map(Some)
    }

    /// A struct field that must be a JSON object (a derived struct also takes an array).
    pub fn object_field<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        T::deserialize(MapOnly(d))
    }

    /// [`object_field`] for an optional field (`null` is refused, as a non-object).
    pub fn some_object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        object_field(d).map(Some)
    }

    /// `text` read as `T` when it is a JSON object (a derived struct would also take an array).
    pub fn object<'a, T: Deserialize<'a>>(text: &'a str) -> Option<T> {
        if !text.starts_with('{') {
            return None;
        }
        serde_json::from_str(text).ok()
    }

    /// A deserializer that reads structs only from JSON objects.
    struct MapOnly<D>(D);

    impl<'de, D: Deserializer<'de>> Deserializer<'de> for MapOnly<D> {
        type Error = D::Error;
        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
            self.0.deserialize_any(v)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            _fields: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, D::Error> {
            self.0.deserialize_map(v)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }

    /// An `extras` object whose `rigtrip` member, when present, is the object `T`.
    #[derive(Deserialize)]
    #[serde(bound = "T: Deserialize<'de>")]
    pub struct Extras<T> {
        /// `extras.rigtrip`.
        #[serde(default, deserialize_with = "some_object")]
        pub rigtrip: Option<T>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(text: &str) {
        let plain = serde_json::from_str::<Value>(text);
        let lazy = parse(text);
        match (plain, lazy) {
            (Ok(mut p), Ok(l)) => {
                // Put the extras back where they were taken from.
                for (member, extras) in [("nodes", &l.node_extras), ("scenes", &l.scene_extras)] {
                    for (i, e) in extras.iter().enumerate() {
                        let lv = &l.json[member][i];
                        let pv = &mut p[member][i];
                        match e {
                            Some(e) => {
                                let e: Value = serde_json::from_str(e.get()).unwrap();
                                assert_eq!(pv.as_object_mut().unwrap().remove("extras"), Some(e));
                            }
                            None => assert!(pv.get("extras").is_none() || !pv.is_object()),
                        }
                        assert_eq!(lv, pv, "{text}");
                    }
                }
                assert_eq!(l.json, p, "{text}");
            }
            (Err(p), Err(l)) => assert_eq!(p.to_string(), l.to_string(), "{text}"),
            (p, l) => panic!("{text}: {p:?} against {:?}", l.map(|l| l.json)),
        }
    }

    #[test]
    fn the_tree_and_the_errors_are_the_plain_parse() {
        for text in [
            r#"{"nodes": [{"name": "a", "extras": {"rigtrip": {"joint": 1}}}, 5, [1], {"extras": 1, "extras": [2]}], "scenes": [{"extras": null}], "x": 1.5}"#,
            r#"{"nodes": {"extras": 1}, "scenes": 3}"#,
            r#"{"nodes": [], "nodes": [{"extras": {}}]}"#,
            r#"[1, 2]"#,
            r#""text""#,
            r#"{"nodes": [{"extras": {"a": [1, 2}}]}"#,
            r#"{"nodes": [{"extras": {"a": 1}}] "#,
            r#"{"nodes": [{"extras": {"a": 1}}]} x"#,
            r#"{"scenes": [{"extras": "\u00e9\n"}], "asset": {"version": "2.0"}}"#,
            r#"{"a": -1, "b": 18446744073709551615, "c": 1e400}"#,
            "{\"nodes\": [{\"extras\": {\"a\": \"x\u{1}y\"}}]}",
            "{\"scenes\": [{\"extras\": [\"\\q\"]}]}",
        ] {
            same(text);
        }
    }

    #[test]
    fn deep_extras_fail_as_the_plain_parse_does() {
        for depth in [90, 120, 124, 125, 126, 127, 130, 300] {
            let extras = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let text = format!(r#"{{"nodes": [{{"name": "n", "extras": {extras}}}]}}"#);
            same(&text);
            let text = format!(r#"{{"scenes": [{{"extras": {{"a": "[[[", "b": {extras}}}}}]}}"#);
            same(&text);
        }
    }

    #[test]
    fn typed_reads_decline_what_is_not_plain() {
        #[derive(Debug, PartialEq, Deserialize)]
        struct A {
            a: u8,
            #[serde(default, deserialize_with = "typed::some_object")]
            b: Option<A0>,
        }
        #[derive(Debug, PartialEq, Deserialize)]
        struct A0 {
            c: u8,
        }
        let read = |t| typed::object::<typed::Extras<A>>(t).map(|e| e.rigtrip);
        assert_eq!(
            read(r#"{"rigtrip": {"a": 1}}"#),
            Some(Some(A { a: 1, b: None }))
        );
        assert_eq!(
            read(r#"{"x": [], "rigtrip": {"b": {"c": 2}, "a": 1}}"#),
            Some(Some(A {
                a: 1,
                b: Some(A0 { c: 2 })
            }))
        );
        assert_eq!(read(r#"{"other": 1}"#), Some(None));
        for declined in [
            r#"{"rigtrip": null}"#,
            r#"[{"a": 1}]"#,
            r#"{"rigtrip": [1]}"#,
            r#"{"rigtrip": {"a": 1, "b": [2]}}"#,
            r#"{"rigtrip": {"a": 1, "b": null}}"#,
            r#"{"rigtrip": {"a": "1"}}"#,
            r#"{"rigtrip": {"a": 1}, "rigtrip": {"a": 1}}"#,
            r#"{"rigtrip": {"a": 1, "a": 1}}"#,
            r#"{"rigtrip": "{'a': 1}"}"#,
        ] {
            assert_eq!(read(declined), None, "{declined}");
        }
    }
}
