//! The small readers of glTF JSON values every reader shares: a member as a list, a value as
//! an index, an array of a fixed count of numbers, the node an animation channel moves. Each
//! gives what is there or `None` (an empty list); the reader decides what a missing or
//! malformed value means and says it in its own words.

use serde_json::Value;

/// Member `key` of `v` as a list of values: empty when absent or not an array.
pub fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// A value as an index: a non-negative integer that fits a `usize`.
pub fn index(v: &Value) -> Option<usize> {
    v.as_u64().and_then(|x| usize::try_from(x).ok())
}

/// Member `key` of `v` as an index.
pub fn index_at(v: &Value, key: &str) -> Option<usize> {
    v.get(key).and_then(index)
}

/// An array of exactly `N` numbers.
pub fn numbers<const N: usize>(v: &Value) -> Option<[f64; N]> {
    let a = v.as_array()?;
    if a.len() != N {
        return None;
    }
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = x.as_f64()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_indices_and_numbers_read_only_what_fits() {
        let v = json!({"a": [1, 2], "b": 3, "i": 7, "n": -1, "f": 1.5});
        assert_eq!(list(&v, "a").len(), 2);
        assert!(list(&v, "b").is_empty() && list(&v, "zz").is_empty());
        assert_eq!(index_at(&v, "i"), Some(7));
        assert_eq!(index_at(&v, "n"), None);
        assert_eq!(index_at(&v, "f"), None);
        assert_eq!(numbers::<2>(&json!([1, 2.5])), Some([1.0, 2.5]));
        assert_eq!(numbers::<3>(&json!([1, 2.5])), None);
        assert_eq!(numbers::<2>(&json!([1, "x"])), None);
    }
}
