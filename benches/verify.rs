//! Benchmark: verify vs md5sum (STUB).
fn main() {}
