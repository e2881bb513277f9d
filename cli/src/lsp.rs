//! `squillion lsp`: the language server, over standard input and output (see `squillion-lsp`).

/// Arguments of `squillion lsp`.
#[derive(Debug, Clone, clap::Args)]
pub struct LspArgs {
    /// Speak over standard input and output (the only transport; accepted because editors pass it).
    #[arg(long)]
    pub stdio: bool,
}

/// Runs the server until the editor says `exit`.
pub fn run(_args: &LspArgs) -> crate::Exit {
    match squillion_lsp::run_stdio() {
        Ok(()) => crate::Exit::Ok,
        Err(e) => {
            errln!("error: the language server stopped: {e}");
            crate::Exit::Usage
        }
    }
}
