//! Decision tests: each required behaviour of the engine, stated as a small schema taken from a
//! seed, and the layout the seed gives.

use squillion_codegen::model::Layout;
use squillion_codegen::plan::{FieldKind, Plan, RuleId, Severity, Shape};
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("test.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!("schema does not check:\n{}", source.render(&diags, false)),
    }
}

fn has_rule(plan: &Plan, id: &str, rule: RuleId) -> bool {
    plan.relationship(id)
        .unwrap()
        .rules
        .iter()
        .any(|r| r.id == rule)
}

fn rejected_why<'a>(plan: &'a Plan, id: &str, strategy: &str) -> &'a str {
    let d = plan.relationship(id).unwrap();
    &d.rejected
        .iter()
        .find(|r| r.strategy == strategy)
        .unwrap_or_else(|| panic!("{strategy} not rejected in {:#?}", d.rejected))
        .why
}

// ---------------------------------------------------------------------------------------------
// One-to-one

#[test]
fn one_to_one_read_together_is_embedded_as_a_subdocument() {
    // seed 003: user and address, embedding preferred.
    let p = plan(
        "entity User { name: string }
         entity Address { street: string city: string }
         relation User.address: one <-> Address.user: one",
    );
    let d = p.relationship("User.address").unwrap();
    assert_eq!(d.strategy, Layout::Embed);
    assert_eq!(d.placement[0].shape, Shape::Subdocument);
    assert!(has_rule(&p, "User.address", RuleId::Rule1));
    let users = p.collection("users").unwrap();
    let address = users.field("address").unwrap();
    assert_eq!(address.kind, FieldKind::Embedded);
    assert!(address.children.iter().any(|c| c.name == "street"));
    assert!(
        p.collection("addresses").is_none(),
        "an embedded entity needs no collection"
    );
}

#[test]
fn one_to_one_large_seldom_read_side_stays_out_of_the_hot_document() {
    // seed 002: even 1:1, embedding is less efficient if the author info is large and seldom used.
    let p = plan(
        "entity Book { title: string }
         entity AuthorBio { text: string @large(20KB) @seldom_read }
         relation Book.bio: one <-> AuthorBio.book: one",
    );
    let d = p.relationship("Book.bio").unwrap();
    assert_eq!(d.strategy, Layout::ChildRef);
    assert!(p.collection("author_bios").is_some());
    assert!(p.collection("books").unwrap().field("bio").is_none());
    assert!(rejected_why(&p, "Book.bio", "embed").contains("seldom-read"));
}

// ---------------------------------------------------------------------------------------------
// One-to-many

#[test]
fn one_to_few_never_read_alone_is_an_embedded_array() {
    // seed 004: person and addresses.
    let p = plan(
        "entity Person { name: string }
         entity Address { street: string city: string cc: string }
         relation Person.addresses: few(5) <-> Address.person: one",
    );
    let d = p.relationship("Person.addresses").unwrap();
    assert_eq!(d.strategy, Layout::Embed);
    assert_eq!(d.placement[0].shape, Shape::ArrayOfSubdocuments);
    assert_eq!(d.placement[0].max_items, Some(5));
    let f = p
        .collection("people")
        .or(p.collection("persons"))
        .unwrap()
        .field("addresses")
        .unwrap();
    assert_eq!(f.array_depth, 1);
    assert_eq!(f.max_items, Some(5));
}

#[test]
fn one_to_few_read_on_its_own_is_referenced_by_rule_2() {
    let p = plan(
        "entity Person { name: string }
         entity Address { street: string }
         relation Person.addresses: few(5) <-> Address.person: one { standalone Address }",
    );
    let d = p.relationship("Person.addresses").unwrap();
    assert_eq!(d.strategy, Layout::ParentRefs);
    assert!(has_rule(&p, "Person.addresses", RuleId::Rule2));
    assert!(rejected_why(&p, "Person.addresses", "embed").contains("rule 2"));
}

