//! `dump`/`build`: the whole native structure as lossless JSON (STUB: being written).
