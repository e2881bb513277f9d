//! Declarations and the names that refer to them, found in the syntax tree: entities, value types,
//! fields, relation ends, variants and queries, and every place a name points at one of them (a
//! field's type, a relation's ends and facts, a query's entity and paths, an attribute's field).
//!
//! Built from the tree alone, so navigation works in a file with semantic errors; the model, when
//! the file is valid, says which end of a relation is the child whose fields its facts name.

use squillion_codegen::resolve::Checked;
use squillion_grammar::ast::{
    Attr, FactKind, FieldDecl, Ident, Item, Path, QueryDecl, RelationDecl, Schema, TypeDecl,
    TypeExpr, TypeExprKind, Value,
};
use squillion_grammar::Span;

/// What a symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `entity Name`.
    Entity,
    /// `value Name`.
    Value,
    /// A field of an entity, value type, variant or relation.
    Field,
    /// `Entity.field` at a relation's end: the field through which the entity reaches the other.
    RelationEnd,
    /// `variant name` of a polymorphic entity.
    Variant,
    /// `query name`.
    Query,
}

/// One declaration.
#[derive(Debug, Clone)]
pub struct Symbol {
    /// What it is.
    pub kind: Kind,
    /// Its name.
    pub name: String,
    /// The entity or value type it belongs to (fields, relation ends, variants); for the fields of
    /// a relation, the relation.
    pub owner: Option<String>,
    /// Its variant, for a variant's field.
    pub variant: Option<String>,
    /// The relation (`Entity.field` of its left end), for relation ends and relation fields.
    pub relation: Option<String>,
    /// The value type or entity a field's type names (innermost, through arrays and maps); the
    /// entity at the other end, for a relation end.
    pub target: Option<String>,
    /// The name where it is declared.
    pub name_span: Span,
    /// The whole declaration.
    pub span: Span,
}

/// A name in the text and the symbol it names.
#[derive(Debug, Clone, Copy)]
pub struct Occurrence {
    /// Where the name is written.
    pub span: Span,
    /// Index into [`Symbols::symbols`].
    pub symbol: usize,
    /// This is the declaration itself.
    pub declaration: bool,
}

/// A relation's header (`relation A.x: c <-> B.y: c`) and its id.
#[derive(Debug, Clone)]
pub struct RelationHeader {
    /// `Entity.field` of the left end: the Plan's id of its decision.
    pub id: String,
    /// From `relation` (and its doc comment) to the right end's cardinality.
    pub span: Span,
}

/// The symbols of one file.
#[derive(Debug, Clone, Default)]
pub struct Symbols {
    /// Every declaration, in source order.
    pub symbols: Vec<Symbol>,
    /// Every occurrence (declarations included), sorted by position.
    pub occurrences: Vec<Occurrence>,
    /// Every relation's header.
    pub relations: Vec<RelationHeader>,
}

impl Symbols {
    /// The symbols of `schema`; `checked` (the valid model) tells each relation's child.
    pub fn new(schema: &Schema, checked: Option<&Checked>) -> Symbols {
        let mut s = Symbols::default();
        for item in &schema.items {
            s.declare_item(item);
        }
        for item in &schema.items {
            match item {
                Item::Entity(decl) | Item::Value(decl) => s.refer_type_decl(decl),
                Item::Relation(decl) => s.refer_relation(decl, checked),
                Item::Query(decl) => s.refer_query(decl),
                Item::Settings(_) => {}
            }
        }
        s.occurrences.sort_by_key(|o| (o.span.start, o.span.end));
        s
    }

    /// The occurrence under byte `offset` (a cursor just after a name is on it).
    pub fn at(&self, offset: usize) -> Option<Occurrence> {
        let after = self.occurrences.partition_point(|o| o.span.start <= offset);
        self.occurrences[..after]
            .iter()
            .rev()
            .find(|o| o.span.start <= offset && offset <= o.span.end)
            .copied()
    }