#[test]
fn one_to_many_up_to_a_few_thousand_is_parent_refs() {
    // seed 004: products and parts.
    let p = plan(
        "entity Product { name: string }
         entity Part { partno: string name: string }
         relation Product.parts: many(1000) <-> Part.product: one { standalone Part }",
    );
    let d = p.relationship("Product.parts").unwrap();
    assert_eq!(d.strategy, Layout::ParentRefs);
    assert_eq!(d.placement[0].shape, Shape::ArrayOfIds);
    let parts = p.collection("products").unwrap().field("parts").unwrap();
    assert_eq!(parts.kind, FieldKind::RefArray);
    assert_eq!(parts.bson_type, "objectId");
    assert_eq!(parts.max_items, Some(1000));
}

#[test]
fn many_children_not_read_alone_still_use_parent_refs() {
    let p = plan(
        "entity Product { name: string }
         entity Part { name: string }
         relation Product.parts: many(1000) <-> Part.product: one",
    );
    assert_eq!(
        p.relationship("Product.parts").unwrap().strategy,
        Layout::ParentRefs
    );
    assert!(has_rule(&p, "Product.parts", RuleId::Rule3));
}

#[test]
fn one_to_squillions_is_child_ref_by_rule_3() {
    // seed 004: hosts and log messages.
    let p = plan(
        "entity Host { name: string ipaddr: string }
         entity LogMessage { time: date message: string }
         relation Host.messages: squillions <-> LogMessage.host: one",
    );
    let d = p.relationship("Host.messages").unwrap();
    assert_eq!(d.strategy, Layout::ChildRef);
    assert!(has_rule(&p, "Host.messages", RuleId::Rule3));
    let logs = p.collection("log_messages").unwrap();
    assert_eq!(logs.field("host").unwrap().kind, FieldKind::Ref);
    assert!(logs.indexes.iter().any(|i| i.keys[0].path == "host"));
    assert!(rejected_why(&p, "Host.messages", "parent_refs").contains("rule 3"));
}

#[test]
fn both_directions_read_without_atomic_moves_is_two_way() {
    // seed 004: person and tasks.
    let p = plan(
        "entity Person { name: string }
         entity Task { description: string due_date: date }
         relation Person.tasks: many(500) <-> Task.owner: one { standalone Task navigate both }",
    );
    let d = p.relationship("Person.tasks").unwrap();
    assert_eq!(d.strategy, Layout::TwoWay);
    assert!(p
        .collection("people")
        .or(p.collection("persons"))
        .unwrap()
        .field("tasks")
        .is_some());
    assert!(p.collection("tasks").unwrap().field("owner").is_some());
    assert!(d.obligations.iter().any(|o| o.contains("transaction")));
}

#[test]
fn an_atomic_move_between_parents_is_never_two_way() {
    let p = plan(
        "entity Person { name: string }
         entity Task { description: string }
         relation Person.tasks: many(500) <-> Task.owner: one { standalone Task navigate both atomic_move }",
    );
    let d = p.relationship("Person.tasks").unwrap();
    assert_ne!(d.strategy, Layout::TwoWay);
    assert_eq!(d.strategy, Layout::ChildRef);
    assert!(rejected_why(&p, "Person.tasks", "two_way").contains("atomic"));
}

#[test]
fn append_heavy_unbounded_children_are_never_embedded() {
    // seed 000: write-heavy notes.
    let p = plan(
        "entity Book { title: string }
         entity Note { user: string note: string }
         relation Book.notes: squillions <-> Note.book: one { growth append_heavy, unbounded }",
    );
    let d = p.relationship("Book.notes").unwrap();
    assert_ne!(d.strategy, Layout::Embed);
}

// ---------------------------------------------------------------------------------------------
// Many-to-many

