//! The entity-relationship diagram: one box per collection listing its fields, embedded documents
//! as boxes nested inside their owner's box, and one arrow per reference, labelled with the field,
//! the layout and the cardinality.
//!
//! Layout (ranks, crossing reduction, coordinates, edge routing) is `layout-rs`'s Sugiyama-style
//! placer, run once per connected group of collections; each box is one of its records, a column
//! of one row per field. The drawing is ours ([`canvas`]): it writes deterministic SVG with CSS
//! classes and draws the rows of an embedded document inside a box of their own, nested in the
//! owner's box. Groups of collections that share no arrow are laid out separately and placed in
//! rows ([`pack`]), so that a schema of unrelated parts reads as a page instead of one long line.

use std::cell::Cell;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use layout::core::base::Orientation;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, RecordDef, ShapeKind};
use layout::topo::layout::VisualGraph;

use crate::model::Layout;
use crate::plan::{Collection, CollectionRole, Plan, PlanField};

use super::canvas::{self, escape, num, SvgCanvas};
use super::view::type_label;
use super::ReviewError;

/// The font size `layout-rs` measures text with: one character is this many pixels wide and a
/// line this many pixels high (plus 10 px padding per cell).
pub(crate) const METRIC: usize = 9;
/// Rows drawn per box before "… N more fields".
const MAX_ROWS: usize = 24;
/// Levels of embedded documents drawn as nested boxes.
const MAX_DEPTH: usize = 3;
/// Width the packed groups aim for, in pixels.
const PAGE_WIDTH: f64 = 1100.0;
/// Space between packed groups.
const GAP: f64 = 36.0;

/// One arrow of the diagram: a reference stored in `from` pointing at documents of `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// Collection holding the reference.
    pub from: String,
    /// Path of the reference field.
    pub path: String,
    /// Collection referenced.
    pub to: String,
    /// The relationship.
    pub relation: String,
    /// Its layout.
    pub layout: Layout,
    /// `many(1000) : one`.
    pub cardinality: String,
    /// A subset copy rather than an id reference.
    pub subset: bool,
    /// Lay the arrow out from `to` down to `from` (the holder is the child side).
    pub upward: bool,
}

impl Edge {
    /// The label drawn on the arrow.
    pub fn label(&self) -> String {
        if self.subset {
            format!("{}\nsubset copies", self.path)
        } else {
            format!(
                "{}\n{} \u{00b7} {}",
                self.path,
                self.layout.as_str(),
                self.cardinality
            )
        }
    }

    /// The arrow as one line of text.
    pub fn describe(&self) -> String {
        if self.subset {
            format!(
                "{}.{} \u{2500}\u{2500}\u{25b7} {}   subset copies ({})",
                self.from, self.path, self.to, self.relation
            )
        } else {
            format!(
                "{}.{} \u{2500}\u{2500}\u{25b6} {}   {}, {} ({})",
                self.from,
                self.path,
                self.to,
                self.layout.as_str(),
                self.cardinality,
                self.relation
            )
        }
    }
}

/// What a layout means, for legends.
pub fn layout_meaning(l: Layout) -> &'static str {
    match l {
        Layout::Embed => "the related documents are nested inside the owner (a box in a box)",
        Layout::ParentRefs => "the owner holds an array of ids",
        Layout::ChildRef => "each child holds its parent's id",
        Layout::TwoWay => "both sides hold references",
        Layout::OneWay => "an id array on the side with the small bound only",
        Layout::Bucket => "children grouped in bounded bucket documents",
        Layout::LinkCollection => "one document per pair, in its own collection",
    }
}

fn entity_collection<'a>(plan: &'a Plan, entity: &str) -> Option<&'a Collection> {
    plan.collections
        .iter()
        .find(|c| c.role == CollectionRole::Entity && c.entity == entity)
}

/// Every arrow of the diagram, in the Plan's order.
pub fn edges(plan: &Plan) -> Vec<Edge> {
    let mut out = Vec::new();
    for d in &plan.relationships {
        let cardinality = format!("{} : {}", d.cardinality.from, d.cardinality.to);
        let parent_coll = entity_collection(plan, &d.parent).map(|c| c.name.as_str());
        for p in &d.placement {
            if !p.shape.refers_by_id() {
                continue;
            }
            let Some(target) = entity_collection(plan, &p.target) else {
                continue;
            };
            if plan.collection(&p.collection).is_none() {
                continue;
            }
            out.push(Edge {
                from: p.collection.clone(),
                path: p.path.clone(),
                to: target.name.clone(),
                relation: d.id.clone(),
                layout: d.strategy,
                cardinality: cardinality.clone(),
                subset: false,
                upward: parent_coll != Some(p.collection.as_str()),
            });
        }
        if let Some(s) = &d.subset {
            if let Some(child) = entity_collection(plan, &d.child) {
                if plan.collection(&s.collection).is_some() {
                    out.push(Edge {
                        from: s.collection.clone(),
                        path: s.path.clone(),
                        to: child.name.clone(),
                        relation: d.id.clone(),
                        layout: d.strategy,
                        cardinality,
                        subset: true,
                        upward: false,
                    });
                }
            }
        }
    }
    out
}

