//! The document as the checks see it (the shared model of [`rigtrip_gltf::doc`]: JSON
//! root, buffers, accessors) and the node hierarchy with rest-pose world matrices.

use glam::{DMat4, DQuat, DVec3};
use serde_json::Value;

use super::out::Out;
use rigtrip_gltf::graph::Parents;

/// The document and its binary data, read-only for the checks: the shared model.
pub(crate) type Doc<'a> = rigtrip_gltf::doc::Document<'a>;

/// What an index field holds.
pub(crate) enum Ix {
    /// The key is absent.
    Absent,
    /// A valid index below the bound.
    At(usize),
    /// Present but not a valid index (reported).
    Bad,
}

/// Reads index `key` of `obj` (at `ptr`) that must be below `len`, reporting a bad one.
pub(crate) fn index(
    out: &mut Out,
    obj: &Value,
    key: &str,
    len: usize,
    ptr: &str,
    what: &str,
) -> Ix {
    match obj.get(key) {
        None => Ix::Absent,
        Some(v) => match rigtrip_gltf::json::index(v) {
            Some(i) if i < len => Ix::At(i),
            _ => {
                out.error(
                    "index-invalid",
                    format!("{ptr}/{}", escape(key)),
                    format!("{ptr}/{key} is {v}, but there are {len} {what}"),
                );
                Ix::Bad
            }
        },
    }
}

/// `key` escaped for a JSON pointer.
pub(crate) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A node's rest transform as translation, rotation and scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Trs {
    /// Translation.
    pub t: DVec3,
    /// Rotation (unit).
    pub r: DQuat,
    /// Scale.
    pub s: DVec3,
}

/// The node hierarchy in its rest pose.
pub(crate) struct Graph {
    /// Parent of each node (cycles and second parents cut, and reported).
    pub parent: Vec<Option<usize>>,
    /// Rest-pose local TRS of each node (identity where invalid).
    pub rest: Vec<Trs>,
    /// Rest-pose world matrix of each node.
    pub world: Vec<DMat4>,
    /// Preorder (entry, exit) numbers: `a` is an ancestor-or-self of `b` when its interval
    /// holds `b`'s.
    order: Vec<(usize, usize)>,
    /// Top node above each node.
    top: Vec<usize>,
}

impl Graph {
    /// `i` and its ancestors, nearest first.
    pub fn ancestors_or_self(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let mut next = Some(i);
        let mut steps = 0;
        std::iter::from_fn(move || {
            let x = next?;
            steps += 1;
            // The parents are acyclic after `build`, but never loop on a bug.
            if steps > self.parent.len() {
                return None;
            }
            next = self.parent.get(x).copied().flatten();
            Some(x)
        })
    }

    /// Whether `a` is `b` or one of its ancestors (constant time: preorder intervals).
    pub fn is_ancestor_or_self(&self, a: usize, b: usize) -> bool {
        match (self.order.get(a), self.order.get(b)) {
            (Some(&(ain, aout)), Some(&(bin, bout))) => ain <= bin && bout <= aout,
            _ => false,
        }
    }

    /// The top node (a node without parent) above `i`.
    pub fn top(&self, i: usize) -> Option<usize> {
        self.top.get(i).copied()
    }

    /// The closest common ancestor-or-self of `nodes`; `None` when they are in different trees
    /// or `nodes` is empty. Every node between the first and the last in preorder lies under
    /// the common ancestor of those two, so one climb suffices.
    pub fn common_root(&self, nodes: &[usize]) -> Option<usize> {
        let key = |&j: &usize| self.order.get(j).map_or(usize::MAX, |o| o.0);
        let lo = *nodes.iter().min_by_key(|j| key(j))?;
        let hi = *nodes.iter().max_by_key(|j| key(j))?;
        self.ancestors_or_self(lo)
            .find(|&x| self.is_ancestor_or_self(x, hi))
    }
}

/// Preorder entry and exit numbers and the top node of every node, from the parent links.
fn preorder(parent: &[Option<usize>]) -> (Vec<(usize, usize)>, Vec<usize>) {
    let n = parent.len();
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, p) in parent.iter().enumerate() {
        if let Some(k) = p.and_then(|p| kids.get_mut(p)) {
            k.push(i);
        }
    }
    let mut order = vec![(0usize, 0usize); n];
    let mut top: Vec<usize> = (0..n).collect();
    let mut clock = 0usize;
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in (0..n).filter(|&i| parent.get(i).copied().flatten().is_none()) {
        stack.push((root, 0));
        if let Some(o) = order.get_mut(root) {
            o.0 = clock;
        }
        clock += 1;
        while let Some(entry) = stack.last_mut() {
            let x = entry.0;
            let child = kids.get(x).and_then(|k| k.get(entry.1)).copied();
            if child.is_some() {
                entry.1 += 1;
            }
            match child {
                Some(c) => {
                    if let Some(o) = order.get_mut(c) {
                        o.0 = clock;
                    }
                    if let Some(t) = top.get_mut(c) {
                        *t = root;
                    }
                    clock += 1;
                    stack.push((c, 0));
                }
                None => {
                    if let Some(o) = order.get_mut(x) {
                        o.1 = clock;
                    }
                    stack.pop();
                }
            }
        }
    }
    (order, top)
}