#[test]
fn many_to_many_both_small_is_two_way() {
    // seed 003: N 3 and M 5.
    let p = plan(
        "entity Book { title: string }
         entity Author { name: string }
         relation Book.authors: few(3) <-> Author.books: few(5)",
    );
    let d = p.relationship("Book.authors").unwrap();
    assert_eq!(d.strategy, Layout::TwoWay);
    assert_eq!(
        p.collection("books")
            .unwrap()
            .field("authors")
            .unwrap()
            .max_items,
        Some(3)
    );
    assert_eq!(
        p.collection("authors")
            .unwrap()
            .field("books")
            .unwrap()
            .max_items,
        Some(5)
    );
}

#[test]
fn many_to_many_with_one_huge_side_is_one_way_on_the_small_side() {
    // seed 003: 3 categories per book, 500,000 books per category.
    let p = plan(
        "entity Book { title: string }
         entity Category { name: string }
         relation Book.categories: few(3) <-> Category.books: many(500000)",
    );
    let d = p.relationship("Book.categories").unwrap();
    assert_eq!(d.strategy, Layout::OneWay);
    assert_eq!(d.parent, "Book");
    assert!(p.collection("books").unwrap().field("categories").is_some());
    assert!(p.collection("categories").unwrap().field("books").is_none());
    let idx = &p.collection("books").unwrap().indexes;
    assert!(idx
        .iter()
        .any(|i| i.keys[0].path == "categories" && i.multikey));
    assert!(rejected_why(&p, "Book.categories", "two_way").contains("rule 3"));
}

#[test]
fn follows_store_the_followed_ids_on_the_follower_only() {
    // seed 002 social network.
    let p = plan(
        "entity User { name: string }
         relation User.follows: many(2000) <-> User.followers: squillions",
    );
    let d = p.relationship("User.follows").unwrap();
    assert_eq!(d.strategy, Layout::OneWay);
    let users = p.collection("users").unwrap();
    assert_eq!(users.field("follows").unwrap().max_items, Some(2000));
    assert!(users.field("followers").is_none());
}

#[test]
fn both_sides_unbounded_is_a_link_collection() {
    let p = plan(
        "entity Student { name: string }
         entity Course { title: string }
         relation Student.courses: squillions <-> Course.students: squillions",
    );
    let d = p.relationship("Student.courses").unwrap();
    assert_eq!(d.strategy, Layout::LinkCollection);
    let link = p.collection("student_courses").unwrap();
    assert!(link.indexes.iter().any(|i| i.unique && i.keys.len() == 2));
    assert_eq!(link.indexes.len(), 2, "{:#?}", link.indexes);
}

#[test]
fn a_relationship_with_fields_of_its_own_is_a_link_collection() {
    // Sides alike in size (20 against 150), nothing naming one: a collection of pairs.
    let p = plan(
        "entity User { name: string }
         entity Group { name: string }
         relation User.groups: few(20) <-> Group.members: few(150) { fields { role: string since: date } }",
    );
    let d = p.relationship("User.groups").unwrap();
    assert_eq!(d.strategy, Layout::LinkCollection);
    let link = p.collection("user_groups").unwrap();
    assert!(link.field("role").is_some());
    assert!(link.field("since").is_some());
}

#[test]
fn a_relationship_with_fields_of_unbalanced_sides_keeps_them_on_the_small_side() {
    // docs/language.md's example: a user's 20 groups against a group's 300 members (over a couple
    // of hundred and ten times as many): each user holds `[{id, role, since}]`, and a group's
    // members are found through `groups.id` (seed 003 relationship balance).
    let p = plan(
        "entity User { name: string }
         entity Group { name: string }
         relation User.groups: few(20) <-> Group.members: many(300) { fields { role: string since: date } }",
    );
    let d = p.relationship("User.groups").unwrap();
    assert_eq!(d.strategy, Layout::OneWay);
    assert_eq!(d.placement[0].holder, "User");
    let users = p.collection("users").unwrap();
    let groups = users.field("groups").unwrap();
    assert!(groups.children.iter().any(|c| c.name == "role"));
    assert!(users.indexes.iter().any(|i| i.keys[0].path == "groups.id"));
    assert!(p.collection("user_groups").is_none());
}