/// The rows of one box: the field rows of `fields` at `depth`, embedded documents' fields after
/// their field at `depth + 1`.
fn field_rows(fields: &[PlanField], depth: usize, rows: &mut Vec<String>, budget: &mut usize) {
    for f in fields {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let nested = !f.children.is_empty() && !f.recursive;
        let mut label = format!("{}: {}", f.name, type_label(f));
        if f.recursive {
            label.push_str(" (recursive)");
        } else if nested && depth + 1 >= MAX_DEPTH {
            label.push_str(" {\u{2026}}");
        }
        rows.push(canvas::row(depth, &label));
        if nested && depth + 1 < MAX_DEPTH {
            field_rows(&f.children, depth + 1, rows, budget);
        }
    }
}

fn count_rows(fields: &[PlanField], depth: usize) -> usize {
    fields
        .iter()
        .map(|f| {
            1 + if !f.children.is_empty() && !f.recursive && depth + 1 < MAX_DEPTH {
                count_rows(&f.children, depth + 1)
            } else {
                0
            }
        })
        .sum()
}

fn header(c: &Collection) -> String {
    let role = match &c.role {
        CollectionRole::Entity => String::new(),
        CollectionRole::Bucket { .. } => " \u{00ab}buckets\u{00bb}".to_owned(),
        CollectionRole::Link { .. } => " \u{00ab}links\u{00bb}".to_owned(),
        CollectionRole::Overflow { .. } => " \u{00ab}overflow\u{00bb}".to_owned(),
        CollectionRole::History => " \u{00ab}history\u{00bb}".to_owned(),
    };
    canvas::head(&format!("{}{role}", c.name))
}

fn record(c: &Collection) -> RecordDef {
    let mut rows = vec![header(c)];
    let total = count_rows(&c.fields, 0);
    let mut budget = if total > MAX_ROWS {
        MAX_ROWS - 1
    } else {
        MAX_ROWS
    };
    field_rows(&c.fields, 0, &mut rows, &mut budget);
    if total > rows.len() - 1 {
        rows.push(canvas::more(&format!(
            "\u{2026} {} more fields",
            total - (rows.len() - 1)
        )));
    }
    if c.fields.is_empty() {
        rows.push(canvas::more("(no fields)"));
    }
    RecordDef::Array(rows.iter().map(|r| RecordDef::new_text(r)).collect())
}

fn look() -> StyleAttr {
    let mut s = StyleAttr::simple();
    s.font_size = METRIC;
    s.line_width = 1;
    s
}

