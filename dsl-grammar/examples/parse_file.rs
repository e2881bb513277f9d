//! Parses a `.sqn` file and prints its syntax tree or its diagnostics.
use squillion_grammar::{parse, SourceFile};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: parse_file FILE.sqn");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    match parse(&text) {
        Ok(schema) => println!("{schema:#?}"),
        Err(diags) => {
            eprint!("{}", SourceFile::new(path, text).render(&diags, false));
            std::process::exit(1);
        }
    }
}