    /// Every occurrence of symbol `index`, declaration first.
    pub fn occurrences_of(&self, index: usize) -> Vec<Occurrence> {
        let mut found: Vec<Occurrence> = self
            .occurrences
            .iter()
            .filter(|o| o.symbol == index)
            .copied()
            .collect();
        found.sort_by_key(|o| (!o.declaration, o.span.start));
        found
    }

    /// The relation whose header holds byte `offset`.
    pub fn relation_at(&self, offset: usize) -> Option<&RelationHeader> {
        self.relations
            .iter()
            .find(|r| r.span.start <= offset && offset <= r.span.end)
    }

    /// The first entity or value type named `name`.
    pub fn type_named(&self, name: &str) -> Option<usize> {
        self.find(|s| matches!(s.kind, Kind::Entity | Kind::Value) && s.name == name)
    }

    /// The field or relation end `name` of entity or value type `owner`.
    pub fn member(&self, owner: &str, name: &str) -> Option<usize> {
        self.find(|s| {
            matches!(s.kind, Kind::Field | Kind::RelationEnd)
                && s.owner.as_deref() == Some(owner)
                && s.name == name
        })
    }

    /// The fields and relation ends of `owner`.
    pub fn members<'a>(&'a self, owner: &'a str) -> impl Iterator<Item = &'a Symbol> + 'a {
        self.symbols.iter().filter(move |s| {
            matches!(s.kind, Kind::Field | Kind::RelationEnd) && s.owner.as_deref() == Some(owner)
        })
    }

    /// The names of every symbol of `kind`, in source order, each once.
    pub fn names(&self, kind: Kind) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for s in self.symbols.iter().filter(|s| s.kind == kind) {
            if !names.contains(&s.name.as_str()) {
                names.push(&s.name);
            }
        }
        names
    }

    fn find(&self, test: impl Fn(&Symbol) -> bool) -> Option<usize> {
        self.symbols.iter().position(test)
    }

    fn declare(&mut self, symbol: Symbol) {
        self.occurrences.push(Occurrence {
            span: symbol.name_span,
            symbol: self.symbols.len(),
            declaration: true,
        });
        self.symbols.push(symbol);
    }

    fn refer(&mut self, span: Span, symbol: Option<usize>) {
        if let Some(symbol) = symbol {
            self.occurrences.push(Occurrence {
                span,
                symbol,
                declaration: false,
            });
        }
    }

    fn declare_item(&mut self, item: &Item) {
        match item {
            Item::Entity(decl) => self.declare_type(decl, Kind::Entity),
            Item::Value(decl) => self.declare_type(decl, Kind::Value),
            Item::Relation(decl) => {
                let id = format!("{}.{}", decl.left.entity.name, decl.left.field.name);
                for (end, other) in [(&decl.left, &decl.right), (&decl.right, &decl.left)] {
                    self.declare(Symbol {
                        kind: Kind::RelationEnd,
                        name: end.field.name.clone(),
                        owner: Some(end.entity.name.clone()),
                        variant: None,
                        relation: Some(id.clone()),
                        target: Some(other.entity.name.clone()),
                        name_span: end.field.span,
                        span: end.span,
                    });
                }
                for fact in &decl.facts {
                    if let FactKind::Fields(fields) = &fact.kind {
                        for f in fields {
                            self.declare_field(f, &id, None, Some(&id));
                        }
                    }
                }
                self.relations.push(RelationHeader {
                    id,
                    span: Span::new(decl.span.start, decl.right.span.end),
                });
            }
            Item::Query(decl) => self.declare(Symbol {
                kind: Kind::Query,
                name: decl.name.name.clone(),
                owner: Some(decl.entity.name.clone()),
                variant: None,
                relation: None,
                target: None,
                name_span: decl.name.span,
                span: decl.span,
            }),
            Item::Settings(_) => {}
        }
    }

    fn declare_type(&mut self, decl: &TypeDecl, kind: Kind) {
        let owner = decl.name.name.as_str();
        self.declare(Symbol {
            kind,
            name: owner.to_owned(),
            owner: None,
            variant: None,
            relation: None,
            target: None,
            name_span: decl.name.span,
            span: decl.span,
        });
        for f in &decl.fields {
            self.declare_field(f, owner, None, None);
        }
        for v in &decl.variants {
            self.declare(Symbol {
                kind: Kind::Variant,
                name: v.name.name.clone(),
                owner: Some(owner.to_owned()),
                variant: None,
                relation: None,
                target: None,
                name_span: v.name.span,
                span: v.span,
            });
            for f in &v.fields {
                self.declare_field(f, owner, Some(&v.name.name), None);
            }
        }
    }

    fn declare_field(
        &mut self,
        f: &FieldDecl,
        owner: &str,
        variant: Option<&str>,
        relation: Option<&str>,
    ) {
        self.declare(Symbol {
            kind: Kind::Field,
            name: f.name.name.clone(),
            owner: Some(owner.to_owned()),
            variant: variant.map(str::to_owned),
            relation: relation.map(str::to_owned),
            target: named_type(&f.ty).map(|i| i.name.clone()),
            name_span: f.name.span,
            span: f.span,
        });
    }

    fn refer_type_decl(&mut self, decl: &TypeDecl) {
        let fields = decl
            .fields
            .iter()
            .chain(decl.variants.iter().flat_map(|v| &v.fields));
        for f in fields {
            self.refer_field_type(f);
        }
        self.refer_attrs(&decl.attrs, &decl.name.name);
    }

    fn refer_field_type(&mut self, f: &FieldDecl) {
        if let Some(name) = named_type(&f.ty) {
            let target = self.type_named(&name.name);
            self.refer(name.span, target);
        }
    }

    /// `@queue(priority: n)`: arguments that name a field of the declaration.
    fn refer_attrs(&mut self, attrs: &[Attr], owner: &str) {
        for attr in attrs {
            for arg in &attr.args {
                if let Value::Path(path) = &arg.value {
                    self.refer_path(path, owner);
                }
            }
        }
    }

    fn refer_relation(&mut self, decl: &RelationDecl, checked: Option<&Checked>) {
        let id = format!("{}.{}", decl.left.entity.name, decl.left.field.name);
        for end in [&decl.left, &decl.right] {
            let target = self.type_named(&end.entity.name);
            self.refer(end.entity.span, target);
        }
        let (left, right) = (
            decl.left.entity.name.as_str(),
            decl.right.entity.name.as_str(),
        );
        // The entity whose fields `by`, `keep`, `summary` and `time_range` name: the child.
        let child = checked
            .and_then(|c| c.model.relations.iter().find(|r| r.id == id))
            .map(|r| r.child().entity.clone());
        let order: Vec<&str> = match child.as_deref() {
            Some(c) if c == left => vec![left, right],
            _ => vec![right, left],
        };
        for fact in &decl.facts {
            match &fact.kind {
                FactKind::Standalone(e) | FactKind::Navigate(e) => {
                    let target = self.type_named(&e.name);
                    self.refer(e.span, target);
                }
                FactKind::Show { fields, on, .. } => {
                    for path in fields {
                        self.refer_entity_path(path);
                    }
                    let target = self.type_named(&on.name);
                    self.refer(on.span, target);
                }
                FactKind::Page { by, .. } => {
                    if let Some(by) = by {
                        self.refer_child_field(&by.field, &order);
                    }
                }
                FactKind::Latest { by, keep, .. } | FactKind::Top { by, keep, .. } => {
                    self.refer_child_field(&by.field, &order);
                    for k in keep {
                        self.refer_child_field(k, &order);
                    }
                }
                FactKind::Summary { items, .. } => {
                    for item in items {
                        if let Some(field) = &item.field {
                            self.refer_child_field(field, &order);
                        }
                    }
                }
                FactKind::TimeRange { field, .. } => self.refer_child_field(field, &order),
                FactKind::Fields(fields) => {
                    for f in fields {
                        self.refer_field_type(f);
                    }
                }
                FactKind::Growth { .. } | FactKind::AtomicMove | FactKind::Force { .. } => {}
            }
        }
    }

    fn refer_child_field(&mut self, field: &Ident, order: &[&str]) {
        let target = order.iter().find_map(|e| self.member(e, &field.name));
        self.refer(field.span, target);
    }

    /// `Entity.field` in a `show` fact.
    fn refer_entity_path(&mut self, path: &Path) {
        let Some((first, rest)) = path.segments.split_first() else {
            return;
        };
        let target = self.type_named(&first.name);
        self.refer(first.span, target);
        if !rest.is_empty() {
            let rest = Path {
                segments: rest.to_vec(),
                span: path.span,
            };
            self.refer_path(&rest, &first.name);
        }
    }

    fn refer_query(&mut self, decl: &QueryDecl) {
        let target = self.type_named(&decl.entity.name);
        self.refer(decl.entity.span, target);
        let paths = decl
            .conditions
            .iter()
            .map(|c| &c.path)
            .chain(decl.sort.iter().map(|k| &k.path));
        for path in paths {
            self.refer_path(path, &decl.entity.name);
        }
    }

    /// `a.b.c` read from `owner`: through value-typed fields and relation ends.
    fn refer_path(&mut self, path: &Path, owner: &str) {
        let mut owner = owner.to_owned();
        for segment in &path.segments {
            let Some(found) = self.member(&owner, &segment.name) else {
                return;
            };
            self.refer(segment.span, Some(found));
            match self.symbols[found].target.clone() {
                Some(next) => owner = next,
                None => return,
            }
        }
    }
}