// ---------------------------------------------------------------------------------------------
// Denormalization (rule 5)

#[test]
fn fields_shown_often_are_copied_as_an_extended_reference() {
    // seed 004: part names on products, 1,000 reads per update.
    let p = plan(
        "entity Product { name: string }
         entity Part { name: string }
         relation Product.parts: many(1000) <-> Part.product: one {
           standalone Part
           show Part.name on Product ratio 1000:1
         }",
    );
    let d = p.relationship("Product.parts").unwrap();
    assert_eq!(d.denormalized.len(), 1);
    let copy = &d.denormalized[0];
    assert_eq!(copy.source, "Part.name");
    assert_eq!(copy.copy_path, "parts.name");
    assert!(
        !copy.fan_out.array_filters.is_empty(),
        "the copy sits in an array"
    );
    assert!(has_rule(&p, "Product.parts", RuleId::Rule5));
    let parts = p.collection("products").unwrap().field("parts").unwrap();
    assert_eq!(parts.bson_type, "object");
    assert!(parts.children.iter().any(|c| c.name == "id"));
    assert!(parts
        .children
        .iter()
        .any(|c| c.name == "name" && c.kind == FieldKind::Denormalized));
    assert_eq!(d.placement[0].shape, Shape::ArrayOfExtendedRefs);
}

#[test]
fn fields_updated_as_often_as_read_are_never_copied() {
    let p = plan(
        "entity Product { name: string }
         entity Part { name: string }
         relation Product.parts: many(1000) <-> Part.product: one {
           standalone Part
           show Part.name on Product ratio 1:1
         }",
    );
    let d = p.relationship("Product.parts").unwrap();
    assert!(d.denormalized.is_empty());
    assert!(rejected_why(&p, "Product.parts", "denormalized").contains("rule 5"));
}

#[test]
fn copies_need_the_ratio_to_reach_the_threshold() {
    let p = plan(
        "entity Product { name: string }
         entity Part { name: string }
         relation Product.parts: many(1000) <-> Part.product: one {
           standalone Part
           show Part.name on Product ratio 5:1
         }",
    );
    assert!(p
        .relationship("Product.parts")
        .unwrap()
        .denormalized
        .is_empty());
    let p = plan(
        "settings { denormalize_min_ratio = 4 }
         entity Product { name: string }
         entity Part { name: string }
         relation Product.parts: many(1000) <-> Part.product: one {
           standalone Part
           show Part.name on Product ratio 5:1
         }",
    );
    assert_eq!(
        p.relationship("Product.parts").unwrap().denormalized.len(),
        1
    );
}

#[test]
fn a_query_on_a_copied_field_is_indexed_on_the_copy() {
    // seed 000: books by an author's first name, name cached on the book.
    let p = plan(
        "entity Author { first_name: string last_name: string }
         entity Book { title: string }
         relation Author.books: many(300) <-> Book.author: one {
           standalone Book
           show Author.first_name on Book ratio 1000:1
         }
         query books_by_author_first_name on Book {
           where author.first_name starts_with ? ignore_case
         }",
    );
    let d = p.relationship("Author.books").unwrap();
    assert_eq!(
        d.strategy,
        Layout::ChildRef,
        "books are found through their author: {}",
        d.because
    );
    let books = p.collection("books").unwrap();
    let author = books.field("author").unwrap();
    assert!(author.children.iter().any(|c| c.name == "first_name"));
    let idx = books
        .indexes
        .iter()
        .find(|i| i.keys.iter().any(|k| k.path == "author.first_name"))
        .expect("index on the copy");
    assert_eq!(idx.collation.as_ref().map(|c| c.strength), Some(2));
    assert!(p.warnings.iter().any(|w| w.code == "W107"));
}

// ---------------------------------------------------------------------------------------------
// Subset, bucket, computed, outlier

