//! Benchmark: lint vs the Khronos validator (STUB).
fn main() {}
