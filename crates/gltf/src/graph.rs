//! The node hierarchy as every reader derives it from `nodes[*].children`: each node's parent,
//! taken node by node in document order (so a reader's problems come out in the order it meets
//! them), each problem to the reader's sink (the linter reports them all, import stops at the
//! first, gait lets them pass), and the cutting of cycles. What a reader then does with the
//! hierarchy (world matrices, the scene's preorder) is its own.

use serde_json::Value;

pub use crate::problem::NodeProblem;
use crate::problem::{Problem, Sink};

/// Each node's parent, filled by [`Parents::take`] node after node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parents(pub Vec<Option<usize>>);

impl Parents {
    /// `count` nodes, none with a parent yet.
    pub fn new(count: usize) -> Self {
        Parents(vec![None; count])
    }

    /// Every parent of the `nodes` list, problems to `sink`.
    pub fn of<S: Sink>(nodes: &[Value], sink: &mut S) -> Result<Self, S::Stop> {
        let mut p = Parents::new(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            p.take(i, node, sink)?;
        }
        Ok(p)
    }

    /// Takes node `i`'s `children`: each valid entry without a parent so far gets `i`. Returns
    /// the entries that name a node, in their order (repeats included).
    pub fn take<S: Sink>(
        &mut self,
        i: usize,
        node: &Value,
        sink: &mut S,
    ) -> Result<Vec<usize>, S::Stop> {
        let Some(children) = node.get("children") else {
            return Ok(Vec::new());
        };
        let Some(children) = children.as_array() else {
            sink.report(Problem::Node(NodeProblem::ChildrenNotArray { node: i }))?;
            return Ok(Vec::new());
        };
        let count = self.0.len();
        let mut out = Vec::with_capacity(children.len());
        for (k, value) in children.iter().enumerate() {
            let Some(c) = value
                .as_u64()
                .and_then(|x| usize::try_from(x).ok())
                .filter(|&x| x < count)
            else {
                sink.report(Problem::Node(NodeProblem::NotANode {
                    node: i,
                    k,
                    value,
                    count,
                }))?;
                continue;
            };
            out.push(c);
            if c == i {
                sink.report(Problem::Node(NodeProblem::OwnChild { node: i, k }))?;
                continue;
            }
            match self.0.get(c).copied().flatten() {
                Some(first) => sink.report(Problem::Node(NodeProblem::TwoParents {
                    child: c,
                    first,
                    node: i,
                    k,
                }))?,
                None => {
                    if let Some(slot) = self.0.get_mut(c) {
                        *slot = Some(i);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Cuts every cycle of parent links, each at its last link, reporting it: walking up from
    /// every node, reaching the current path again closes a cycle. Afterwards every walk up
    /// ends.
    pub fn cut_cycles<S: Sink>(&mut self, sink: &mut S) -> Result<(), S::Stop> {
        let n = self.0.len();
        let mut state = vec![0u8; n];
        for start in 0..n {
            let mut path = Vec::new();
            let mut x = start;
            loop {
                match state.get(x).copied() {
                    Some(0) => {
                        state[x] = 1;
                        path.push(x);
                        match self.0.get(x).copied().flatten() {
                            Some(p) => x = p,
                            None => break,
                        }
                    }
                    Some(1) => {
                        if let Some(&last) = path.last() {
                            if let Some(slot) = self.0.get_mut(last) {
                                *slot = None;
                            }
                            sink.report(Problem::Node(NodeProblem::Cycle {
                                node: x,
                                through: last,
                            }))?;
                        }
                        break;
                    }
                    _ => break,
                }
            }
            for p in path {
                state[p] = 2;
            }
        }
        Ok(())
    }
}

/// A sink that lets every problem pass unreported (gait keeps the first parent of each node and
/// reads the rest defensively).
pub struct Quiet;

impl Sink for Quiet {
    type Stop = std::convert::Infallible;
    fn report(&mut self, _: Problem<'_>) -> Result<(), Self::Stop> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Collects every problem as a short string.
    struct All(Vec<String>);
    impl Sink for All {
        type Stop = std::convert::Infallible;
        fn report(&mut self, p: Problem<'_>) -> Result<(), Self::Stop> {
            self.0.push(match p {
                Problem::Node(NodeProblem::ChildrenNotArray { node }) => format!("array {node}"),
                Problem::Node(NodeProblem::NotANode {
                    node,
                    k,
                    value,
                    count,
                }) => format!("not {node}/{k} {value} of {count}"),
                Problem::Node(NodeProblem::OwnChild { node, k }) => format!("own {node}/{k}"),
                Problem::Node(NodeProblem::TwoParents {
                    child,
                    first,
                    node,
                    k,
                }) => format!("two {child} {first} {node}/{k}"),
                Problem::Node(NodeProblem::Cycle { node, through }) => {
                    format!("cycle {node} {through}")
                }
                other => format!("{other:?}"),
            });
            Ok(())
        }
    }

    #[test]
    fn parents_problems_in_document_order_and_cycles_cut() {
        let nodes = json!([
            {"children": [1, 2, 2]},
            {"children": [3, "x", 9]},
            {"children": 4},
            {"children": [3, 0, 2]},
            {}
        ]);
        let nodes = nodes.as_array().unwrap();
        let mut all = All(Vec::new());
        let mut p = Parents::of(nodes, &mut all).unwrap();
        assert_eq!(p.0, vec![Some(3), Some(0), Some(0), Some(1), None]);
        p.cut_cycles(&mut all).unwrap();
        assert_eq!(p.0, vec![Some(3), None, Some(0), Some(1), None]);
        assert_eq!(
            all.0,
            [
                "two 2 0 0/2",
                "not 1/1 \"x\" of 5",
                "not 1/2 9 of 5",
                "array 2",
                "own 3/0",
                "two 2 0 3/2",
                "cycle 0 1",
            ]
        );
    }

    #[test]
    fn take_returns_the_entries_that_name_nodes() {
        let mut p = Parents::new(3);
        let got = p
            .take(0, &json!({"children": [2, 5, 2, 0]}), &mut Quiet)
            .unwrap();
        assert_eq!(got, vec![2, 2, 0]);
        assert_eq!(p.0, vec![None, None, Some(0)]);
    }
}
