//! The findings and how they are collected: the linter's diagnostics sink, which takes every
//! problem of a broken file and goes on.

use std::collections::HashSet;

use serde::Serialize;

use crate::gltf::read::accessor::AccError;

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
}