/// A node's local transform, reporting malformed values.
fn local(node: &Value, i: usize, out: &mut Out) -> (DMat4, Trs) {
    let identity = Trs {
        t: DVec3::ZERO,
        r: DQuat::IDENTITY,
        s: DVec3::ONE,
    };
    let has = |k: &str| node.get(k).is_some();
    if !(has("matrix") || has("translation") || has("rotation") || has("scale")) {
        return (DMat4::IDENTITY, identity);
    }
    let ptr = format!("/nodes/{i}");
    let ptr = ptr.as_str();
    if let Some(m) = node.get("matrix") {
        let Some(m) = rigtrip_gltf::json::numbers::<16>(m) else {
            out.error(
                "node-transform-invalid",
                format!("{ptr}/matrix"),
                "matrix is not 16 finite numbers; identity assumed",
            );
            return (DMat4::IDENTITY, identity);
        };
        let m = DMat4::from_cols_array(&m);
        let (s, r, t) = m.to_scale_rotation_translation();
        return (m, Trs { t, r, s });
    }
    let mut trs = identity;
    if let Some(v) = node.get("translation") {
        match rigtrip_gltf::json::numbers::<3>(v) {
            Some(t) => trs.t = DVec3::from_array(t),
            None => out.error(
                "node-transform-invalid",
                format!("{ptr}/translation"),
                "translation is not 3 finite numbers; zero assumed",
            ),
        }
    }
    if let Some(v) = node.get("rotation") {
        match rigtrip_gltf::json::numbers::<4>(v) {
            Some(q) => {
                let q = DQuat::from_array(q);
                let len = q.length();
                if (len - 1.0).abs() > 1e-3 {
                    out.error(
                        "node-transform-invalid",
                        format!("{ptr}/rotation"),
                        format!("rotation has length {len:.6}, not a unit quaternion"),
                    );
                }
                if len > 0.0 {
                    trs.r = q / len;
                }
            }
            None => out.error(
                "node-transform-invalid",
                format!("{ptr}/rotation"),
                "rotation is not 4 finite numbers; identity assumed",
            ),
        }
    }
    if let Some(v) = node.get("scale") {
        match rigtrip_gltf::json::numbers::<3>(v) {
            Some(s) => trs.s = DVec3::from_array(s),
            None => out.error(
                "node-transform-invalid",
                format!("{ptr}/scale"),
                "scale is not 3 finite numbers; one assumed",
            ),
        }
    }
    (
        DMat4::from_scale_rotation_translation(trs.s, trs.r, trs.t),
        trs,
    )
}

/// Builds the hierarchy: parents from `children` (with second parents and cycles reported and
/// cut), local transforms, world matrices.
pub(crate) fn build(doc: &Doc, out: &mut Out) -> Graph {
    let nodes = doc.array("nodes");
    let n = nodes.len();
    let mut parents = Parents::new(n);
    let mut locals = Vec::with_capacity(n);
    let mut rest = Vec::with_capacity(n);
    for (i, node) in nodes.iter().enumerate() {
        let (m, trs) = local(node, i, out);
        locals.push(m);
        rest.push(trs);
        let Ok(_) = parents.take(i, node, out);
    }
    let Ok(()) = parents.cut_cycles(out);
    let parent = parents.0;

    let mut world = vec![DMat4::IDENTITY; n];
    let mut done = vec![false; n];
    for i in 0..n {
        let mut chain = Vec::new();
        let mut x = Some(i);
        while let Some(y) = x {
            if done.get(y).copied().unwrap_or(true) || chain.len() > n {
                break;
            }
            chain.push(y);
            x = parent.get(y).copied().flatten();
        }
        let mut m = x
            .and_then(|y| world.get(y).copied())
            .unwrap_or(DMat4::IDENTITY);
        for &y in chain.iter().rev() {
            m *= locals.get(y).copied().unwrap_or(DMat4::IDENTITY);
            world[y] = m;
            done[y] = true;
        }
    }
    let (order, top) = preorder(&parent);
    Graph {
        parent,
        rest,
        world,
        order,
        top,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(parent: Vec<Option<usize>>) -> Graph {
        let n = parent.len();
        let (order, top) = preorder(&parent);
        Graph {
            parent,
            rest: Vec::new(),
            world: vec![DMat4::IDENTITY; n],
            order,
            top,
        }
    }

    #[test]
    fn common_roots_and_ancestry() {
        //   0        5
        //  / \       |
        // 1   2      6
        //    / \
        //   3   4
        let g = graph(vec![
            None,
            Some(0),
            Some(0),
            Some(2),
            Some(2),
            None,
            Some(5),
        ]);
        assert_eq!(g.common_root(&[3, 4]), Some(2));
        assert_eq!(g.common_root(&[4, 1, 3]), Some(0));
        assert_eq!(g.common_root(&[3]), Some(3));
        assert_eq!(g.common_root(&[2, 3]), Some(2));
        assert_eq!(g.common_root(&[3, 6]), None);
        assert_eq!(g.common_root(&[]), None);
        assert!(g.is_ancestor_or_self(0, 4) && g.is_ancestor_or_self(4, 4));
        assert!(!g.is_ancestor_or_self(1, 4) && !g.is_ancestor_or_self(4, 2));
        assert!(!g.is_ancestor_or_self(5, 3) && !g.is_ancestor_or_self(9, 3));
        assert_eq!((g.top(4), g.top(6), g.top(5)), (Some(0), Some(5), Some(5)));
    }
}
