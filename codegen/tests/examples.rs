//! Every example schema (`examples/*.sqn`) planned by the real resolver and engine gives the answer
//! of the seed it comes from: the layout of each relationship, its modifiers, where the fields go,
//! and the entity patterns. Each expectation cites the seed that states it.

use squillion_codegen::model::Layout;
use squillion_codegen::plan::{Plan, Shape};
use squillion_grammar::SourceFile;

fn plan(name: &str) -> Plan {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(format!("{name}.sqn"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let source = SourceFile::new(format!("examples/{name}.sqn"), text);
    match squillion_codegen::load(&source) {
        Ok(checked) => {
            let plan = squillion_codegen::engine::plan(&checked.model, &source);
            assert!(!plan.has_errors(), "{name}: {:#?}", plan.warnings);
            plan
        }
        Err(d) => panic!("{name} does not check:\n{}", source.render(&d, false)),
    }
}

/// One relationship as the seed decides it.
struct Expect {
    id: &'static str,
    strategy: Layout,
    denormalized: bool,
    subset: Option<u64>,
    bucket: Option<u64>,
    computed: bool,
    outlier: bool,
    /// The shapes of its placements, in order.
    shapes: &'static [Shape],
    seed: &'static str,
}

const fn e(
    id: &'static str,
    strategy: Layout,
    shapes: &'static [Shape],
    seed: &'static str,
) -> Expect {
    Expect {
        id,
        strategy,
        denormalized: false,
        subset: None,
        bucket: None,
        computed: false,
        outlier: false,
        shapes,
        seed,
    }
}

fn check(name: &str, expected: &[Expect]) {
    let p = plan(name);
    let ids: Vec<&str> = p.relationships.iter().map(|d| d.id.as_str()).collect();
    let wanted: Vec<&str> = expected.iter().map(|x| x.id).collect();
    assert_eq!(ids, wanted, "{name}: the relationships planned");
    for x in expected {
        let d = p.relationship(x.id).unwrap();
        let what = format!("{name}: {} ({}): {}", x.id, x.seed, d.because);
        assert_eq!(d.strategy, x.strategy, "{what}");
        assert!(
            !d.forced,
            "{what}: the seed's layout is reached from facts, not forced"
        );
        assert_eq!(
            !d.denormalized.is_empty(),
            x.denormalized,
            "{what}: denormalized"
        );
        assert_eq!(d.subset.as_ref().map(|s| s.n), x.subset, "{what}: subset");
        assert_eq!(
            d.bucket.as_ref().map(|b| b.size),
            x.bucket,
            "{what}: bucket"
        );
        assert_eq!(!d.computed.is_empty(), x.computed, "{what}: computed");
        assert_eq!(d.outlier.is_some(), x.outlier, "{what}: outlier");
        let shapes: Vec<Shape> = d.placement.iter().map(|p| p.shape).collect();
        assert_eq!(shapes, x.shapes, "{what}: placement");
        assert!(
            !d.rules.is_empty() && !d.rejected.is_empty(),
            "{what}: rules and rejections"
        );
    }
}

fn patterns_of(p: &Plan, collection: &str) -> Vec<String> {
    p.collection(collection)
        .unwrap_or_else(|| panic!("no collection {collection}"))
        .patterns
        .iter()
        .map(|x| x.name.clone())
        .collect()
}

#[test]
fn blog_follows_seed_003() {
    use Shape::*;
    check(
        "blog",
        &[
            e(
                "User.address",
                Layout::Embed,
                &[Subdocument],
                "seed 003: embedding preferred for one-to-one",
            ),
            Expect {
                bucket: Some(50),
                ..e(
                    "BlogPost.comments",
                    Layout::Bucket,
                    &[ArrayOfSubdocuments, Id],
                    "seed 003: buckets of 50 comments",
                )
            },
            e(
                "Book.authors",
                Layout::TwoWay,
                &[ArrayOfIds, ArrayOfIds],
                "seed 003: two way embedding, 3 and 5",
            ),
            e(
                "Book.categories",
                Layout::OneWay,
                &[ArrayOfIds],
                "seed 003: one way embedding, 3 and 500,000",
            ),
        ],
    );
    let p = plan("blog");
    let books = p.collection("books").unwrap();
    assert!(
        books.field("categories").is_some(),
        "seed 003: the category ids live on the book"
    );
    assert!(p.collection("categories").unwrap().field("books").is_none());
}

#[test]
fn catalog_follows_seed_001() {
    use Shape::*;
    check(
        "catalog",
        &[
            Expect {
                computed: true,
                ..e(
                    "Book.comments",
                    Layout::Embed,
                    &[ArrayOfSubdocuments],
                    "seed 001: embed comments, keep comments_count",
                )
            },
            e(
                "Product.category_ids",
                Layout::OneWay,
                &[ArrayOfIds],
                "seed 001: products hold category ids",
            ),
        ],
    );
    let p = plan("catalog");
    assert_eq!(
        patterns_of(&p, "shapes"),
        ["polymorphic"],
        "seed 001: single-collection shapes"
    );
    assert_eq!(patterns_of(&p, "jobs"), ["queue"], "seed 001: job queue");
    let tree = p
        .collections
        .iter()
        .find(|c| c.patterns.iter().any(|x| x.name == "tree"))
        .expect("seed 001: a tree of ancestors");
    assert!(tree.field("ancestors").is_some() && tree.field("parent").is_some());
    let shapes = p.collection("shapes").unwrap();
    assert!(
        shapes
            .indexes
            .iter()
            .any(|i| i.sparse && i.keys.iter().any(|k| k.path == "radius")),
        "seed 001: sparse index on radius: {:#?}",
        shapes.indexes
    );
}

#[test]
fn inventory_follows_seed_004() {
    use Shape::*;
    check(
        "inventory",
        &[
            e(
                "Person.addresses",
                Layout::Embed,
                &[ArrayOfSubdocuments],
                "seed 004: one-to-few",
            ),
            Expect {
                denormalized: true,
                ..e(
                    "Product.parts",
                    Layout::ParentRefs,
                    &[ArrayOfExtendedRefs],
                    "seed 004: one-to-many with part names",
                )
            },
            Expect {
                denormalized: true,
                subset: Some(1000),
                ..e(
                    "Host.logmsgs",
                    Layout::ChildRef,
                    &[ExtendedRef],
                    "seed 004: one-to-squillions, latest 1,000",
                )
            },
            e(
                "Person.tasks",
                Layout::TwoWay,
                &[ArrayOfIds, Id],
                "seed 004: two-way referencing",
            ),
        ],
    );
}

#[test]
fn library_follows_seed_000() {
    use Shape::*;
    check(
        "library",
        &[
            Expect {
                denormalized: true,
                ..e(
                    "Author.books",
                    Layout::ChildRef,
                    &[ExtendedRef],
                    "seed 000: author name cached on the book",
                )
            },
            Expect {
                bucket: Some(10),
                computed: true,
                ..e(
                    "Book.notes",
                    Layout::Bucket,
                    &[ArrayOfSubdocuments, Id],
                    "seed 000: bookNotes, note_count < 10",
                )
            },
            e(
                "User.notes",
                Layout::ChildRef,
                &[Id],
                "seed 000: notes store the username",
            ),
            e(
                "Note.comments",
                Layout::Embed,
                &[ArrayOfSubdocuments],
                "seed 000: comments inside each note",
            ),
            e(
                "Comment.replies",
                Layout::Embed,
                &[ArrayOfSubdocuments],
                "seed 000: replies inside comments",
            ),
            e(
                "User.comments",
                Layout::ChildRef,
                &[Id],
                "seed 000: comments name their user",
            ),
        ],
    );
    let p = plan("library");
    let users = p.collection("users").unwrap();
    let id = users.field("_id").unwrap();
    assert_eq!(
        id.bson_type, "string",
        "seed 000: the username is the natural key"
    );
}

#[test]
fn patterns_follow_seed_002() {
    use Shape::*;
    check(
        "patterns",
        &[
            Expect {
                bucket: Some(200),
                computed: true,
                ..e(
                    "Sensor.readings",
                    Layout::Bucket,
                    &[ArrayOfSubdocuments, Id],
                    "seed 002: IoT buckets with count, total, max",
                )
            },
            Expect {
                computed: true,
                ..e(
                    "Section.efforts",
                    Layout::ChildRef,
                    &[Id],
                    "seed 002: best times, computed top 20",
                )
            },
            Expect {
                denormalized: true,
                ..e(
                    "Customer.invoices",
                    Layout::TwoWay,
                    &[ArrayOfExtendedRefs, Id],
                    "seed 002: subset of all invoices",
                )
            },
            Expect {
                outlier: true,
                ..e(
                    "Movie.cast",
                    Layout::Embed,
                    &[ArrayOfSubdocuments],
                    "seed 002: movie cast outlier",
                )
            },
            e(
                "User.follows",
                Layout::OneWay,
                &[ArrayOfIds],
                "seed 002: ids of the followed on the follower",
            ),
            e(
                "User.posts",
                Layout::ChildRef,
                &[Id],
                "seed 002: each post names its author",
            ),
        ],
    );
    let p = plan("patterns");
    assert_eq!(
        patterns_of(&p, "versions"),
        ["document_versioning", "payload"]
    );
    assert_eq!(patterns_of(&p, "events"), ["histogram"]);
    assert_eq!(patterns_of(&p, "product"), ["attributes"]);
    assert_eq!(patterns_of(&p, "users"), ["schema_versioning"]);
    let minutes = p
        .collection("events")
        .unwrap()
        .fields
        .iter()
        .find(|f| !f.inner_dims.is_empty())
        .expect("seed 002: nested counters");
    assert_eq!(
        (minutes.max_items, minutes.inner_dims.clone()),
        (Some(24), vec![60])
    );
}

#[test]
fn every_example_is_covered() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let covered = ["blog", "catalog", "inventory", "library", "patterns"];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "sqn") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(
                covered.contains(&stem.as_str()),
                "examples/{stem}.sqn has no seed test here"
            );
        }
    }
}
