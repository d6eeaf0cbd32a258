//! glTF import: an edited glTF back to a byte-exact native file (STUB: being written).
