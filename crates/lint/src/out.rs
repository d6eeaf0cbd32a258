//! The findings and how they are collected: the linter's diagnostics sink, which takes every
//! problem of a broken file and goes on.

use std::collections::HashSet;
use std::convert::Infallible;

use serde::Serialize;

use rigtrip_gltf::accessor::AccError;
use rigtrip_gltf::buffers::{BufferProblem, UriProblem};
use rigtrip_gltf::doc::{Problem, Sink};
use rigtrip_gltf::graph::NodeProblem;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Valid, but some loader or Blender will do something unexpected.
    Warning,
    /// Broken: the file violates the skin contract or cannot be read.
    Error,
}

impl Severity {
    /// `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One problem (or fact) found in a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Severity.
    pub severity: Severity,
    /// Stable kebab-case code, e.g. `joints-out-of-range`.
    pub code: &'static str,
    /// JSON pointer into the glTF JSON (`""` for the file as a whole).
    pub pointer: String,
    /// One line for a human.
    pub message: String,
}

/// Findings collected so far, and which accessors were already reported.
#[derive(Debug, Default)]
pub(crate) struct Out {
    /// In the order found.
    pub findings: Vec<Finding>,
    reported: HashSet<usize>,
    compressed: bool,
    /// Buffers whose missing data is worth knowing, not a fault (nothing reads them).
    pub optional_buffers: HashSet<usize>,
}

impl Out {
    /// Adds a finding.
    pub fn push(
        &mut self,
        severity: Severity,
        code: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.findings.push(Finding {
            severity,
            code,
            pointer: pointer.into(),
            message: message.into(),
        });
    }

    /// Adds an error.
    pub fn error(&mut self, code: &'static str, ptr: impl Into<String>, msg: impl Into<String>) {
        self.push(Severity::Error, code, ptr, msg);
    }

    /// Adds a warning.
    pub fn warning(&mut self, code: &'static str, ptr: impl Into<String>, msg: impl Into<String>) {
        self.push(Severity::Warning, code, ptr, msg);
    }

    /// Adds an info.
    pub fn info(&mut self, code: &'static str, ptr: impl Into<String>, msg: impl Into<String>) {
        self.push(Severity::Info, code, ptr, msg);
    }

    /// Reports why accessor `i` cannot be read, once per accessor (a buffer that could not be
    /// loaded was reported already; compressed data is said once per file).
    pub fn accessor_error(&mut self, i: usize, e: AccError) {
        if !self.reported.insert(i) {
            return;
        }
        match e {
            AccError::Invalid(m) => self.error("accessor-invalid", format!("/accessors/{i}"), m),
            AccError::Compressed(m) if !self.compressed => {
                self.compressed = true;
                self.info(
                    "data-compressed",
                    format!("/accessors/{i}"),
                    format!(
                        "{m}; compressed data is not decoded, so checks that need it were skipped"
                    ),
                );
            }
            _ => {}
        }
    }

    /// Reports a problem of the node hierarchy, in the linter's words (a child listed twice by
    /// the same node is let pass).
    fn node_problem(&mut self, p: NodeProblem<'_>) {
        match p {
            NodeProblem::ChildrenNotArray { node } => self.error(
                "json-schema",
                format!("/nodes/{node}/children"),
                "children is not an array",
            ),
            NodeProblem::NotANode {
                node,
                k,
                value,
                count,
            } => self.error(
                "index-invalid",
                format!("/nodes/{node}/children/{k}"),
                format!("child {value} of node {node} is not one of the {count} nodes"),
            ),
            NodeProblem::OwnChild { node, k } => self.error(
                "node-hierarchy",
                format!("/nodes/{node}/children/{k}"),
                format!("node {node} lists itself as a child"),
            ),
            NodeProblem::TwoParents {
                child,
                first,
                node,
                k,
            } if first != node => self.error(
                "node-hierarchy",
                format!("/nodes/{node}/children/{k}"),
                format!("node {child} is a child of both node {first} and node {node}"),
            ),
            NodeProblem::TwoParents { .. } => {}
            NodeProblem::Cycle { node, through } => self.error(
                "node-hierarchy",
                format!("/nodes/{node}/children"),
                format!("node {node} is its own ancestor (through node {through})"),
            ),
        }
    }

