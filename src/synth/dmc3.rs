//! Generators of DMC3 files (STUB).
