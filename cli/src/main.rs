//! The `squillion` binary: see the `squillion_cli` library.

fn main() -> std::process::ExitCode {
    squillion_cli::main()
}
