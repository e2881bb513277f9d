//! The shapes value types give documents: value types that contain themselves (E0304), nesting
//! deeper than the engine expands (E0320), and documents whose expanded shape has more fields than
//! a document can sensibly hold (E0321).
//!
//! Every check is linear in the number of value types and fields: one pass finds the strongly
//! connected components of the graph "value type -> value types its fields hold" (Tarjan, without
//! recursion, so thousands of nested value types cannot exhaust the stack), and depths and sizes
//! are computed once per value type in the order the components come out. A value type used by
//! two fields is expanded twice in a document, so sizes are counted with repetition (and
//! saturating): `V0 { a: V1  b: V1 }`, `V1 { a: V2  b: V2 }`, ... doubles at every level.

use std::collections::BTreeMap;

use squillion_grammar::Diagnostic;

use super::Resolver;
use crate::codes;
use crate::model::{Field, FieldType, Model, ValueType, MAX_DOCUMENT_FIELDS, MAX_VALUE_NESTING};

/// Steps of a cycle or a chain named in a message before it is shortened with `…`.
const SHOWN_STEPS: usize = 8;

/// The value types each field of a value type holds.
struct Graph<'m> {
    values: &'m [ValueType],
    /// Value types by name.
    index: BTreeMap<&'m str, usize>,
    /// `targets[v][f]`: the value type field `f` of value type `v` holds, if any.
    targets: Vec<Vec<Option<usize>>>,
    /// `edges[v]`: `(field, value type)` for every field of `v` that holds one.
    edges: Vec<Vec<(usize, usize)>>,
}

impl<'m> Graph<'m> {
    fn new(values: &'m [ValueType]) -> Self {
        let index: BTreeMap<&str, usize> = values
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name.as_str(), i))
            .collect();
        let targets: Vec<Vec<Option<usize>>> = values
            .iter()
            .map(|v| {
                v.fields
                    .iter()
                    .map(|field| value_name(&field.ty).and_then(|n| index.get(n).copied()))
                    .collect()
            })
            .collect();
        let edges = targets
            .iter()
            .map(|fields| {
                fields
                    .iter()
                    .enumerate()
                    .filter_map(|(f, w)| w.map(|w| (f, w)))
                    .collect()
            })
            .collect();
        Graph {
            values,
            index,
            targets,
            edges,
        }
    }

    /// The value type a type holds (through arrays and maps), if it is a declared one.
    fn target(&self, ty: &FieldType) -> Option<usize> {
        value_name(ty).and_then(|n| self.index.get(n).copied())
    }

    /// The strongly connected components, each listed after every component it reaches
    /// (Tarjan's algorithm with an explicit stack).
    fn components(&self) -> Vec<Vec<usize>> {
        let n = self.values.len();
        let mut index = vec![usize::MAX; n];
        let mut low = vec![0; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut out = Vec::new();
        let mut next = 0;
        for root in 0..n {
            if index[root] != usize::MAX {
                continue;
            }
            // (node, next edge to look at)
            let mut work = vec![(root, 0usize)];
            while let Some(&mut (v, ref mut edge)) = work.last_mut() {
                if *edge == 0 && index[v] == usize::MAX {
                    index[v] = next;
                    low[v] = next;
                    next += 1;
                    stack.push(v);
                    on_stack[v] = true;
                }
                if let Some(&(_, w)) = self.edges[v].get(*edge) {
                    *edge += 1;
                    if index[w] == usize::MAX {
                        work.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                    continue;
                }
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut component = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    out.push(component);
                }
            }
        }
        out
    }

    /// A cycle through `start` inside `members` as `(value, field)` steps (breadth first, so the
    /// shortest one).
    fn cycle(&self, start: usize, members: &[usize]) -> Vec<(usize, usize)> {
        let mut inside = vec![false; self.values.len()];
        for &m in members {
            inside[m] = true;
        }
        let mut came_from: Vec<Option<(usize, usize)>> = vec![None; self.values.len()];
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(v) = queue.pop_front() {
            for &(f, w) in &self.edges[v] {
                if w == start {
                    let mut path = vec![(v, f)];
                    let mut at = v;
                    while at != start {
                        let Some(step) = came_from[at] else { break };
                        path.push(step);
                        at = step.0;
                    }
                    path.reverse();
                    return path;
                }
                if inside[w] && came_from[w].is_none() && w != start {
                    came_from[w] = Some((v, f));
                    queue.push_back(w);
                }
            }
        }
        Vec::new()
    }
}