#[test]
fn latest_n_is_a_subset_kept_with_slice() {
    // seed 004: the latest 1000 log messages in the host.
    let p = plan(
        "entity Host { name: string }
         entity LogMessage { time: date message: string }
         relation Host.messages: squillions <-> LogMessage.host: one {
           latest 1000 by time keep time, message
         }",
    );
    let d = p.relationship("Host.messages").unwrap();
    assert_eq!(d.strategy, Layout::ChildRef);
    let s = d.subset.as_ref().expect("subset");
    assert_eq!(s.n, 1000);
    assert_eq!(s.sort_by, "time");
    let hosts = p.collection("hosts").unwrap();
    let f = hosts.field(&s.path).unwrap();
    assert_eq!(f.max_items, Some(1000));
    // Each copy: the child's `_id`, then the kept fields; never the reference back to the host.
    let names: Vec<&str> = f.children.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["_id", "time", "message"]);
    assert_eq!(s.child_id, "_id");
    assert_eq!(s.keep, ["time", "message"]);
    let children = s.children.as_ref().expect("the children's collection");
    assert_eq!(
        (children.collection.as_str(), children.parent_key.as_str()),
        ("log_messages", "host")
    );
    assert!(has_rule(&p, "Host.messages", RuleId::Subset));
}

#[test]
fn paged_children_are_bucketed_by_page_size() {
    // seed 003: comments in buckets of 50.
    let p = plan(
        "entity Post { title: string }
         entity Comment { name: string created_on: date comment: string }
         relation Post.comments: squillions <-> Comment.post: one { page 50 by created_on }",
    );
    let d = p.relationship("Post.comments").unwrap();
    assert_eq!(d.strategy, Layout::Bucket);
    let b = d.bucket.as_ref().unwrap();
    assert_eq!(b.size, 50);
    let buckets = p.collection(&b.collection).unwrap();
    assert_eq!(buckets.field("comments").unwrap().max_items, Some(50));
    assert!(buckets.field("count").is_some());
    assert!(buckets
        .indexes
        .iter()
        .any(|i| i.keys.iter().any(|k| k.path == "count")));
    assert!(p.collection("comments").is_none());
}

#[test]
fn time_series_with_summaries_is_a_bucket_with_computed_fields() {
    // seed 002: IoT readings, buckets of 200 with count, total, max of each bucket.
    let p = plan(
        "entity Sensor { location: string }
         entity Reading { ts: date v: double }
         relation Sensor.readings: squillions <-> Reading.sensor: one {
           growth append_heavy
           time_range by ts
           summary count, total(v), max(v) per bucket
         }",
    );
    let d = p.relationship("Sensor.readings").unwrap();
    assert_eq!(d.strategy, Layout::Bucket);
    let b = d.bucket.as_ref().unwrap();
    assert_eq!(b.size, 200);
    assert!(b.time_range.is_some());
    let paths: Vec<&str> = d.computed.iter().map(|c| c.path.as_str()).collect();
    assert!(
        paths.contains(&"count") && paths.contains(&"total") && paths.contains(&"max"),
        "{paths:?}"
    );
    assert!(has_rule(&p, "Sensor.readings", RuleId::Computed));
    assert!(has_rule(&p, "Sensor.readings", RuleId::Bucket));
}

