//! Standard output and standard error for every command. A reader that stops early
//! (`squillion plan x.sqn | head -1`) closes the pipe: that ends the output, never the program
//! with a panic (`println!` panics on a closed pipe). The command finishes and exits with the code
//! its work deserves.

use std::fmt::Arguments;
use std::io::{ErrorKind, Write};

use crate::Exit;

/// Writes to standard output. A closed pipe is a reader that has read enough: `Ok`. Any other
/// failure is said on standard error and gives `Err(Exit::Usage)`.
pub fn out(args: Arguments<'_>) -> Result<(), Exit> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            err(format_args!("error: standard output: {e}\n"));
            Err(Exit::Usage)
        }
    }
}

/// Writes to standard error; a closed or failing standard error is ignored (there is nowhere
/// left to say so).
pub fn err(args: Arguments<'_>) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_fmt(args).and_then(|()| stderr.flush());
}

/// Whether an error writing to standard output is a reader that stopped early.
pub fn is_closed_pipe(e: &std::io::Error) -> bool {
    e.kind() == ErrorKind::BrokenPipe
}

/// `print!` that never panics: [`out`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::out(format_args!($($arg)*))
    };
}

/// `println!` that never panics: [`out`].
macro_rules! outln {
    () => {
        $crate::output::out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that never panics: [`err`].
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::output::err(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics: [`err`].
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::output::err(format_args!("{}\n", format_args!($($arg)*)))
    };
}