/// The name of the value type a type holds (through arrays and maps).
fn value_name(ty: &FieldType) -> Option<&str> {
    let mut ty = ty;
    loop {
        match ty {
            FieldType::Array { elem, .. } => ty = elem,
            FieldType::Map { value, .. } => ty = value,
            FieldType::Value { name } => return Some(name),
            FieldType::Scalar { .. } | FieldType::Counters { .. } => return None,
        }
    }
}

/// How one value type expands.
#[derive(Debug, Clone, Copy, Default)]
struct Shape {
    /// Levels of value types, itself included.
    depth: usize,
    /// The value type on its deepest path, below it.
    deepest: Option<usize>,
    /// Fields once every value type in it is expanded (saturating).
    fields: u64,
}

/// Reports value types that contain themselves (once per cycle, at its first-declared value
/// type) and returns how every other value type expands (`None` for those in or above a cycle).
fn value_shapes(r: &mut Resolver<'_>, graph: &Graph<'_>) -> Vec<Option<Shape>> {
    let mut shapes: Vec<Option<Shape>> = vec![None; graph.values.len()];
    for component in graph.components() {
        let start = component.iter().copied().min().unwrap_or_default();
        let cyclic = component.len() > 1 || graph.edges[start].iter().any(|&(_, w)| w == start);
        if cyclic {
            report_cycle(r, graph.values, &graph.cycle(start, &component));
            continue;
        }
        // Every value type it holds came out of `components` before it.
        let v = start;
        let mut shape = Shape::default();
        let mut poisoned = false;
        for (field, target) in graph.values[v].fields.iter().zip(&graph.targets[v]) {
            shape.fields = shape.fields.saturating_add(1);
            let Some(w) = *target else { continue };
            let Some(inner) = shapes[w] else {
                poisoned = true;
                break;
            };
            let depth = inner.depth + attribute_level(field);
            if depth > shape.depth {
                shape.depth = depth;
                shape.deepest = Some(w);
            }
            shape.fields = shape.fields.saturating_add(inner.fields);
        }
        if !poisoned {
            shape.depth += 1;
            shapes[v] = Some(shape);
        }
    }
    shapes
}

/// `@attributes` stores a map as an array of `{k, v}` documents: one more level.
fn attribute_level(field: &Field) -> usize {
    usize::from(field.facts.attributes)
}

fn report_cycle(r: &mut Resolver<'_>, values: &[ValueType], path: &[(usize, usize)]) {
    let Some(&(v0, f0)) = path.first() else {
        return;
    };
    let start = &values[v0];
    let field = |&(v, f): &(usize, usize)| &values[v].fields[f];
    let next = |i: usize| {
        let (v, _) = path.get(i + 1).copied().unwrap_or(path[0]);
        format!("`{}`", values[v].name)
    };
    let mut route: Vec<String> = path
        .iter()
        .take(SHOWN_STEPS)
        .map(|&(v, f)| format!("{}.{}", values[v].name, values[v].fields[f].name))
        .collect();
    if path.len() > SHOWN_STEPS {
        route.push(format!("… ({} more)", path.len() - SHOWN_STEPS));
    }
    let mut d = Diagnostic::error(
        codes::VALUE_TYPE_CYCLE,
        field(&(v0, f0)).span,
        format!(
            "value type `{}` contains itself: {} -> {}",
            start.name,
            route.join(" -> "),
            start.name
        ),
    )
    .with_label(format!("`{}` holds {}", field(&(v0, f0)).name, next(0)))
    .with_help(
        "a value has a finite shape; to nest things without end (replies to replies), declare an \
         entity and relate it to itself",
    );
    for (i, step) in path.iter().enumerate().skip(1).take(SHOWN_STEPS - 1) {
        d = d.with_related(field(step).span, format!("which holds {}", next(i)));
    }
    r.report(d);
}