    /// Reports why buffer `i` cannot be loaded (or is short), in the linter's words.
    fn buffer_problem(&mut self, i: usize, p: BufferProblem<'_>) {
        // Missing data nothing reads is worth knowing, not a fault.
        let missing = if self.optional_buffers.contains(&i) {
            Severity::Info
        } else {
            Severity::Error
        };
        let ptr = format!("/buffers/{i}");
        let uri_ptr = format!("{ptr}/uri");
        match p {
            BufferProblem::NotArray => {
                self.error("json-schema", "/buffers", "`buffers` is not an array")
            }
            BufferProblem::NoByteLength => self.error(
                "json-schema",
                format!("{ptr}/byteLength"),
                format!("buffer {i} has no valid byteLength"),
            ),
            BufferProblem::NoUri => self.push(
                missing,
                "buffer-missing",
                ptr,
                format!("buffer {i} has no uri and is not the GLB BIN chunk"),
            ),
            BufferProblem::UriNotString => self.error(
                "json-schema",
                uri_ptr,
                format!("buffer {i}: uri is not a string"),
            ),
            BufferProblem::Short(declared, len) => self.error(
                "buffer-too-short",
                ptr,
                format!("buffer {i} declares {declared} bytes but only {len} are there"),
            ),
            BufferProblem::Uri(uri, u) => match u {
                UriProblem::DataNoComma => self.error(
                    "buffer-invalid",
                    uri_ptr,
                    format!("buffer {i}: data URI without a comma"),
                ),
                UriProblem::DataNotBase64 => self.warning(
                    "buffer-unresolved",
                    uri_ptr,
                    format!("buffer {i}: data URI is not base64; its data was not checked"),
                ),
                UriProblem::Base64(e) => self.error(
                    "buffer-invalid",
                    uri_ptr,
                    format!("buffer {i}: data URI is not valid base64: {e}"),
                ),
                UriProblem::Remote | UriProblem::Scheme => self.warning(
                    "buffer-unresolved",
                    uri_ptr,
                    format!(
                        "buffer {i}: remote uri {uri:?} is not fetched; its data was not checked"
                    ),
                ),
                UriProblem::Percent | UriProblem::Leaves(_) => self.error(
                    "buffer-invalid",
                    uri_ptr,
                    format!("buffer {i}: uri {uri:?} is not a file this reader follows"),
                ),
                UriProblem::NoBaseDir(_) => self.warning(
                    "buffer-unresolved",
                    uri_ptr,
                    format!(
                        "buffer {i}: uri {uri:?} names a file, but no base directory was given; its data was not checked"
                    ),
                ),
                UriProblem::Io(_, path, e) => self.push(
                    missing,
                    "buffer-missing",
                    uri_ptr,
                    format!("buffer {i}: cannot read {}: {e}", path.display()),
                ),
                UriProblem::Size(path, size, _) => self.push(
                    missing,
                    "buffer-missing",
                    uri_ptr,
                    format!("buffer {i}: {} holds {size} bytes", path.display()),
                ),
            },
        }
    }
}

/// The linter's sink: every problem becomes a finding, and the reading goes on.
impl Sink for Out {
    type Stop = Infallible;
    fn report(&mut self, problem: Problem<'_>) -> Result<(), Infallible> {
        match problem {
            Problem::Buffer(i, p) => self.buffer_problem(i, p),
            Problem::Accessor(i, e) => self.accessor_error(i, e),
            Problem::Node(p) => self.node_problem(p),
        }
        Ok(())
    }
}
