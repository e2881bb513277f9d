//! A hand-built Plan for the review tests, written as the engine writes plans for seed 004 and
//! seed 003: people with embedded addresses, products with parent-referenced parts and
//! denormalized part names, hosts with child-referencing log messages plus the latest 1,000
//! embedded, blog posts with comments in buckets of 50, and warnings. It does not depend on the
//! resolver or the engine, so the renderer is tested on its own.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use squillion_codegen::model::{BsonType, Layout, RelationKind, Settings, SummaryFn};
use squillion_codegen::plan::{
    citation, BucketPlan, BucketPurpose, Collection, CollectionRole, Computed, ComputedFn,
    Decision, Denormalized, EndCardinalities, FanOut, FieldFlags, FieldKind, IdPlan, Index,
    IndexKey, Placement, Plan, PlanField, Rejected, RuleId, Severity, Shape, SizeEstimate,
    SourcePosition, SubsetPlan, Warning,
};
use squillion_grammar::SourceFile;

fn field(prefix: &str, name: &str, kind: FieldKind, bson: &str) -> PlanField {
    PlanField {
        name: name.to_owned(),
        path: if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}.{name}")
        },
        code_name: name.to_owned(),
        kind,
        bson_type: bson.to_owned(),
        containers: Vec::new(),
        array_depth: 0,
        max_items: None,
        typical_items: None,
        inner_dims: Vec::new(),
        map: false,
        max_entries: None,
        optional: false,
        type_name: None,
        enum_values: Vec::new(),
        range: None,
        children: Vec::new(),
        recursive: false,
        source: None,
        relation: None,
        variant: None,
        flags: FieldFlags::default(),
        docs: Vec::new(),
        size: SizeEstimate {
            average: 16,
            worst: Some(64),
        },
    }
}

fn scalar(prefix: &str, name: &str, bson: &str) -> PlanField {
    field(prefix, name, FieldKind::Scalar, bson)
}

fn id() -> PlanField {
    let mut f = scalar("", "_id", "objectId");
    f.code_name = "id".to_owned();
    f.flags.immutable = true;
    f
}

fn reference(name: &str, target: &str, relation: &str) -> PlanField {
    let mut f = field("", name, FieldKind::Ref, "objectId");
    f.source = Some(target.to_owned());
    f.relation = Some(relation.to_owned());
    f
}

fn size(average: u64, worst: Option<u64>) -> SizeEstimate {
    SizeEstimate { average, worst }
}

fn index(name: &str, keys: &[(&str, i32)], reasons: &[&str]) -> Index {
    Index {
        name: name.to_owned(),
        keys: keys
            .iter()
            .map(|(p, d)| IndexKey::ordered(*p, *d))
            .collect(),
        unique: false,
        sparse: false,
        partial_filter: None,
        collation: None,
        expire_after_seconds: None,
        multikey: false,
        reasons: reasons.iter().map(|r| (*r).to_owned()).collect(),
        serves: Vec::new(),
    }
}

fn collection(
    name: &str,
    entity: &str,
    role: CollectionRole,
    fields: Vec<PlanField>,
) -> Collection {
    Collection {
        name: name.to_owned(),
        entity: entity.to_owned(),
        role,
        docs: Vec::new(),
        id: IdPlan {
            bson_type: BsonType::ObjectId,
            natural_key: None,
        },
        fields,
        indexes: Vec::new(),
        size: size(200, Some(400)),
        patterns: Vec::new(),
        variants: None,
        schema_version: None,
    }
}

fn decision(id: &str, from: &str, to: &str, strategy: Layout) -> Decision {
    Decision {
        id: id.to_owned(),
        from: from.to_owned(),
        to: to.to_owned(),
        kind: RelationKind::OneToMany,
        cardinality: EndCardinalities {
            from: "many".to_owned(),
            to: "one".to_owned(),
            from_max: None,
            to_max: Some(1),
        },
        parent: from.to_owned(),
        child: to.to_owned(),
        strategy,
        forced: false,
        placement: Vec::new(),
        rules: Vec::new(),
        because: String::new(),
        facts: Vec::new(),
        rejected: Vec::new(),
        denormalized: Vec::new(),
        subset: None,
        bucket: None,
        computed: Vec::new(),
        outlier: None,
        cost: None,
        obligations: Vec::new(),
        warnings: Vec::new(),
    }
}