/// The name a type expression ends in: `Address` in `[Address; 5]?`.
fn named_type(ty: &TypeExpr) -> Option<&Ident> {
    match &ty.kind {
        TypeExprKind::Named(name) => Some(name),
        TypeExprKind::Array { elem, .. } => named_type(elem),
        TypeExprKind::Map { value, .. } => named_type(value),
        TypeExprKind::Counters(_) | TypeExprKind::OneOf { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols(text: &str) -> Symbols {
        let schema = squillion_grammar::parse(text).unwrap();
        Symbols::new(&schema, None)
    }

    /// The texts of every occurrence of the symbol declared at the first `name`.
    fn uses(text: &str, s: &Symbols, at: &str) -> Vec<usize> {
        let offset = text.find(at).unwrap();
        let o = s.at(offset).unwrap();
        s.occurrences_of(o.symbol)
            .iter()
            .map(|o| o.span.start)
            .collect()
    }

    #[test]
    fn names_point_at_their_declarations() {
        let text = "value Addr { city: string }\n\
                    entity Author { name: string home: Addr }\n\
                    entity Book { title: string at: date }\n\
                    relation Author.books: many <-> Book.author: one {\n  show Author.name on Book ratio 10:1\n  latest 5 by at keep title\n}\n\
                    query q on Book { where author.home.city == ? sort title }\n";
        let s = symbols(text);
        let all =
            |needle: &str| -> Vec<usize> { text.match_indices(needle).map(|(i, _)| i).collect() };
        assert_eq!(uses(text, &s, "Addr"), all("Addr"));
        assert_eq!(uses(text, &s, "city"), all("city"));
        assert_eq!(uses(text, &s, "Book"), all("Book"));
        assert_eq!(uses(text, &s, "title"), all("title"));
        assert_eq!(uses(text, &s, "home"), all("home"));
        // `author` the relation end, read through by the query.
        let author_end = text.find("author:").unwrap();
        assert_eq!(
            uses(text, &s, "author:"),
            [author_end, text.find("author.home").unwrap()]
        );
        assert_eq!(
            s.relation_at(text.find("<->").unwrap()).unwrap().id,
            "Author.books"
        );
    }
}
