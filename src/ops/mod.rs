//! What the CLI commands do, as library functions.