fn rejected(strategy: &str, why: &str, rules: &[RuleId]) -> Rejected {
    Rejected {
        strategy: strategy.to_owned(),
        why: why.to_owned(),
        rules: rules.to_vec(),
    }
}

fn position(line: usize, column: usize, start: usize) -> SourcePosition {
    SourcePosition {
        file: "fixture.sqn".to_owned(),
        line,
        column,
        start,
        end: start + 10,
    }
}

fn person() -> (Collection, Decision) {
    let mut address = field("", "addresses", FieldKind::Embedded, "object");
    address.type_name = Some("Address".to_owned());
    address.set_array(Some(10));
    address.relation = Some("Person.addresses".to_owned());
    address.children = vec![
        scalar("addresses", "street", "string"),
        scalar("addresses", "city", "string"),
        scalar("addresses", "cc", "string"),
    ];
    let mut ssn = scalar("", "ssn", "string");
    ssn.flags.sensitive = true;
    let mut c = collection(
        "person",
        "Person",
        CollectionRole::Entity,
        vec![id(), scalar("", "name", "string"), ssn, address],
    );
    c.docs = vec!["A person. seed 004: `{name: 'Kate Monster', ssn: '123-456-7890'}`.".to_owned()];
    c.size = size(412, Some(2_140));
    let mut d = decision("Person.addresses", "Person", "Address", Layout::Embed);
    d.cardinality.from = "few(10)".to_owned();
    d.cardinality.from_max = Some(10);
    d.because = "at most 10 Address per Person, never read on their own: embedded as an array of subdocuments (rule 1)".to_owned();
    d.placement = vec![Placement {
        holder: "Person".to_owned(),
        collection: "person".to_owned(),
        path: "addresses".to_owned(),
        shape: Shape::ArrayOfSubdocuments,
        target: "Address".to_owned(),
        max_items: Some(10),
    }];
    d.rules = vec![citation(RuleId::Rule1)];
    d.facts = vec![
        "a Person has at most 10 Address (few(10))".to_owned(),
        "Address is not declared standalone".to_owned(),
    ];
    d.rejected = vec![
        rejected(
            "parent_refs",
            "nothing reads an Address on its own (rule 2 does not apply), so a join buys nothing",
            &[RuleId::Rule1, RuleId::Rule2],
        ),
        rejected(
            "child_ref",
            "10 is far below the embedding bound of 200 (rule 3 does not apply)",
            &[RuleId::Rule3],
        ),
    ];
    (c, d)
}

