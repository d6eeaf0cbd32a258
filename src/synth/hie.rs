//! Generators of HIE files (STUB).
