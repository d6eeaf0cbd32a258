//! The findings being collected: the linter's diagnostics sink, which takes every problem of a
//! broken file and goes on.

use std::collections::HashSet;

use super::{Finding, Severity};
use crate::gltf::read::accessor::AccError;

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
