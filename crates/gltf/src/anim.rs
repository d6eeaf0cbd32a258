//! Typed views of an animation's channels and samplers: what each member holds when it holds
//! what the glTF schema asks (an index, a string), `None` otherwise. Which absence is an error,
//! and its words, stay with each reader, as for [`crate::json`].

use serde_json::Value;

use crate::json::{index_at, list};

/// One channel of an animation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Channel<'a> {
    /// Its position in the animation's `channels`.
    pub index: usize,
    /// `target.node`.
    pub node: Option<usize>,
    /// `target.path` (`translation`, `rotation`, `scale`, `weights`, or an extension's).
    pub path: Option<&'a str>,
    /// `sampler`: an index into the animation's `samplers`.
    pub sampler: Option<usize>,
    /// The channel's JSON, for what the view does not hold (extensions, pointers).
    pub json: &'a Value,
}

impl<'a> Channel<'a> {
    /// The view of channel `index`, whose JSON is `json`.
    pub fn of(index: usize, json: &'a Value) -> Channel<'a> {
        let target = json.get("target");
        Channel {
            index,
            node: target.and_then(|t| index_at(t, "node")),
            path: target.and_then(|t| t.get("path")).and_then(Value::as_str),
            sampler: index_at(json, "sampler"),
            json,
        }
    }

    /// The sampler it names in `anim`, when `anim` has one at that index.
    pub fn sampler_in(&self, anim: &'a Value) -> Option<Sampler<'a>> {
        list(anim, "samplers").get(self.sampler?).map(Sampler::of)
    }
}

/// The channels of `anim`, in order (none when `channels` is absent or not an array).
pub fn channels(anim: &Value) -> impl Iterator<Item = Channel<'_>> {
    list(anim, "channels")
        .iter()
        .enumerate()
        .map(|(i, c)| Channel::of(i, c))
}

/// One sampler of an animation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampler<'a> {
    /// `input`: the accessor of the key times.
    pub input: Option<usize>,
    /// `output`: the accessor of the key values.
    pub output: Option<usize>,
    /// `interpolation` as written (`None` when absent: the schema's default is `LINEAR`).
    pub interpolation: Option<&'a str>,
}

impl<'a> Sampler<'a> {
    /// The view of a sampler's JSON (every member `None` when it is no object).
    pub fn of(json: &'a Value) -> Sampler<'a> {
        Sampler {
            input: index_at(json, "input"),
            output: index_at(json, "output"),
            interpolation: json.get("interpolation").and_then(Value::as_str),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn channels_and_samplers_hold_what_fits_the_schema() {
        let anim = json!({
            "channels": [
                {"sampler": 1, "target": {"node": 4, "path": "rotation"}},
                {"sampler": -1, "target": {"node": 2.5, "path": 7}},
                {"target": {}},
            ],
            "samplers": [
                {"input": 0, "output": 1},
                {"input": 2, "output": "x", "interpolation": "STEP"},
            ],
        });
        let c: Vec<Channel> = channels(&anim).collect();
        assert_eq!(c.len(), 3);
        assert_eq!(
            (c[0].index, c[0].node, c[0].path, c[0].sampler),
            (0, Some(4), Some("rotation"), Some(1))
        );
        assert_eq!((c[1].node, c[1].path, c[1].sampler), (None, None, None));
        assert_eq!((c[2].index, c[2].node, c[2].sampler), (2, None, None));
        let s = c[0].sampler_in(&anim).unwrap();
        assert_eq!(
            (s.input, s.output, s.interpolation),
            (Some(2), None, Some("STEP"))
        );
        assert_eq!(c[1].sampler_in(&anim), None);
        let three = json!(3);
        let none = Sampler::of(&three);
        assert_eq!(
            (none.input, none.output, none.interpolation),
            (None, None, None)
        );
        assert!(channels(&json!({"channels": 5})).next().is_none());
    }
}