/// Without `per bucket` the summaries of bucketed children are the parent's (the computed
/// pattern on the parent): for every way children come to be bucketed (pages, a time range, a
/// forced bucket), the parent's collection holds the summaries, the buckets hold only their
/// count, and the bucket's append raises them.
#[test]
fn summaries_of_bucketed_children_are_kept_on_the_parent() {
    for facts in [
        "page 20 by ts",
        "page 10",
        "growth append_heavy\n time_range by ts",
        "force bucket(50)",
    ] {
        for (scope, on_parent) in [("", true), (" per bucket", false)] {
            let p = plan(&format!(
                "entity Sensor {{ location: string }}
                 entity Reading {{ ts: date v: double }}
                 relation Sensor.readings: squillions <-> Reading.sensor: one {{
                   {facts}
                   summary count, total(v), max(v), avg(v){scope}
                 }}"
            ));
            let d = p.relationship("Sensor.readings").unwrap();
            assert_eq!(d.strategy, Layout::Bucket, "{facts}");
            let b = d.bucket.as_ref().unwrap();
            let sensors = p.collection("sensors").unwrap();
            let buckets = p.collection(&b.collection).unwrap();
            for f in ["readings_count", "readings_total", "readings_max"] {
                assert_eq!(sensors.field(f).is_some(), on_parent, "{facts}{scope}: {f}");
            }
            for f in ["total", "max"] {
                assert_eq!(
                    buckets.field(f).is_some(),
                    !on_parent,
                    "{facts}{scope}: {f}"
                );
            }
            assert!(buckets.field("count").is_some(), "a bucket always counts");
            let parent_summaries = d
                .computed
                .iter()
                .filter(|c| c.collection == "sensors")
                .count();
            assert_eq!(parent_summaries > 0, on_parent, "{facts}{scope}");
            let said = d.obligations.join("\n");
            assert_eq!(
                said.contains("raises the Sensor's `readings_count`"),
                on_parent,
                "{said}"
            );
        }
    }
}

#[test]
fn top_n_is_computed_on_the_parent() {
    // seed 002: best 20 times per section.
    let p = plan(
        "entity Section { name: string }
         entity Effort { athlete: string time: int32 }
         relation Section.efforts: squillions <-> Effort.section: one {
           top 20 by time asc keep athlete, time
         }",
    );
    let d = p.relationship("Section.efforts").unwrap();
    let top = d.computed.iter().find(|c| {
        matches!(
            c.function,
            squillion_codegen::plan::ComputedFn::TopN { n: 20, .. }
        )
    });
    assert!(top.is_some(), "{:#?}", d.computed);
    assert_eq!(
        p.collection("sections")
            .unwrap()
            .field("top_efforts")
            .unwrap()
            .max_items,
        Some(20)
    );
}

#[test]
fn usually_few_rarely_thousands_is_the_outlier_pattern() {
    // seed 002: movie cast.
    let p = plan(
        "entity Movie { title: string }
         entity CastMember { name: string role: string }
         relation Movie.cast: many(20000, typical 50) <-> CastMember.movie: one",
    );
    let d = p.relationship("Movie.cast").unwrap();
    assert_eq!(d.strategy, Layout::Embed);
    let o = d.outlier.as_ref().expect("outlier");
    assert_eq!(o.embedded_max, 200);
    assert!(p.collection(&o.overflow_collection).is_some());
    assert!(p
        .collection("movies")
        .unwrap()
        .field(&o.flag_path)
        .is_some());
    assert!(has_rule(&p, "Movie.cast", RuleId::Outlier));
}

// ---------------------------------------------------------------------------------------------
// Identity and entity patterns

#[test]
fn an_immutable_natural_key_is_the_id_and_references_store_it() {
    // seed 000: username as _id, notes store the username.
    let p = plan(
        "entity User { username: string @key password: string @sensitive }
         entity Book { title: string }
         relation User.books: squillions <-> Book.owner: one",
    );
    let users = p.collection("users").unwrap();
    assert_eq!(users.id.natural_key.as_deref(), Some("username"));
    assert_eq!(users.field("_id").unwrap().bson_type, "string");
    assert!(users.field("username").is_none());
    let d = p.relationship("User.books").unwrap();
    let holder = p.collection(&d.placement[0].collection).unwrap();
    let f = holder.field_at(&d.placement[0].path).unwrap();
    assert!(
        f.bson_type == "string"
            || f.children
                .iter()
                .any(|c| c.name == "id" && c.bson_type == "string")
    );
}

