//! The `rigtrip` command line: thin argument parsing over the library.

mod cli;

/// jemalloc instead of the system allocator: a glTF round trip builds and drops thousands of
/// small JSON values per file, and glibc's malloc/free were a third of `verify`'s CPU (perf,
/// 2026-12-01); jemalloc took 20-25% off its CPU time for about 10% more peak RSS.
#[cfg(all(unix, not(target_env = "musl")))]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    std::process::exit(cli::run());
}