/// Checks the value types and the documents that hold them: cycles, nesting, expanded size.
pub(super) fn check(r: &mut Resolver<'_>, model: &Model) {
    let graph = Graph::new(&model.values);
    let shapes = value_shapes(r, &graph);
    for entity in &model.entities {
        let fields = entity.all_fields();
        let owner = format!("entity `{}`", entity.name);
        let total = document(r, &graph, &shapes, fields, &owner);
        if total > MAX_DOCUMENT_FIELDS {
            r.report(too_many_fields(&owner, total, entity.span));
        }
    }
    for relation in &model.relations {
        let owner = format!("relation `{}`", relation.id);
        let total = document(r, &graph, &shapes, relation.fields.iter(), &owner);
        if total > MAX_DOCUMENT_FIELDS {
            r.report(too_many_fields(&owner, total, relation.span));
        }
    }
}

/// Reports fields nested too deeply; returns the fields of the document once expanded.
fn document<'f>(
    r: &mut Resolver<'_>,
    graph: &Graph<'_>,
    shapes: &[Option<Shape>],
    fields: impl Iterator<Item = &'f Field>,
    owner: &str,
) -> u64 {
    let mut total: u64 = 0;
    for field in fields {
        total = total.saturating_add(1);
        let Some(v) = graph.target(&field.ty) else {
            continue;
        };
        let Some(shape) = shapes[v] else { continue };
        total = total.saturating_add(shape.fields);
        let depth = shape.depth + attribute_level(field);
        if depth > MAX_VALUE_NESTING {
            r.report(too_deep(graph, shapes, field, v, depth, owner));
        }
    }
    total
}

fn too_deep(
    graph: &Graph<'_>,
    shapes: &[Option<Shape>],
    field: &Field,
    first: usize,
    depth: usize,
    owner: &str,
) -> Diagnostic {
    let mut chain = Vec::new();
    let mut at = Some(first);
    while let Some(v) = at {
        if chain.len() == SHOWN_STEPS {
            chain.push("…".to_owned());
            break;
        }
        chain.push(format!("`{}`", graph.values[v].name));
        at = shapes[v].and_then(|s| s.deepest);
    }
    Diagnostic::error(
        codes::VALUE_NESTING_TOO_DEEP,
        field.span,
        format!(
            "field `{}` of {owner} nests value types {depth} deep ({}), more than {MAX_VALUE_NESTING}",
            field.name,
            chain.join(" -> ")
        ),
    )
    .with_label(format!("{depth} levels of subdocuments"))
    .with_help(
        "every value type is one more level of subdocument (MongoDB refuses documents nested \
         more than 100 levels deep): flatten the value types, or give the inner part an entity \
         of its own and a relation",
    )
}

fn too_many_fields(owner: &str, total: u64, span: squillion_grammar::Span) -> Diagnostic {
    Diagnostic::error(
        codes::DOCUMENT_TOO_WIDE,
        span,
        format!(
            "the documents of {owner} would hold {} fields once its value types are expanded, \
             more than {}",
            crate::prose::thousands(total),
            crate::prose::thousands(MAX_DOCUMENT_FIELDS)
        ),
    )
    .with_label("too many fields")
    .with_help(
        "a value type used by several fields is copied into each of them, and so are the value \
         types it holds: use arrays of one value type instead of many fields of it, or move \
         parts into entities of their own",
    )
}