#[test]
fn entity_patterns_add_their_fields_and_indexes() {
    let p = plan(
        "entity Category @tree { name: string }
         entity Job @queue(priority: priority) { priority: int32 message: string }
         entity Shape @polymorphic(discriminator: \"type\") {
           area: double
           variant circle { radius: double @index }
           variant square { d: double }
         }
         entity Product { sku: string attrs: map<string> @attributes }
         entity Post @schema_version(2) { text: string }
         entity Events { minutes: counters(minute_of_day) }
         entity Plan @versioned(future) { body: binary @payload }",
    );
    let cat = p.collection("categories").unwrap();
    assert!(cat.field("parent").is_some() && cat.field("ancestors").is_some());
    assert!(cat.indexes.iter().any(|i| i.keys[0].path == "ancestors"));
    assert!(cat.indexes.iter().any(|i| i.keys[0].path == "parent"));
    let jobs = p.collection("jobs").unwrap();
    assert!(jobs
        .indexes
        .iter()
        .any(|i| i.keys[0].path == "in_progress" && i.keys[1].direction == -1));
    let shapes = p.collection("shapes").unwrap();
    assert!(shapes.field("type").is_some());
    assert!(shapes
        .indexes
        .iter()
        .any(|i| i.keys[0].path == "radius" && i.sparse));
    let products = p.collection("products").unwrap();
    assert!(products.indexes.iter().any(|i| i
        .keys
        .iter()
        .map(|k| k.path.as_str())
        .collect::<Vec<_>>()
        == ["attrs.k", "attrs.v"]));
    assert!(p
        .collection("posts")
        .unwrap()
        .field("schema_version")
        .is_some());
    let minutes = p.collection("events").unwrap().field("minutes").unwrap();
    assert_eq!(
        (minutes.max_items, minutes.inner_dims.clone()),
        (Some(24), vec![60])
    );
    let plans = p.collection("plans").unwrap();
    assert!(plans.field("valid_from").is_some() && plans.field("valid_to").is_some());
    assert!(
        plans
            .indexes
            .iter()
            .all(|i| i.keys.iter().all(|k| k.path != "body")),
        "payload never indexed"
    );
}

// ---------------------------------------------------------------------------------------------
// Overrides and warnings

#[test]
fn a_forced_layout_is_honoured_with_a_warning_naming_the_rule() {
    let p = plan(
        "entity Host { name: string }
         entity LogMessage { message: string }
         relation Host.messages: many(10000) <-> LogMessage.host: one { force embed }",
    );
    let d = p.relationship("Host.messages").unwrap();
    assert_eq!(d.strategy, Layout::Embed);
    assert!(d.forced);
    let w = p
        .warnings
        .iter()
        .find(|w| w.code == "W110")
        .expect("forced warning");
    assert_eq!(w.rule.number, Some(3));
    assert!(
        p.warnings.iter().any(|w| w.code == "W101"),
        "embedded array over 200"
    );
    assert!(w.position.line >= 3);
}

#[test]
fn a_document_that_can_exceed_16_mb_is_an_error() {
    let p = plan("entity Doc { blobs: [binary; 20] @large(1MB) }");
    assert!(p
        .warnings
        .iter()
        .any(|w| w.code == "W104" && w.severity == Severity::Error));
    assert!(p.has_errors());
}

#[test]
fn a_compound_index_serves_its_prefixes() {
    let p = plan(
        "entity Book { title: string author: string year: int32 }
         query by_author on Book { where author == ? limit 10 }
         query by_author_year on Book { where author == ? sort year desc limit 10 }",
    );
    let books = p.collection("books").unwrap();
    assert_eq!(books.indexes.len(), 1, "{:#?}", books.indexes);
    let i = &books.indexes[0];
    // The sorted query breaks ties by `_id`, which the index ends with.
    assert_eq!(i.name, "author_1_year_-1__id_1");
    assert_eq!(i.reasons.len(), 2);
}

