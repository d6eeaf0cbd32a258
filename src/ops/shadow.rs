//! What `inspect` shows of a shadow model (see [`crate::native::dmc3::shadow`]): its node
//! count, and per hull its counts, closed pieces and the joints its selectors name, by name
//! when the model the shadow belongs to is in the same archive (the body's for slot 8, the
//! coat's for 14).

use serde::Serialize;

use crate::native::dmc3::pac::{shadow_owner, MemberKind, Pac};
use crate::native::dmc3::shadow::Shw;
use crate::native::dmc3::Dmc3File;
use crate::ops::motion::MemberReport;

/// A shadow model member.
#[derive(Debug, Clone, Serialize)]
pub struct ShadowReport {
    /// The version (+0x04).
    pub version: f32,
    /// The node count of the model it belongs to, as it says (+0x11).
    pub node_count: u8,
    /// The node count of that model, when it is in the same archive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_nodes: Option<usize>,
    /// Per hull its counts, pieces and joints.
    pub hulls: Vec<HullReport>,
}

/// One hull of a shadow model.
#[derive(Debug, Clone, Serialize)]
pub struct HullReport {
    /// Vertex count.
    pub vertices: u16,
    /// Triangle count.
    pub triangles: usize,
    /// Its closed pieces (`T = 2V - 4C`).
    pub pieces: usize,
    /// The joints its selectors name, ascending (retail: one).
    pub joints: Vec<u8>,
    /// Their names in the model, when it is known (the same order).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub joint_names: Vec<String>,
}

/// The report of `s`, its joints named after `model`'s when given.
pub fn report(s: &Shw, model: Option<&Dmc3File>) -> ShadowReport {
    let names: Vec<String> = model
        .map(|m| crate::rig::lift(crate::native::NativeFile::Dmc3(m.clone())))
        .and_then(|r| r.skeletons.into_iter().next())
        .map(|k| k.joints.into_iter().map(|j| j.name).collect())
        .unwrap_or_default();
    ShadowReport {
        version: s.version(),
        node_count: s.node_count(),
        model_nodes: model.map(|_| names.len()),
        hulls: (s.hulls.iter())
            .map(|h| {
                let joints = h.joints();
                HullReport {
                    vertices: h.vertices,
                    triangles: h.triangles.len(),
                    pieces: (2 * usize::from(h.vertices)).saturating_sub(h.triangles.len()) / 4,
                    joint_names: match model {
                        Some(_) => (joints.iter())
                            .map(|&j| {
                                names
                                    .get(usize::from(j))
                                    .cloned()
                                    .unwrap_or_else(|| "(none)".into())
                            })
                            .collect(),
                        None => Vec::new(),
                    },
                    joints,
                }
            })
            .collect(),
    }
}

/// The model member of `p` the shadow in `slots` belongs to (see [`shadow_owner`]).
pub fn model_of<'p>(p: &'p Pac, slots: &[usize]) -> Option<&'p Dmc3File> {
    let owner = slots.iter().find_map(|&s| shadow_owner(s))?;
    match &p.member_of(owner)?.kind {
        MemberKind::Model(m) => Some(m),
        _ => None,
    }
}

/// Each shadow member's report of `members` (those of `p`) with its joints named after its
/// model's.
pub fn name_joints(p: &Pac, members: &mut [MemberReport]) {
    for (m, r) in p.members.iter().zip(members) {
        if let (MemberKind::Shadow(s), Some(model)) = (&m.kind, model_of(p, &m.slots)) {
            r.shadow = Some(report(s, Some(model)));
        }
    }
}

/// The text lines of `s`.
pub fn render(out: &mut String, s: &ShadowReport, indent: &str) {
    use std::fmt::Write;
    let model = match s.model_nodes {
        Some(n) => format!(" (its model's: {n})"),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "{indent}version {}, {} hull(s), node count {}{model}",
        s.version,
        s.hulls.len(),
        s.node_count
    );
    for (h, x) in s.hulls.iter().enumerate() {
        let joints: Vec<String> = (x.joints.iter().enumerate())
            .map(|(k, j)| match x.joint_names.get(k) {
                Some(name) => format!("{j} {name}"),
                None => j.to_string(),
            })
            .collect();
        let _ = writeln!(
            out,
            "{indent}  hull {h}: joint {}, {} vertices, {} triangles, {} closed piece(s)",
            joints.join(" + "),
            x.vertices,
            x.triangles,
            x.pieces
        );
    }
}