fn products() -> (Collection, Collection, Decision) {
    let mut parts = field("", "parts", FieldKind::RefArray, "object");
    parts.type_name = Some("PartRef".to_owned());
    parts.set_array(Some(1_000));
    parts.source = Some("Part".to_owned());
    parts.relation = Some("Product.parts".to_owned());
    let mut part_id = field("parts", "id", FieldKind::Ref, "objectId");
    part_id.source = Some("Part".to_owned());
    let mut part_name = field("parts", "name", FieldKind::Denormalized, "string");
    part_name.source = Some("Part.name".to_owned());
    parts.children = vec![part_id, part_name];
    let mut catalog = scalar("", "catalog_number", "int");
    catalog.flags.unique = true;
    let mut product = collection(
        "products",
        "Product",
        CollectionRole::Entity,
        vec![
            id(),
            scalar("", "name", "string"),
            scalar("", "manufacturer", "string"),
            catalog,
            parts,
        ],
    );
    product.size = size(18_400, Some(37_900));
    let mut by_catalog = index(
        "catalog_number_1",
        &[("catalog_number", 1)],
        &[
            "query product_by_catalog_number (50/s)",
            "catalog_number is unique",
        ],
    );
    by_catalog.unique = true;
    let mut by_part = index(
        "parts.id_1",
        &[("parts.id", 1)],
        &["fan-out of Part.name: updateMany matches products.parts.id"],
    );
    by_part.multikey = true;
    product.indexes = vec![by_catalog, by_part];

    let mut part = collection(
        "parts",
        "Part",
        CollectionRole::Entity,
        vec![
            id(),
            scalar("", "partno", "string"),
            scalar("", "name", "string"),
            scalar("", "qty", "int"),
            scalar("", "cost", "decimal"),
            scalar("", "price", "decimal"),
        ],
    );
    part.size = size(118, Some(260));
    part.indexes = vec![index(
        "partno_1",
        &[("partno", 1)],
        &["query part_by_partno (5/s)"],
    )];

    let mut d = decision("Product.parts", "Product", "Part", Layout::ParentRefs);
    d.cardinality.from = "many(1000)".to_owned();
    d.cardinality.from_max = Some(1_000);
    d.because = "up to 1,000 Part per Product, and Part is read on its own: an array of Part ids in each Product (rules 2 and 4). Copies of Part.name travel with the references (rule 5: read far more often than updated)".to_owned();
    d.placement = vec![Placement {
        holder: "Product".to_owned(),
        collection: "products".to_owned(),
        path: "parts".to_owned(),
        shape: Shape::ArrayOfExtendedRefs,
        target: "Part".to_owned(),
        max_items: Some(1_000),
    }];
    d.rules = vec![
        citation(RuleId::Rule2),
        citation(RuleId::Rule3),
        citation(RuleId::Rule4),
        citation(RuleId::Rule5),
        citation(RuleId::ExtendedReference),
    ];
    d.facts = vec![
        "a Product has at most 1,000 Part (many(1000))".to_owned(),
        "Part is standalone: read and updated on its own".to_owned(),
        "Part.name is shown with Product, read 1,000 times per update".to_owned(),
    ];
    d.rejected = vec![
        rejected(
            "embed",
            "Part is read on its own (rule 2), and 1,000 exceeds the embedding bound of 200 (rule 3)",
            &[RuleId::Rule2, RuleId::Rule3],
        ),
        rejected(
            "child_ref",
            "1,000 ids fit an array under the id-array bound of 5,000; listing a product's parts would need an index on parts.product and a second query",
            &[RuleId::Rule3, RuleId::Rule6],
        ),
    ];
    d.denormalized = vec![Denormalized {
        source: "Part.name".to_owned(),
        collection: "products".to_owned(),
        copy_path: "parts.name".to_owned(),
        reads_per_update: Some(1_000.0),
        immutable: false,
        fan_out: FanOut {
            collection: "products".to_owned(),
            match_path: "parts.id".to_owned(),
            set_path: "parts.$[elem].name".to_owned(),
            array_filters: vec!["elem.id".to_owned()],
        },
    }];
    d.obligations = vec![
        "adding a Part to a Product is `$addToSet` on products.parts guarded by its bound (1,000); loading them is one `$in` query with a projection".to_owned(),
        "updating Part.name fans out to every copy: updateMany on `products` where parts.id is the Part's id, setting parts.$[elem].name (about 1 update per 1000 reads)".to_owned(),
    ];
    (product, part, d)
}