/// Collections connected by arrows, each group in Plan order, groups ordered by their first
/// collection.
fn groups(plan: &Plan, edges: &[Edge]) -> Vec<Vec<usize>> {
    let n = plan.collections.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let index = |name: &str| plan.collections.iter().position(|c| c.name == name);
    for e in edges {
        if let (Some(a), Some(b)) = (index(&e.from), index(&e.to)) {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    for i in 0..n {
        let r = find(&mut parent, i);
        match roots.iter().position(|x| *x == r) {
            Some(k) => out[k].push(i),
            None => {
                roots.push(r);
                out.push(vec![i]);
            }
        }
    }
    out
}

/// Lays out and draws one group of collections.
fn draw_group(plan: &Plan, members: &[usize], edges: &[Edge], effort: Effort) -> SvgCanvas {
    let dir = Orientation::TopToBottom;
    let mut vg = VisualGraph::new(dir);
    let mut handles = Vec::new();
    for &i in members {
        let c = &plan.collections[i];
        let shape = ShapeKind::Record(record(c));
        let size = get_shape_size(dir, &shape, METRIC, false);
        let element = Element::create(shape, look(), dir, size);
        handles.push((c.name.as_str(), vg.add_node(element)));
    }
    let handle = |name: &str| handles.iter().find(|(n, _)| *n == name).map(|(_, h)| *h);
    for e in edges {
        let (Some(from), Some(to)) = (handle(&e.from), handle(&e.to)) else {
            continue;
        };
        let style = if e.subset {
            LineStyleKind::Dashed
        } else {
            LineStyleKind::Normal
        };
        let (a, b, start, end) = if e.upward {
            (to, from, LineEndKind::Arrow, LineEndKind::None)
        } else {
            (from, to, LineEndKind::None, LineEndKind::Arrow)
        };
        let arrow = Arrow::with_properties(
            start,
            end,
            style,
            &e.label(),
            &look(),
            canvas::edge_class(e.layout, e.subset),
            &None,
            &None,
        );
        vg.add_edge(arrow, a, b);
    }
    let mut canvas = SvgCanvas::default();
    let (no_optimizations, no_layout) = match effort {
        Effort::Full => (false, false),
        Effort::NoOptimizations => (true, false),
        Effort::Simple => (true, true),
    };
    vg.do_it(false, no_optimizations, no_layout, &mut canvas);
    canvas
}

/// How much of `layout-rs`'s work to ask for. Its optimization passes assert invariants that a
/// few graphs break; a group whose layout panics is laid out again with less.
#[derive(Debug, Clone, Copy)]
enum Effort {
    /// Rank and crossing optimizations, Brandes-Köpf placement, edge straightening.
    Full,
    /// Placement and straightening without the rank and crossing optimizations.
    NoOptimizations,
    /// Ranks and rows only.
    Simple,
}

thread_local! {
    /// Set while this thread runs the layout library: its panics are caught and retried.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, catching a panic of the layout library without printing it: a layout that fails is
/// retried with less effort, so its panic message would only alarm. The process's panic hook is
/// wrapped once; it stays silent only on this thread while `f` runs.
fn quietly<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    result
}

fn panic_reason(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "the layout library panicked".to_owned())
}

/// Lays out one group, with less effort each time the library fails.
fn lay_out(plan: &Plan, members: &[usize], edges: &[Edge]) -> Result<Drawn, ReviewError> {
    let mut reason = String::new();
    for effort in [Effort::Full, Effort::NoOptimizations, Effort::Simple] {
        match quietly(|| draw_group(plan, members, edges, effort)) {
            Ok(canvas) => {
                return Ok(Drawn {
                    body: canvas.body(),
                    bounds: canvas.bounds(),
                })
            }
            Err(payload) => reason = panic_reason(payload.as_ref()),
        }
    }
    Err(ReviewError::Diagram { reason })
}

/// A laid-out group: its drawing and bounds.
struct Drawn {
    body: String,
    bounds: (f64, f64, f64, f64),
}

/// Places groups left to right in rows of about [`PAGE_WIDTH`]; returns each group's offset and
/// the total size.
fn pack(sizes: &[(f64, f64)]) -> (Vec<(f64, f64)>, f64, f64) {
    let widest = sizes.iter().map(|s| s.0).fold(0.0, f64::max);
    let limit = PAGE_WIDTH.max(widest);
    let mut offsets = Vec::with_capacity(sizes.len());
    let (mut x, mut y, mut row_h, mut total_w) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    for &(w, h) in sizes {
        if x > 0.0 && x + w > limit {
            y += row_h + GAP;
            x = 0.0;
            row_h = 0.0;
        }
        offsets.push((x, y));
        total_w = total_w.max(x + w);
        row_h = row_h.max(h);
        x += w + GAP;
    }
    (offsets, total_w, y + row_h)
}

/// The diagram of `plan` as a standalone SVG document.
pub fn svg(plan: &Plan) -> Result<String, ReviewError> {
    let edges = edges(plan);
    let groups = groups(plan, &edges);
    let drawn = groups
        .iter()
        .map(|members| {
            let names: Vec<&str> = members
                .iter()
                .map(|&i| plan.collections[i].name.as_str())
                .collect();
            let own: Vec<Edge> = edges
                .iter()
                .filter(|e| names.contains(&e.from.as_str()))
                .cloned()
                .collect();
            lay_out(plan, members, &own)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sizes: Vec<(f64, f64)> = drawn
        .iter()
        .map(|d| (d.bounds.2 - d.bounds.0, d.bounds.3 - d.bounds.1))
        .collect();
    let (offsets, width, height) = pack(&sizes);
    let mut body = String::new();
    for (d, (dx, dy)) in drawn.iter().zip(offsets) {
        let _ = writeln!(
            body,
            "<g transform=\"translate({} {})\">",
            num(dx - d.bounds.0),
            num(dy - d.bounds.1)
        );
        body.push_str(&d.body);
        body.push_str("</g>\n");
    }
    if drawn.is_empty() {
        body.push_str("<text x=\"0\" y=\"14\" class=\"more\">No collections.</text>\n");
    }
    Ok(document(plan, &body, width.max(200.0), height.max(28.0)))
}

fn document(plan: &Plan, body: &str, w: f64, h: f64) -> String {
    let pad = 12.0;
    let (x, y, w, h) = (-pad, -pad, w + 2.0 * pad, h + 2.0 * pad);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"erd\" role=\"img\" \
         viewBox=\"{} {} {} {}\" width=\"{}\" height=\"{}\">",
        num(x),
        num(y),
        num(w),
        num(h),
        num(w),
        num(h)
    );
    let _ = writeln!(
        out,
        "<title>Entity-relationship diagram of {}</title>",
        escape(&plan.source)
    );
    let _ = writeln!(out, "<style>{}</style>", canvas::STYLE);
    out.push_str(&canvas::markers());
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
        num(x),
        num(y),
        num(w),
        num(h)
    );
    out.push_str(body);
    out.push_str("</svg>\n");
    out
}
