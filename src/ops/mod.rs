//! What the CLI commands do, as library functions: each command is a thin wrapper over these.

pub mod coverage;
pub mod dump;
pub mod inspect;
pub mod output;
pub mod verify;

use crate::native::{Format, NativeFile, ReadError};
use crate::rig::{self, Rig};

/// Reads `data` as `format` (detected when `None`) and lifts it into the IR.
pub fn load(format: Option<Format>, data: &[u8]) -> Result<Rig, ReadError> {
    NativeFile::read(format, data).map(rig::lift)
}

/// An error and its sources on one line, `outer: inner: cause`, as the CLI prints an error:
/// each layer says its own clause once. For messages kept as text (`verify`'s verdicts).
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut line = e.to_string();
    for cause in std::iter::successors(e.source(), |c| c.source()) {
        line.push_str(": ");
        line.push_str(&cause.to_string());
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_chain_says_each_layer_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let e = output::OutputError::Io {
            path: "x.glb".into(),
            source: io,
        };
        assert_eq!(error_chain(&e), "cannot write x.glb: gone");
        assert_eq!(
            error_chain(&ReadError::Unrecognised),
            ReadError::Unrecognised.to_string()
        );
    }
}
