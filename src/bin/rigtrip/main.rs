//! The `rigtrip` command line: thin argument parsing over the library.

mod check;
mod cli;
mod export;
mod game;
mod layout_notes;
mod onto_map;
mod shared;

/// jemalloc instead of the system allocator: a glTF round trip builds and drops thousands of
/// small JSON values per file, and glibc's malloc/free were a third of `verify`'s CPU (perf,
/// 2026-12-01); jemalloc took 20% off its CPU and wall time. Peak RSS levels off higher (about
/// 43 MB on 10,000 files instead of 30: freed pages kept a while), bounded all the same.
#[cfg(all(unix, not(target_env = "musl")))]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    std::process::exit(cli::run());
}
