//! `rigtrip lint`: the skin-contract diagnosis for any glTF (STUB: being written).
