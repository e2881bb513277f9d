//! Resolves a `.sqn` file and prints its diagnostics, or its Model as JSON with `--model`, or the
//! diagnostics as JSON lines with `--json`:
//! `cargo run -q -p squillion-codegen --example resolve_file FILE [--model | --json]`.

use squillion_grammar::SourceFile;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: resolve_file FILE [--model | --json]");
        std::process::exit(2);
    };
    let flags: Vec<String> = args.collect();
    let show_model = flags.iter().any(|a| a == "--model");
    let json = flags.iter().any(|a| a == "--json");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let source = SourceFile::new(path, text);
    if json {
        let diagnostics = match squillion_codegen::load(&source) {
            Ok(checked) => checked.warnings,
            Err(diagnostics) => diagnostics,
        };
        for d in &diagnostics {
            match serde_json::to_string(&source.locate(d)) {
                Ok(line) => println!("{line}"),
                Err(e) => eprintln!("{e}"),
            }
        }
        return;
    }
    match squillion_codegen::load(&source) {
        Ok(checked) => {
            print!("{}", source.render(&checked.warnings, false));
            if show_model {
                match serde_json::to_string_pretty(&checked.model) {
                    Ok(json) => println!("{json}"),
                    Err(e) => eprintln!("{e}"),
                }
            } else {
                println!("ok: {} warning(s)", checked.warnings.len());
            }
        }
        Err(diagnostics) => {
            print!("{}", source.render(&diagnostics, false));
            std::process::exit(1);
        }
    }
}
