//! The readable form of a report: inventory tables, findings, and the verdict line.

use std::fmt::Write as _;

use super::LintReport;

/// Left-aligned columns, two spaces apart, each row indented by two spaces.
fn table(out: &mut String, rows: &[Vec<String>]) {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in rows {
        let mut line = String::from(" ");
        for (c, cell) in r.iter().enumerate() {
            let w = widths.get(c).copied().unwrap_or(0);
            let _ = write!(line, " {cell:<w$} ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

fn opt<T: ToString>(x: Option<T>) -> String {
    x.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// Renders `r` as text.
pub(crate) fn text(r: &LintReport) -> String {
    let mut s = String::new();
    let container = if r.container.is_empty() {
        String::new()
    } else {
        format!(" ({})", r.container)
    };
    let _ = writeln!(s, "{}{container}", r.file);
    if !r.container.is_empty() {
        let _ = writeln!(
            s,
            "  {} skins, {} skinned mesh nodes; {} nodes, {} meshes, {} animations",
            r.skin_count, r.skinned_mesh_nodes, r.nodes, r.meshes, r.animations
        );
    }
    if !r.skins.is_empty() {
        table(&mut s, &skin_rows(&r.skins));
    }
    if !r.primitives.is_empty() {
        table(&mut s, &primitive_rows(&r.primitives));
    }
    if !r.findings.is_empty() {
        table(&mut s, &finding_rows(&r.findings));
    }
    let _ = writeln!(s, "  {}: {}", r.file, r.verdict);
    s
}

/// The skins table: a header row, then one row per skin.
fn skin_rows(skins: &[super::SkinSummary]) -> Vec<Vec<String>> {
    let mut rows = vec![[
        "skin",
        "name",
        "joints",
        "root",
        "skeleton",
        "IBM",
        "bind err",
        "mesh nodes",
        "animated",
    ]
    .map(String::from)
    .to_vec()];
    for k in skins {
        let root = match (k.root, &k.root_name) {
            (Some(i), Some(n)) => format!("{i} {n:?}"),
            (Some(i), None) => i.to_string(),
            _ => "none".into(),
        };
        let skeleton = match (k.skeleton, k.skeleton_is_common_ancestor) {
            (Some(i), Some(true)) => format!("{i} ok"),
            (Some(i), _) => format!("{i} NOT ancestor"),
            (None, _) => "-".into(),
        };
        let ibm = match (k.inverse_bind_matrices, k.ibm_ok) {
            (Some(a), true) => format!("#{a} ok"),
            (Some(a), false) => format!("#{a} BAD"),
            (None, _) => "missing".into(),
        };
        rows.push(vec![
            k.index.to_string(),
            opt(k.name.as_ref()),
            k.joints.to_string(),
            root,
            skeleton,
            ibm,
            opt(k.max_bind_error.map(|e| format!("{e:.1e}"))),
            k.mesh_nodes.to_string(),
            k.animated_joints.to_string(),
        ]);
    }
    rows
}

/// The primitives table: a header row, then one row per skinned primitive with its weight-sum
/// histogram.
fn primitive_rows(primitives: &[super::PrimitiveSummary]) -> Vec<Vec<String>> {
    let mut rows = vec![[
        "mesh.prim",
        "verts",
        "sets",
        "skins",
        "max joint",
        "sum=0",
        "<0.97",
        "0.97..0.999",
        "~1",
        "1.001..1.03",
        ">1.03",
        "invalid",
    ]
    .map(String::from)
    .to_vec()];
    for p in primitives {
        let skins = if p.skins.is_empty() {
            "-".to_string()
        } else {
            p.skins
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut row = vec![
            format!("{}.{}", p.mesh, p.primitive),
            p.vertices.to_string(),
            p.influence_sets.to_string(),
            skins,
            opt(p.max_joint),
        ];
        match &p.weight_sums {
            Some(h) => row.extend(
                [h.zero, h.below, h.low, h.unit, h.high, h.above, h.invalid].map(|x| x.to_string()),
            ),
            None => row.extend(std::iter::repeat_n("?".to_string(), 7)),
        }
        rows.push(row);
    }
    rows
}

/// The findings, errors first, then warnings, then infos; document order within each.
fn finding_rows(findings: &[super::Finding]) -> Vec<Vec<String>> {
    let mut findings: Vec<&super::Finding> = findings.iter().collect();
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    findings
        .iter()
        .map(|f| {
            let at = if f.pointer.is_empty() {
                "(file)".to_string()
            } else {
                f.pointer.clone()
            };
            vec![
                f.severity.as_str().to_string(),
                f.code.to_string(),
                at,
                f.message.clone(),
            ]
        })
        .collect()
}