#[test]
fn query_indexes_put_equality_then_sort_then_range() {
    let p = plan(
        "entity Order { customer: string status: string total: double created: date }
         query recent on Order { where created > ? and customer == ? sort total desc }",
    );
    let keys: Vec<(String, i32)> = p.collection("orders").unwrap().indexes[0]
        .keys
        .iter()
        .map(|k| (k.path.clone(), k.direction))
        .collect();
    // The query pages (no `limit`): `_id` follows the sort keys, so the index serves its keyset
    // order.
    assert_eq!(
        keys,
        vec![
            ("customer".into(), 1),
            ("total".into(), -1),
            ("_id".into(), 1),
            ("created".into(), 1)
        ]
    );
}

#[test]
fn the_same_model_gives_the_same_plan() {
    let src = "entity Author { name: string }
         entity Book { title: string @index year: int32 }
         entity Category { name: string }
         relation Author.books: many(300) <-> Book.author: one { standalone Book show Author.name on Book ratio 100:1 }
         relation Book.categories: few(3) <-> Category.books: many(500000)
         query by_year on Book { where year between ? sort title }";
    let a = plan(src).to_json();
    let b = plan(src).to_json();
    assert_eq!(a, b);
}

// ---------------------------------------------------------------------------------------------
// Queries the layout cannot serve

/// A forced `embed` moves Book into its Author, so `books` holds no `author`: the query on it
/// must not become a method that silently drops the condition (and returns every book).
#[test]
fn a_query_on_a_path_the_layout_does_not_store_gets_w119_and_no_method() {
    let src = "entity Author { name: string }
entity Book { title: string }
relation Author.books: many(1000) <-> Book.author: one {
  standalone Book
  force embed
}
query books_by_author on Book { where author == ? }
query books_by_title on Book { where title == ? sort title desc }
";
    let p = plan(src);
    let by_author = p
        .queries
        .iter()
        .find(|q| q.name == "books_by_author")
        .unwrap();
    assert_eq!(by_author.unstored, ["author"]);
    assert!(by_author.conditions.is_empty());
    let by_title = p
        .queries
        .iter()
        .find(|q| q.name == "books_by_title")
        .unwrap();
    assert!(by_title.unstored.is_empty());
    let w = p.warnings.iter().find(|w| w.code == "W119").unwrap();
    assert_eq!(w.severity, Severity::Warning);
    assert_eq!((w.position.line, w.position.column), (7, 7));

    let source = SourceFile::new("test.sqn", src);
    let rust = squillion_codegen::pipeline::compile(&source, &Default::default())
        .unwrap()
        .rust;
    assert!(!rust.contains("fn books_by_author("), "{rust}");
    assert!(rust.contains("fn books_by_title("), "{rust}");
}

/// seed 003's comment pages read newest first (`page 50 by created_on desc`): the Plan says so and
/// the bucket attribute carries `desc`, so the repository reads the newest bucket first, and
/// `sort`, so every append keeps its bucket sorted by the declared key.
#[test]
fn buckets_paged_newest_first_say_so_in_the_plan_and_the_attribute() {
    let src = "entity BlogPost { title: string }
entity Comment { created_on: date text: string }
relation BlogPost.comments: squillions <-> Comment.post: one {
  growth append_heavy, unbounded
  page 50 by created_on desc
}
";
    let p = plan(src);
    let b = p
        .relationship("BlogPost.comments")
        .unwrap()
        .bucket
        .as_ref()
        .unwrap();
    assert!(b.newest_first);
    assert_eq!(b.order_by.as_deref(), Some("created_on"));
    let source = SourceFile::new("test.sqn", src);
    let rust = squillion_codegen::pipeline::compile(&source, &Default::default())
        .unwrap()
        .rust;
    assert!(
        rust.contains(r#"bucket(size = 50, key = post, count = count, sort = "created_on", desc)"#),
        "{rust}"
    );
    let asc = plan(&src.replace(" desc", " asc"));
    assert!(
        !asc.relationship("BlogPost.comments")
            .unwrap()
            .bucket
            .as_ref()
            .unwrap()
            .newest_first
    );
}
