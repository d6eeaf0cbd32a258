//! The motion loader as the game runs it (docs/formats.md, motions and the loader): it reads
//! each track's key count as a signed 16-bit number, and binds the tracks node by node through
//! the per-node channel masks, so the motion's node count must be the model's.

use super::Finding;
use crate::native::dmc3::motion::Mot;
use crate::native::record::Evidence;

/// The most keys a track may hold: the game reads the count as signed.
pub const MAX_KEYS: usize = 32_767;

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
        let keys = track.keys.len();
        if keys > MAX_KEYS {
            out.push(Finding::stops(
                format!("track {k} (node {node}, {channel})"),
                "+0x02 key count",
                format!(
                    "{keys} keys: the game reads the count as signed, so past {MAX_KEYS} it is \
                     negative"
                ),
                Evidence::ExeConfirmed,
            ));
        }
    }
    out
}
