//! The diagram's drawing: `layout-rs` lays the boxes and arrows out and calls a
//! [`RenderBackend`]; [`SvgCanvas`] is ours, so that the SVG is deterministic, styled with CSS
//! classes, and draws embedded documents as boxes nested in their owner's box.
//!
//! A box is a record of one text row per field. The first characters of a row's text are markers
//! that say how to draw it (they also widen the row by one character each in the library's size
//! estimate, which pays for the indentation):
//! - [`HEAD`]: the collection's name;
//! - [`INDENT`] repeated `d` times: a field of an embedded document `d` levels deep; consecutive
//!   rows at depth `d` are drawn inside one nested box;
//! - [`MORE`]: a note ("… 4 more fields").

use std::fmt::Write as _;

use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;

use crate::model::Layout;

const HEAD: char = '\u{1}';
const INDENT: char = '\u{2}';
const MORE: char = '\u{3}';

/// Horizontal inset of each nesting level, pixels (one character of the size estimate).
const STEP: f64 = 9.0;

/// The row text of a field `depth` levels deep.
pub(crate) fn row(depth: usize, label: &str) -> String {
    let mut s: String = std::iter::repeat_n(INDENT, depth).collect();
    s.push_str(label);
    s
}

/// The header row of a box.
pub(crate) fn head(label: &str) -> String {
    format!("{HEAD}{label}")
}

/// A note row.
pub(crate) fn more(label: &str) -> String {
    format!("{MORE}{label}")
}

/// The CSS classes of an arrow.
pub(crate) fn edge_class(layout: Layout, subset: bool) -> String {
    if subset {
        return "edge subset".to_owned();
    }
    let class = match layout {
        Layout::Embed => "embed",
        Layout::ParentRefs => "parent-refs",
        Layout::ChildRef => "child-ref",
        Layout::TwoWay => "two-way",
        Layout::OneWay => "one-way",
        Layout::Bucket => "bucket",
        Layout::LinkCollection => "link",
    };
    format!("edge {class}")
}

/// Arrow colours per class (a marker cannot take its colour from the path everywhere).
const ARROW_COLORS: [(&str, &str); 8] = [
    ("parent-refs", "#0b6bcb"),
    ("one-way", "#0b6bcb"),
    ("child-ref", "#1a7f37"),
    ("two-way", "#8250df"),
    ("bucket", "#bc4c00"),
    ("link", "#57606a"),
    ("embed", "#57606a"),
    ("subset", "#6a737d"),
];

/// The arrowhead markers, one per colour.
pub(crate) fn markers() -> String {
    let mut out = String::from("<defs>");
    for (class, color) in ARROW_COLORS {
        let _ = write!(
            out,
            "<marker id=\"ah-{class}\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
             markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">\
             <path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"{color}\"/></marker>"
        );
    }
    out.push_str("</defs>\n");
    out
}