fn hosts() -> (Collection, Collection, Decision) {
    let mut latest = field("", "logmsgs", FieldKind::Embedded, "object");
    latest.type_name = Some("LogMessage".to_owned());
    latest.set_array(Some(1_000));
    latest.relation = Some("Host.logmsgs".to_owned());
    latest.children = vec![
        scalar("logmsgs", "time", "date"),
        scalar("logmsgs", "message", "string"),
    ];
    let mut ipaddr = scalar("", "ipaddr", "string");
    ipaddr.flags.indexed = true;
    let mut host = collection(
        "hosts",
        "Host",
        CollectionRole::Entity,
        vec![id(), scalar("", "name", "string"), ipaddr, latest],
    );
    host.size = size(96_200, Some(196_000));
    host.indexes = vec![index(
        "ipaddr_1",
        &[("ipaddr", 1)],
        &["query host_by_ipaddr (500/s)"],
    )];

    let mut log = collection(
        "logmsg",
        "LogMessage",
        CollectionRole::Entity,
        vec![
            id(),
            scalar("", "time", "date"),
            scalar("", "message", "string"),
            reference("host", "Host", "Host.logmsgs"),
        ],
    );
    log.size = size(140, None);
    log.indexes = vec![index(
        "host_1_time_-1",
        &[("host", 1), ("time", -1)],
        &["listing a Host's LogMessage, newest first (child_ref, rule 4)"],
    )];

    let mut d = decision("Host.logmsgs", "Host", "LogMessage", Layout::ChildRef);
    d.cardinality.from = "squillions".to_owned();
    d.because = "a Host has an unbounded number of LogMessage: each LogMessage holds its Host's id (rule 3). The Host also keeps its latest 1,000 LogMessage (subset pattern)".to_owned();
    d.placement = vec![
        Placement {
            holder: "LogMessage".to_owned(),
            collection: "logmsg".to_owned(),
            path: "host".to_owned(),
            shape: Shape::Id,
            target: "Host".to_owned(),
            max_items: None,
        },
        Placement {
            holder: "Host".to_owned(),
            collection: "hosts".to_owned(),
            path: "logmsgs".to_owned(),
            shape: Shape::ArrayOfSubdocuments,
            target: "LogMessage".to_owned(),
            max_items: Some(1_000),
        },
    ];
    d.rules = vec![
        citation(RuleId::Rule3),
        citation(RuleId::Rule4),
        citation(RuleId::Subset),
    ];
    d.facts = vec![
        "a Host has unboundedly many LogMessage (squillions, growth unbounded)".to_owned(),
        "LogMessage is appended often (append_heavy)".to_owned(),
        "the Host shows its latest 1,000 LogMessage by time".to_owned(),
    ];
    d.rejected = vec![
        rejected(
            "embed",
            "an unbounded array breaks the 16 MB document limit (rule 3)",
            &[RuleId::Rule3, RuleId::DocumentSize],
        ),
        rejected(
            "parent_refs",
            "even an array of ids grows without bound (rule 3)",
            &[RuleId::Rule3],
        ),
        rejected(
            "bucket",
            "no paged or time-range reads are declared: buckets would add writes without serving a read",
            &[RuleId::Rule6, RuleId::Bucket],
        ),
    ];
    d.subset = Some(SubsetPlan {
        collection: "hosts".to_owned(),
        path: "logmsgs".to_owned(),
        n: 1_000,
        sort_by: "time".to_owned(),
        descending: true,
        child_id: "_id".to_owned(),
        keep: vec!["time".to_owned(), "message".to_owned()],
        children: Some(squillion_codegen::plan::SubsetChildren {
            collection: "logmsgs".to_owned(),
            parent_key: "host".to_owned(),
        }),
    });
    d.obligations = vec![
        "listing a Host's LogMessage is one query on the index of logmsg.host".to_owned(),
        "adding a LogMessage also pushes a copy into hosts.logmsgs with $each, $sort by time and $slice -1000 (the oldest fall out)".to_owned(),
    ];
    d.warnings = vec!["W104".to_owned()];
    (host, log, d)
}

