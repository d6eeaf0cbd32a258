//! The motion loader as the game runs it (docs/formats.md, motions and the loader): it reads
//! each track's key count as a signed 16-bit number, and binds the tracks node by node through
//! the per-node channel masks, so the motion's node count must be the model's.

use super::Finding;
use crate::native::dmc3::motion::{Mot, MotError, TrackProblem};
use crate::native::record::Evidence;

/// The most keys a track may hold: the game reads the count as signed (the track's own limit,
/// which its writer refuses by name).
pub use crate::native::dmc3::motion::MAX_KEYS;

/// Every finding of the motion loader on `mot`; `model_nodes` is the node count of the model
/// it plays on, when known (its archive's body, or one given on the command line).
pub fn motion_findings(mot: &Mot, model_nodes: Option<usize>) -> Vec<Finding> {
    let mut out = Vec::new();
    let nodes = mot.masks.len();
    if let Some(m) = model_nodes.filter(|&m| m != nodes) {
        out.push(Finding::stops(
            "",
            "+0x1C node count",
            format!(
                "{nodes} nodes, but the model has {m}: the game binds the tracks node by node \
                 through the channel masks, so they animate the wrong joints (or joints past \
                 the model's)"
            ),
            Evidence::Community,
        ));
    }
    for (k, (node, channel, track)) in mot.targets().enumerate() {
        out.extend(key_count(k, node, channel, track.keys.len()));
    }
    out
}

/// What the game makes of a motion rigtrip's reader refuses, when the loader's rules name it:
/// a track of more keys than its u16 span can hold bytes for (past 16,379 keys even for the
/// smallest keys), whose count the game reads as signed. Empty when the refusal is about
/// something else (then the motion is unreadable).
pub fn refusal_findings(e: &MotError) -> Vec<Finding> {
    match e {
        MotError::Track {
            index,
            node,
            channel,
            problem: TrackProblem::SpanTooShort { keys, .. },
            ..
        } => key_count(*index, *node, *channel, usize::from(*keys))
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// Track `k` (of `node`, `channel`) holding `keys` keys, when past [`MAX_KEYS`].
fn key_count(
    k: usize,
    node: usize,
    channel: crate::native::dmc3::motion::Channel,
    keys: usize,
) -> Option<Finding> {
    (keys > MAX_KEYS).then(|| {
        Finding::stops(
            format!("track {k} (node {node}, {channel})"),
            "+0x02 key count",
            format!(
                "{keys} keys: the game reads the count as signed, so past {MAX_KEYS} it is \
                 negative"
            ),
            Evidence::ExeConfirmed,
        )
    })
}