/// The diagram's stylesheet. Rows are drawn in a 14 px monospace font: 0.6 em per character fits
/// the 9 px per character the layout measures with.
pub(crate) const STYLE: &str = "
.cell { fill: #ffffff; stroke: #d0d7de; stroke-width: 1; }
.head { fill: #1f3a5f; stroke: #1f3a5f; }
.nest1 { fill: #eef4fb; stroke: #9fb8d6; stroke-width: 1; }
.nest2 { fill: #e1ecf8; stroke: #9fb8d6; stroke-width: 1; }
.nest3 { fill: #d4e4f5; stroke: #9fb8d6; stroke-width: 1; }
.outline { fill: none; stroke: #1f3a5f; stroke-width: 1.5; }
text { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 14px; fill: #1b1f24; }
text.head { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; fill: #ffffff; font-weight: bold; }
text.more { fill: #6a737d; font-style: italic; }
text.label { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; font-size: 12px; fill: #24292f; paint-order: stroke; stroke: #ffffff; stroke-width: 4px; stroke-linejoin: round; }
path.edge { fill: none; stroke-width: 1.6; }
path.parent-refs, path.one-way { stroke: #0b6bcb; }
path.child-ref { stroke: #1a7f37; }
path.two-way { stroke: #8250df; }
path.bucket { stroke: #bc4c00; }
path.link, path.embed { stroke: #57606a; }
path.subset { stroke: #6a737d; stroke-dasharray: 6 4; }
";

/// A coordinate with at most one decimal, so that output is short and stable.
pub(crate) fn num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// XML text escaping; control characters (the row markers) are dropped.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}

#[derive(Clone, Copy)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

/// A nested box being drawn: its depth, the slot reserved for its rectangle, and its extent.
struct Group {
    depth: usize,
    slot: usize,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

/// `layout-rs`'s drawing calls, written as SVG.
#[derive(Default)]
pub(crate) struct SvgCanvas {
    parts: Vec<String>,
    /// The last cell rectangle, waiting for its text to know how to draw it.
    pending: Option<(usize, Rect, bool)>,
    groups: Vec<Group>,
    min: Option<(f64, f64)>,
    max: (f64, f64),
    clips: usize,
}

impl SvgCanvas {
    fn grow(&mut self, x: f64, y: f64) {
        if !x.is_finite() || !y.is_finite() {
            return;
        }
        let (mx, my) = self.min.unwrap_or((x, y));
        self.min = Some((mx.min(x), my.min(y)));
        self.max = (self.max.0.max(x), self.max.1.max(y));
    }

    fn rect(r: Rect, class: &str) -> String {
        format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"{class}\"/>\n",
            num(r.x),
            num(r.y),
            num(r.w),
            num(r.h)
        )
    }

    /// Closes the nested boxes deeper than `depth`.
    fn close_groups(&mut self, depth: usize) {
        while self.groups.last().is_some_and(|g| g.depth > depth) {
            if let Some(g) = self.groups.pop() {
                let inset = 2.0 * g.depth as f64;
                let r = Rect {
                    x: g.left,
                    y: g.top + inset,
                    w: (g.right - g.left).max(1.0),
                    h: (g.bottom - g.top - 2.0 * inset).max(1.0),
                };
                self.parts[g.slot] = Self::rect(r, &format!("nest{}", g.depth.min(3)));
            }
        }
    }

    /// The drawing, without the `<svg>` element.
    pub(crate) fn body(&self) -> String {
        self.parts.concat()
    }

    /// Smallest and largest coordinates drawn: (x0, y0, x1, y1).
    pub(crate) fn bounds(&self) -> (f64, f64, f64, f64) {
        let (x0, y0) = self.min.unwrap_or((0.0, 0.0));
        (x0, y0, self.max.0.max(x0 + 1.0), self.max.1.max(y0 + 1.0))
    }

    fn edge_label(&mut self, xy: Point, text: &str) {
        let lines: Vec<&str> = text.lines().collect();
        let line_h = 14.0;
        let top = xy.y - line_h * (lines.len() as f64 - 1.0) / 2.0;
        // 12 px sans-serif: about 7 px per character; the halo adds 2 px around.
        let half_w = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * 3.5 + 2.0;
        self.grow(xy.x - half_w, top - line_h / 2.0);
        self.grow(xy.x + half_w, top + line_h * (lines.len() as f64 - 0.5));
        let mut s = String::from("<text class=\"label\" text-anchor=\"middle\">");
        for (k, line) in lines.iter().enumerate() {
            let _ = write!(
                s,
                "<tspan x=\"{}\" y=\"{}\" dominant-baseline=\"central\">{}</tspan>",
                num(xy.x),
                num(top + line_h * k as f64),
                escape(line)
            );
        }
        s.push_str("</text>\n");
        self.parts.push(s);
    }

    fn cell_text(&mut self, slot: usize, cell: Rect, text: &str) {
        let depth = text.chars().take_while(|c| *c == INDENT).count();
        let body: String = text.chars().skip(depth).collect();
        let centre_y = cell.y + cell.h / 2.0;
        if let Some(rest) = body.strip_prefix(HEAD) {
            self.close_groups(0);
            self.parts[slot] = Self::rect(cell, "cell head");
            self.parts.push(format!(
                "<text class=\"head\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text>\n",
                num(cell.x + cell.w / 2.0),
                num(centre_y),
                escape(rest)
            ));
            return;
        }
        self.close_groups(depth);
        let (class, body) = match body.strip_prefix(MORE) {
            Some(rest) => (" class=\"more\"", rest.to_owned()),
            None => ("", body),
        };
        let mut left = cell.x;
        if depth == 0 {
            self.parts[slot] = Self::rect(cell, "cell");
        } else {
            // The row's own rectangle gives way to its nested box.
            self.parts[slot] = String::new();
            left = cell.x + 5.0 + STEP * (depth as f64 - 1.0);
            match self.groups.last_mut() {
                Some(g) if g.depth == depth => g.bottom = cell.y + cell.h,
                _ => self.groups.push(Group {
                    depth,
                    slot,
                    left,
                    right: cell.x + cell.w - 4.0 * depth as f64,
                    top: cell.y,
                    bottom: cell.y + cell.h,
                }),
            }
        }
        self.parts.push(format!(
            "<text{class} x=\"{}\" y=\"{}\" dominant-baseline=\"central\">{}</text>\n",
            num(left + 6.0),
            num(centre_y),
            escape(&body)
        ));
    }
}

impl RenderBackend for SvgCanvas {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        _properties: Option<String>,
        _clip: Option<ClipHandle>,
    ) {
        self.grow(xy.x, xy.y);
        self.grow(xy.x + size.x, xy.y + size.y);
        let r = Rect {
            x: xy.x,
            y: xy.y,
            w: size.x,
            h: size.y,
        };
        if look.fill_color.is_none() {
            // The outline, drawn last: the box is complete.
            self.close_groups(0);
            self.pending = None;
            self.parts.push(Self::rect(r, "outline"));
            return;
        }
        self.parts.push(Self::rect(r, "cell"));
        self.pending = Some((self.parts.len() - 1, r, true));
    }

    fn draw_line(&mut self, start: Point, stop: Point, _look: &StyleAttr, _p: Option<String>) {
        self.grow(start.x, start.y);
        self.grow(stop.x, stop.y);
        self.parts.push(format!(
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"cell\"/>\n",
            num(start.x),
            num(start.y),
            num(stop.x),
            num(stop.y)
        ));
    }

    fn draw_circle(&mut self, xy: Point, size: Point, _look: &StyleAttr, _p: Option<String>) {
        self.grow(xy.x - size.x / 2.0, xy.y - size.y / 2.0);
        self.grow(xy.x + size.x / 2.0, xy.y + size.y / 2.0);
        self.parts.push(format!(
            "<ellipse cx=\"{}\" cy=\"{}\" rx=\"{}\" ry=\"{}\" class=\"cell\"/>\n",
            num(xy.x),
            num(xy.y),
            num(size.x / 2.0),
            num(size.y / 2.0)
        ));
    }

    fn draw_text(&mut self, xy: Point, text: &str, _look: &StyleAttr) {
        match self.pending.take() {
            Some((slot, cell, _))
                if (cell.x + cell.w / 2.0 - xy.x).abs() < 0.5
                    && (cell.y + cell.h / 2.0 - xy.y).abs() < 0.5 =>
            {
                self.cell_text(slot, cell, text);
            }
            _ => {
                // Not inside a record cell: an edge label (a connector of the layout).
                self.grow(xy.x, xy.y);
                self.edge_label(xy, text);
            }
        }
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        dashed: bool,
        head: (bool, bool),
        _look: &StyleAttr,
        properties: Option<String>,
        _text: &str,
    ) {
        self.pending = None;
        if path.len() < 2 {
            return;
        }
        for (a, b) in path {
            self.grow(a.x, a.y);
            self.grow(b.x, b.y);
        }
        let mut d = format!(
            "M {} {} C {} {}, {} {}, {} {}",
            num(path[0].0.x),
            num(path[0].0.y),
            num(path[0].1.x),
            num(path[0].1.y),
            num(path[1].0.x),
            num(path[1].0.y),
            num(path[1].1.x),
            num(path[1].1.y)
        );
        for (a, b) in path.iter().skip(2) {
            let _ = write!(d, " S {} {}, {} {}", num(a.x), num(a.y), num(b.x), num(b.y));
        }
        let class = properties.unwrap_or_else(|| "edge".to_owned());
        let marker = ARROW_COLORS
            .iter()
            .map(|(c, _)| *c)
            .find(|c| class.split(' ').any(|part| part == *c))
            .unwrap_or("link");
        let dash = if dashed && !class.contains("subset") {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        };
        let start = if head.0 {
            format!(" marker-start=\"url(#ah-{marker})\"")
        } else {
            String::new()
        };
        let end = if head.1 {
            format!(" marker-end=\"url(#ah-{marker})\"")
        } else {
            String::new()
        };
        self.parts.push(format!(
            "<path class=\"{}\" d=\"{d}\"{dash}{start}{end}/>\n",
            escape(&class)
        ));
    }

    fn create_clip(&mut self, _xy: Point, _size: Point, _rounded_px: usize) -> ClipHandle {
        self.clips += 1;
        self.clips
    }
}
