//! The `rigtrip` command line: thin argument parsing over the library.

mod cli;

fn main() {
    std::process::exit(cli::run());
}
