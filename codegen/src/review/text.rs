//! Template filters: escaping for Markdown and HTML (aware of the `code spans` the Plan's
//! sentences contain), word wrapping and ANSI colour for the terminal.

use minijinja::{Environment, Value};

/// Registers every filter; `color` turns the terminal `style` filter on.
pub fn register_filters(env: &mut Environment<'static>, color: bool) {
    env.add_filter("md", md);
    env.add_filter("code", code);
    env.add_filter("fenced", fenced);
    env.add_filter("url", url);
    env.add_filter("html_inline", html_inline);
    env.add_filter("pad", pad);
    env.add_filter("wrap", wrap);
    env.add_filter("style", move |s: String, name: String| {
        style(&s, &name, color)
    });
    env.add_filter("inline", move |s: String| inline_text(&s, color));
}

/// Splits `s` into (text, is_code) runs at backticks. An unmatched backtick is text.
fn runs(s: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        match after.find('`') {
            Some(close) => {
                if open > 0 {
                    out.push((&rest[..open], false));
                }
                out.push((&after[..close], true));
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    if !rest.is_empty() {
        out.push((rest, false));
    }
    out
}

/// Markdown inline text: HTML-significant and table characters escaped outside code spans, code
/// spans kept (with `|` escaped, which GitHub's tables require even there), lines joined.
pub fn md(s: String) -> String {
    let s = s.replace(['\n', '\r'], " ");
    let mut out = String::with_capacity(s.len());
    for (run, code) in runs(&s) {
        if code {
            out.push('`');
            out.push_str(&run.replace('|', "\\|"));
            out.push('`');
        } else {
            let chars: Vec<char> = run.chars().collect();
            for (i, &c) in chars.iter().enumerate() {
                let word = |k: Option<&char>| k.is_some_and(|c| c.is_alphanumeric());
                let inside_word = i > 0 && word(chars.get(i - 1)) && word(chars.get(i + 1));
                match c {
                    '<' => out.push_str("&lt;"),
                    '>' => out.push_str("&gt;"),
                    '&' => out.push_str("&amp;"),
                    '_' if inside_word => out.push(c),
                    '|' | '*' | '_' | '[' | ']' | '\\' => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
        }
    }
    out
}

/// A Markdown code span holding `s` exactly, whatever it holds: delimited by more backticks than
/// `s` has in a row, padded when it starts or ends with a backtick, `|` escaped (GitHub's tables
/// require it even in code), one line.
pub fn code(s: String) -> String {
    let s = s.replace(['\n', '\r'], " ").replace('|', "\\|");
    if s.is_empty() {
        return "` `".to_owned();
    }
    let fence = "`".repeat(longest_run(&s, '`') + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// A Markdown fenced code block in `language` holding `body` exactly: the fence is longer than
/// any run of backticks in it, so no line of the body can close it.
pub fn fenced(body: String, language: String) -> String {
    let fence = "`".repeat((longest_run(&body, '`') + 1).max(3));
    format!(
        "{fence}{language}\n{}\n{fence}",
        body.trim_end_matches('\n')
    )
}

/// `s` as a relative URL: every byte but letters, digits and `-._~` percent-encoded.
pub fn url(s: String) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn longest_run(s: &str, c: char) -> usize {
    s.split(|x| x != c).map(str::len).max().unwrap_or(0)
}

fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// HTML inline text: escaped, with code spans as `<code>`.
pub fn html_inline(s: String) -> Value {
    let mut out = String::with_capacity(s.len());
    for (run, code) in runs(&s) {
        if code {
            out.push_str("<code>");
            out.push_str(&escape_html(run));
            out.push_str("</code>");
        } else {
            out.push_str(&escape_html(run));
        }
    }
    Value::from_safe_string(out)
}

/// Right-pads to `width` characters.
pub fn pad(s: String, width: usize) -> String {
    let n = s.chars().count();
    if n >= width {
        s
    } else {
        format!("{s}{}", " ".repeat(width - n))
    }
}

/// Wraps at `width` columns; continuation lines start with `indent` spaces. The first line is
/// assumed to start at column `indent` too.
pub fn wrap(s: String, width: usize, indent: usize) -> String {
    let avail = width.saturating_sub(indent).max(20);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut len = 0;
    for word in s.split_whitespace() {
        let w = word.chars().count();
        if len > 0 && len + 1 + w > avail {
            lines.push(std::mem::take(&mut line));
            len = 0;
        }
        if len > 0 {
            line.push(' ');
            len += 1;
        }
        line.push_str(word);
        len += w;
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines.join(&format!("\n{}", " ".repeat(indent)))
}

fn sgr(name: &str) -> Option<&'static str> {
    Some(match name {
        "bold" => "1",
        "dim" => "2",
        "italic" => "3",
        "underline" => "4",
        "red" => "1;31",
        "green" => "32",
        "yellow" => "1;33",
        "blue" => "34",
        "magenta" => "35",
        "cyan" => "36",
        "title" => "1;4",
        _ => return None,
    })
}

/// ANSI style `name` around `s` (every line, so that wrapped text stays coloured), when `color`.
pub fn style(s: &str, name: &str, color: bool) -> String {
    match (color, sgr(name)) {
        (true, Some(code)) => s
            .split('\n')
            .map(|l| {
                if l.trim().is_empty() {
                    l.to_owned()
                } else {
                    let start = l.len() - l.trim_start().len();
                    format!("{}\u{1b}[{code}m{}\u{1b}[0m", &l[..start], &l[start..])
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => s.to_owned(),
    }
}

/// Terminal text: code spans in cyan when `color`, else kept with their backticks.
pub fn inline_text(s: &str, color: bool) -> String {
    if !color {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    for (run, code) in runs(s) {
        if code {
            out.push_str(&style(run, "cyan", true));
        } else {
            out.push_str(run);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escapes_outside_code_spans_only() {
        assert_eq!(
            md("a <b> | `count < N | x` *c*".to_owned()),
            "a &lt;b&gt; \\| `count < N \\| x` \\*c\\*"
        );
    }

    #[test]
    fn code_spans_and_fences_hold_any_text() {
        assert_eq!(code("a`b".to_owned()), "``a`b``");
        assert_eq!(code("`x`".to_owned()), "`` `x` ``");
        assert_eq!(code("a|b\nc".to_owned()), "`a\\|b c`");
        assert_eq!(
            fenced("```\nx\n".to_owned(), "js".to_owned()),
            "````js\n```\nx\n````"
        );
        assert_eq!(url("a b/ü.svg".to_owned()), "a%20b%2F%C3%BC.svg");
    }

    #[test]
    fn html_wraps_code_spans() {
        assert_eq!(
            html_inline("x `a<b` & y".to_owned()).to_string(),
            "x <code>a&lt;b</code> &amp; y"
        );
    }

    #[test]
    fn wrapping_indents_continuation_lines() {
        assert_eq!(
            wrap("aaa bbb ccc ddd eee fff ggg hhh".to_owned(), 24, 2),
            "aaa bbb ccc ddd eee\n  fff ggg hhh"
        );
    }

    #[test]
    fn style_is_a_no_op_without_color() {
        assert_eq!(style("x", "bold", false), "x");
        assert_eq!(style("x", "bold", true), "\u{1b}[1mx\u{1b}[0m");
    }
}
