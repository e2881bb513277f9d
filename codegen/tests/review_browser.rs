//! The HTML review in a real browser: headless Chromium renders it to PNG and to PDF, and its DOM
//! must hold the inline diagram with every collection. Chromium is required: without it this
//! test fails and says how to install it (`scripts/ensure-chromium.sh`); it never skips.
//!
//! Screenshots are kept in `target/tmp/review-screenshots/`; set `SQUILLION_UPDATE_SCREENSHOTS=1`
//! to copy the examples' into `docs/review/` (opt-in, like snapshot updates).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use squillion_codegen::plan::Plan;
use squillion_codegen::review::{render, Format};

const TIMEOUT: Duration = Duration::from_secs(120);

fn chromium() -> PathBuf {
    let candidates = std::env::var("CHROMIUM")
        .ok()
        .into_iter()
        .chain(["chromium", "chromium-browser", "google-chrome"].map(String::from));
    for name in candidates {
        let found = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(&name))
                .find(|p| p.is_file())
        });
        if let Some(path) = found {
            return path;
        }
        if Path::new(&name).is_file() {
            return PathBuf::from(name);
        }
    }
    panic!(
        "headless Chromium is required by the review browser test and was not found on PATH.\n\
         Install it with `scripts/ensure-chromium.sh` (Debian: `apt-get update && apt-get install -y chromium`),\n\
         or point CHROMIUM at a Chromium binary."
    );
}

/// Runs Chromium headless on `html` with `extra` arguments; returns its stdout.
///
/// Its output goes to files, not pipes: a DOM dump larger than a pipe's buffer would block
/// Chromium while this waits for it to exit.
fn run_chromium(browser: &Path, html: &Path, extra: &[String]) -> Vec<u8> {
    let profile = tempfile::tempdir().expect("profile dir");
    let stdout_path = profile.path().join("stdout");
    let stderr_path = profile.path().join("stderr");
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
    ])
    .arg(format!(
        "--user-data-dir={}",
        profile.path().join("data").display()
    ))
    .args(extra)
    .arg(html)
    .stdin(Stdio::null())
    .stdout(std::fs::File::create(&stdout_path).expect("stdout file"))
    .stderr(std::fs::File::create(&stderr_path).expect("stderr file"));
    let mut child = cmd.spawn().expect("chromium starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("chromium runs") {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish within {TIMEOUT:?} on {}",
                html.display()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        status.success(),
        "chromium failed on {}: {}",
        html.display(),
        std::fs::read_to_string(&stderr_path).unwrap_or_default()
    );
    std::fs::read(&stdout_path).expect("chromium stdout")
}

fn check_in_browser(name: &str, plan: &Plan, shots: &Path) {
    let browser = chromium();
    let dir = tempfile::tempdir().expect("temp dir");
    let html_path = dir.path().join(format!("{name}.html"));
    let html = render(plan, Format::Html).expect("html renders").main;
    std::fs::write(&html_path, &html).expect("html written");

    let png = dir.path().join(format!("{name}.png"));
    run_chromium(
        &browser,
        &html_path,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1280,2000".to_owned(),
        ],
    );
    let bytes = std::fs::read(&png).expect("screenshot written");
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{name}: the screenshot is not a PNG"
    );
    assert!(
        bytes.len() > 20_000,
        "{name}: the screenshot is nearly empty ({} bytes)",
        bytes.len()
    );

    let pdf = dir.path().join(format!("{name}.pdf"));
    run_chromium(
        &browser,
        &html_path,
        &[
            format!("--print-to-pdf={}", pdf.display()),
            "--no-pdf-header-footer".to_owned(),
        ],
    );
    let bytes = std::fs::read(&pdf).expect("pdf written");
    assert!(
        bytes.starts_with(b"%PDF-"),
        "{name}: the print is not a PDF"
    );
    assert!(
        bytes.len() > 20_000,
        "{name}: the PDF is nearly empty ({} bytes)",
        bytes.len()
    );

    let dom = run_chromium(&browser, &html_path, &["--dump-dom".to_owned()]);
    let dom = String::from_utf8_lossy(&dom);
    let start = dom
        .find("<svg")
        .unwrap_or_else(|| panic!("{name}: no <svg> in the DOM"));
    let end = dom[start..]
        .find("</svg>")
        .map(|e| start + e)
        .unwrap_or_else(|| panic!("{name}: the <svg> is not closed"));
    let svg = &dom[start..end];
    for c in &plan.collections {
        assert!(
            svg.contains(&format!(">{}", c.name)),
            "{name}: collection {} is missing from the diagram in the browser's DOM",
            c.name
        );
    }

    std::fs::create_dir_all(shots).expect("screenshot dir");
    std::fs::copy(&png, shots.join(format!("{name}.png"))).expect("screenshot kept");
    if name != "fixture" && std::env::var_os("SQUILLION_UPDATE_SCREENSHOTS").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/review");
        std::fs::create_dir_all(&docs).expect("docs/review");
        std::fs::copy(&png, docs.join(format!("{name}.png"))).expect("screenshot copied to docs");
    }
}

#[test]
fn html_reviews_render_in_headless_chromium_to_png_and_pdf_with_the_diagram() {
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("review-screenshots");
    check_in_browser("fixture", &support::plan(), &shots);
    for name in support::example_names() {
        check_in_browser(&name, &support::example_plan(&name), &shots);
    }
}
