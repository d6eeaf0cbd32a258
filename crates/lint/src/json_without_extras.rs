//! JSON parsing into a `serde_json::Value` that leaves out every `extras` member: extras hold
//! nothing the skin contract depends on, and in our own exports they are most of the text
//! (native payloads, gap bytes), so skipping them without building values halves the lint time.
//! A whole number written with a fraction or exponent (`1.0`, `2e0`) is the same JSON number
//! as `1`, so it is stored as an integer: indices and counts written that way read as such.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserializer;
use serde_json::{Map, Number, Value};

/// Parses `json`, dropping `extras` members at any depth.
pub(crate) fn parse(json: &[u8]) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(json);
    let v = Lean.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// A value without its `extras`.
#[derive(Clone, Copy)]
struct Lean;

impl<'de> DeserializeSeed<'de> for Lean {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Lean {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // Below 2^64 every whole f64 converts exactly; -0.0 stays a float.
        if v.fract() == 0.0 && v.is_sign_positive() && v < 18_446_744_073_709_551_616.0 {
            return Ok(Value::Number((v as u64).into()));
        }
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        // The hint comes from the input: never trust it for the allocation.
        let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(x) = seq.next_element_seed(Lean)? {
            v.push(x);
        }
        Ok(Value::Array(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            if k == "extras" {
                map.next_value::<IgnoredAny>()?;
            } else {
                let v = map.next_value_seed(Lean)?;
                m.insert(k, v);
            }
        }
        Ok(Value::Object(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn extras_dropped_everything_else_kept() {
        let text = br#"{"extras": {"big": [1, 2, 3]}, "nodes": [{"name": "a\u00e9", "extras": 5,
            "translation": [1.5, -2, 18446744073709551615]}], "x": null, "y": true}"#;
        assert_eq!(
            parse(text).unwrap(),
            json!({"nodes": [{"name": "aé", "translation": [1.5, -2, 18446744073709551615u64]}],
                   "x": null, "y": true})
        );
        assert_eq!(
            parse(b"[1.0, 2e0, 1.5, -1.0, -0.0, 1e300, 18446744073709551615.0]").unwrap(),
            json!([1, 2, 1.5, -1.0, -0.0, 1e300, 1.8446744073709552e19])
        );
        assert!(parse(b"{} x").is_err());
        assert!(parse(b"{\"a\": [1,]}").is_err());
    }
}
