//! `inspect`: what a file holds, as the IR sees it (format-specific detail is added per format).

use serde::Serialize;

use crate::rig::{Rig, Skeleton};

/// The inspect report of one file; `--json` prints it as is.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `hie`, `mod`, `scm` or `block`.
    pub kind: &'static str,
    /// Input size in bytes.
    pub size: usize,
    /// One entry per skeleton.
    pub skeletons: Vec<SkeletonReport>,
}

/// One skeleton in the report.
#[derive(Debug, Clone, Serialize)]
pub struct SkeletonReport {
    /// Skeleton name.
    pub name: String,
    /// `null` when the skeleton passes the spatial gate, else why not.
    pub gate: Option<GateReport>,
    /// Joints in native index order.
    pub joints: Vec<JointReport>,
}

/// A gate failure in the report.
#[derive(Debug, Clone, Serialize)]
pub struct GateReport {
    /// Stable code of the failing condition.
    pub code: &'static str,
    /// The joint where it fails, if any.
    pub joint: Option<usize>,
    /// The order position where it fails, if any.
    pub position: Option<usize>,
    /// The whole message.
    pub message: String,
}

/// One joint in the report.
#[derive(Debug, Clone, Serialize)]
pub struct JointReport {
    /// Native index.
    pub index: usize,
    /// Display name.
    pub name: String,
    /// Parent's native index.
    pub parent: Option<usize>,
    /// Local translation, native units.
    pub translation: [f64; 3],
    /// Local rotation quaternion x, y, z, w.
    pub rotation: [f64; 4],
    /// Rest-pose world position, native units (`null` when the gate fails).
    pub world: Option<[f64; 3]>,
}

/// Builds the report of a lifted file.
pub fn report(kind: &'static str, size: usize, rig: &Rig) -> Report {
    Report {
        kind,
        size,
        skeletons: rig.skeletons.iter().map(skeleton_report).collect(),
    }
}

fn skeleton_report(s: &Skeleton) -> SkeletonReport {
    let world = s.world_positions().ok();
    SkeletonReport {
        name: s.name.clone(),
        gate: s.gate.as_ref().err().map(|g| GateReport {
            code: g.condition.code(),
            joint: g.joint,
            position: g.position,
            message: g.to_string(),
        }),
        joints: s
            .joints
            .iter()
            .enumerate()
            .map(|(i, j)| JointReport {
                index: i,
                name: j.name.clone(),
                parent: j.parent,
                translation: j.translation.to_array(),
                rotation: j.rotation.to_array(),
                world: world.as_ref().map(|w| w[i].to_array()),
            })
            .collect(),
    }
}

/// Renders the report as readable text: per skeleton an indented joint tree.
pub fn render_text(r: &Report) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "format {}, {} bytes, {} skeleton(s)",
        r.kind,
        r.size,
        r.skeletons.len()
    );
    for s in &r.skeletons {
        let _ = writeln!(out, "skeleton {}: {} joint(s)", s.name, s.joints.len());
        match &s.gate {
            None => {
                let _ = writeln!(out, "  gate: ok");
            }
            Some(g) => {
                let _ = writeln!(out, "  gate: FAILS: {}", g.message);
            }
        }
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); s.joints.len()];
        let mut roots = Vec::new();
        for j in &s.joints {
            match j.parent {
                Some(p) if p < s.joints.len() && s.gate.is_none() => children[p].push(j.index),
                _ => roots.push(j.index),
            }
        }
        let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&r| (r, 0)).collect();
        while let Some((j, level)) = stack.pop() {
            let jr = &s.joints[j];
            let _ = write!(
                out,
                "  {:indent$}{} [{}]",
                "",
                jr.name,
                j,
                indent = level * 2
            );
            let t = jr.translation;
            let _ = write!(out, " t=({}, {}, {})", t[0], t[1], t[2]);
            if let Some(w) = jr.world {
                let _ = write!(out, " world=({:.4}, {:.4}, {:.4})", w[0], w[1], w[2]);
            }
            out.push('\n');
            for &c in children[j].iter().rev() {
                stack.push((c, level + 1));
            }
        }
    }
    out
}
