//! The `rigtrip` command line: thin argument parsing over the library.

fn main() {
    std::process::exit(rigtrip_cli::run());
}

#[path = "cli/mod.rs"]
mod rigtrip_cli;