fn blog() -> (Collection, Collection, Decision) {
    let mut post = collection(
        "blog_posts",
        "BlogPost",
        CollectionRole::Entity,
        vec![
            id(),
            scalar("", "title", "string"),
            scalar("", "url", "string"),
            scalar("", "text", "string"),
        ],
    );
    post.size = size(1_800, Some(9_000));
    let mut items = field("", "comments", FieldKind::Embedded, "object");
    items.type_name = Some("Comment".to_owned());
    items.set_array(Some(50));
    items.children = vec![
        scalar("comments", "name", "string"),
        scalar("comments", "created_on", "date"),
        scalar("comments", "comment", "string"),
    ];
    let mut count = field("", "count", FieldKind::Computed, "long");
    count.docs = vec!["number of comments in this bucket".to_owned()];
    let mut bucket = collection(
        "blog_post_comments",
        "Comment",
        CollectionRole::Bucket {
            relation: "BlogPost.comments".to_owned(),
        },
        vec![
            id(),
            reference("blog_entry_id", "BlogPost", "BlogPost.comments"),
            count,
            items,
        ],
    );
    bucket.size = size(14_300, Some(52_000));
    bucket.indexes = vec![index(
        "blog_entry_id_1__id_1",
        &[("blog_entry_id", 1), ("_id", 1)],
        &["reading a BlogPost's comments a page at a time (bucket pattern)"],
    )];
    let mut d = decision("BlogPost.comments", "BlogPost", "Comment", Layout::Bucket);
    d.cardinality.from = "squillions".to_owned();
    d.because = "a BlogPost has unboundedly many Comment, read 50 at a time: buckets of 50 Comment referencing their BlogPost (bucket pattern, rule 3)".to_owned();
    d.placement = vec![
        Placement {
            holder: "blog_post_comments (bucket)".to_owned(),
            collection: "blog_post_comments".to_owned(),
            path: "comments".to_owned(),
            shape: Shape::ArrayOfSubdocuments,
            target: "Comment".to_owned(),
            max_items: Some(50),
        },
        Placement {
            holder: "blog_post_comments (bucket)".to_owned(),
            collection: "blog_post_comments".to_owned(),
            path: "blog_entry_id".to_owned(),
            shape: Shape::Id,
            target: "BlogPost".to_owned(),
            max_items: None,
        },
    ];
    d.rules = vec![citation(RuleId::Rule3), citation(RuleId::Bucket)];
    d.facts = vec![
        "a BlogPost has unboundedly many Comment (squillions)".to_owned(),
        "Comment is read a page of 50 at a time, by created_on ascending".to_owned(),
    ];
    d.rejected = vec![rejected(
        "child_ref",
        "a page of 50 would be 50 documents to fetch; one bucket is one page",
        &[RuleId::Bucket, RuleId::Rule6],
    )];
    d.bucket = Some(BucketPlan {
        collection: "blog_post_comments".to_owned(),
        size: 50,
        parent_path: "blog_entry_id".to_owned(),
        items_path: "comments".to_owned(),
        count_path: "count".to_owned(),
        time_range: None,
        order_by: Some("created_on".to_owned()),
        newest_first: false,
        purpose: BucketPurpose::Pages,
    });
    d.computed = vec![Computed {
        collection: "blog_post_comments".to_owned(),
        path: "count".to_owned(),
        function: ComputedFn::Summary {
            summary: SummaryFn::Count,
        },
        field: None,
    }];
    d.obligations = vec!["appending a Comment is one upsert on `blog_post_comments` filtered on {blog_entry_id, count < 50} with $push and $inc (a new bucket is created when the last is full)".to_owned()];
    (post, bucket, d)
}

/// The fixture plan.
pub fn plan() -> Plan {
    let (person, addresses) = person();
    let (product, part, parts) = products();
    let (host, log, logmsgs) = hosts();
    let (post, bucket, comments) = blog();
    Plan {
        format_version: Plan::FORMAT_VERSION,
        source: "fixture.sqn".to_owned(),
        settings: Settings::default(),
        collections: vec![person, product, part, host, log, post, bucket],
        relationships: vec![addresses, parts, logmsgs, comments],
        queries: Vec::new(),
        warnings: vec![
            Warning {
                code: "W104".to_owned(),
                severity: Severity::Warning,
                rule: citation(RuleId::Indexing),
                message: "`hosts.logmsgs` holds up to 1,000 subdocuments; documents of `hosts` reach 191 KB".to_owned(),
                help: Some("lower `latest` to keep the hot document small".to_owned()),
                position: position(98, 1, 4_100),
                collection: Some("hosts".to_owned()),
                relation: Some("Host.logmsgs".to_owned()),
            },
            Warning {
                code: "W120".to_owned(),
                severity: Severity::Info,
                rule: citation(RuleId::DocumentShape),
                message: "`logmsg` documents are unbounded in number; consider a TTL on `time`".to_owned(),
                help: None,
                position: position(112, 3, 4_600),
                collection: Some("logmsg".to_owned()),
                relation: None,
            },
        ],
    }
}

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// The names of the example schemas (`examples/<name>.sqn`), sorted.
pub fn example_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(examples_dir())
        .expect("examples/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

/// The plan of `examples/<name>.sqn`, through the resolver and the engine.
pub fn example_plan(name: &str) -> Plan {
    let path = examples_dir().join(format!("{name}.sqn"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let source = SourceFile::new(format!("examples/{name}.sqn"), text);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!(
            "examples/{name}.sqn does not check:\n{}",
            source.render(&diags, false)
        ),
    }
}

/// The words of a document or a sentence, whatever the format did to them: HTML entities and
/// `<code>` decoded, Markdown escapes and backticks dropped, wrapped lines joined.
pub fn words(s: &str) -> String {
    let s = s
        .replace("<code>", "")
        .replace("</code>", "")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&#x2f;", "/")
        .replace("&amp;", "&")
        .replace(['`', '\\'], "");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
