//! Filling each example's database through its generated code: the typed documents and
//! repositories of `examples/generated`, so the layout is exactly the one squillion planned.
//!
//! The data realises each relation's declared facts, which is what a real application's data
//! does: a `few(N)` relation has parents with up to N children, a `many` one parents with more
//! than a couple of hundred (the `embed_array_max` default) and at most a few thousand, a
//! `squillions` one a parent with more than a few thousand (`id_array_max`). Most parents are
//! small: counts are skewed, as in the seeds (a few prolific authors, one busy host).

use bson::oid::ObjectId;
use bson::DateTime;
use mongodb::Database;
use squillion::BoundedVec;
use squillion_examples_generated::{blog, catalog, inventory, library, patterns};

/// A small deterministic generator (xorshift64*): the same data on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    /// A skewed count: usually near `typical`, never above `max`.
    pub fn count(&mut self, typical: u64, max: u64) -> u64 {
        (self.below(typical * 2 + 1)).min(max)
    }
}

fn bounded<T, const N: usize>(items: Vec<T>) -> BoundedVec<T, N> {
    BoundedVec::try_from(items).unwrap_or_else(|_| panic!("more than {N} items"))
}

fn at(ms: i64) -> DateTime {
    DateTime::from_millis(1_700_000_000_000 + ms)
}

macro_rules! repo {
    ($db:expr, $ty:path) => {{
        let r = <$ty>::new(&$db);
        r.ensure_indexes().await.unwrap();
        r.ensure_validator().await.unwrap();
        r
    }};
}

/// blog.sqn: users with an optional address; posts with comments in buckets of 50; books with
/// up to 3 authors (authors with up to 5 books, both sides holding ids); books in up to 3
/// categories, one category holding 320 books.
pub async fn blog(db: Database) {
    let mut rng = Rng::new(3);
    let users = repo!(db, blog::UserRepo);
    let list: Vec<blog::User> = (0..60)
        .map(|i| blog::User {
            id: ObjectId::new(),
            name: format!("Peter {i}"),
            age: 20 + (i % 50),
            address: (i % 3 != 0).then(|| blog::Address {
                street: format!("{i} some road"),
                city: "Nevermore".into(),
            }),
        })
        .collect();
    users.insert_many(&list).await.unwrap();

    let posts = repo!(db, blog::BlogPostRepo);
    let buckets = repo!(db, blog::BlogPostCommentsBucketRepo);
    let post_list: Vec<blog::BlogPost> = (0..40)
        .map(|i| blog::BlogPost {
            id: ObjectId::new(),
            title: format!("An awesome blog {i}"),
            url: format!("http://awesomeblog.com/{i}"),
            text: "This is an awesome blog we have just started".into(),
        })
        .collect();
    posts.insert_many(&post_list).await.unwrap();
    let mut t = 0;
    for (i, p) in post_list.iter().enumerate() {
        let n = if i == 0 { 120 } else { rng.count(4, 40) };
        for c in 0..n {
            t += 1;
            let comment = blog::Comment {
                name: format!("Peter Critic {c}"),
                created_on: at(t * 1000),
                comment: "Awesome blog post".into(),
            };
            buckets.append_comments(&p.id, &comment).await.unwrap();
        }
    }

    let categories: Vec<blog::Category> = (0..10)
        .map(|i| blog::Category {
            id: ObjectId::new(),
            name: format!("genre {i}"),
        })
        .collect();
    repo!(db, blog::CategoryRepo)
        .insert_many(&categories)
        .await
        .unwrap();
    let mut authors: Vec<(ObjectId, Vec<ObjectId>)> =
        (0..160).map(|_| (ObjectId::new(), Vec::new())).collect();
    let mut books = Vec::new();
    for i in 0..320 {
        let id = ObjectId::new();
        let mut mine = Vec::new();
        for _ in 0..=rng.below(3).min(2) {
            let a = rng.below(authors.len() as u64) as usize;
            if authors[a].1.len() < 5 && !mine.contains(&authors[a].0) {
                authors[a].1.push(id);
                mine.push(authors[a].0);
            }
        }
        // Category 0 holds every book: a broad category with hundreds of books.
        let mut cats = vec![categories[0].id];
        for _ in 0..rng.below(3) {
            let c = categories[1 + rng.below(9) as usize].id;
            if !cats.contains(&c) {
                cats.push(c);
            }
        }
        books.push(blog::Book {
            id,
            title: format!("A tale of two people {i}"),
            authors: bounded(mine),
            categories: bounded(cats),
        });
    }
    repo!(db, blog::BookRepo).insert_many(&books).await.unwrap();
    let author_docs: Vec<blog::Author> = authors
        .into_iter()
        .enumerate()
        .map(|(i, (id, books))| blog::Author {
            id,
            name: format!("Peter Standford {i}"),
            books: bounded(books),
        })
        .collect();
    repo!(db, blog::AuthorRepo)
        .insert_many(&author_docs)
        .await
        .unwrap();
}

/// catalog.sqn: books with up to 150 embedded comments; orders with line items; shapes of three
/// kinds; products in up to 10 categories, one category holding 5,100 products; a tree of nodes;
/// a queue of jobs.
pub async fn catalog(db: Database) {
    let mut rng = Rng::new(5);
    let books: Vec<catalog::Book> = (0..200)
        .map(|i| {
            let n = if i == 0 { 150 } else { rng.count(4, 30) };
            let comments: Vec<catalog::Comment> = (0..n)
                .map(|c| catalog::Comment {
                    author: format!("reader{}", c % 17),
                    date: at(c as i64 * 1000),
                    text: "Great book".into(),
                    votes: (c % 9) as i32,
                })
                .collect();
            catalog::Book {
                id: ObjectId::new(),
                author: format!("writer{}", i % 23),
                date: at(i as i64),
                text: "A book about books".into(),
                tags: bounded(vec!["fiction".into(), format!("tag{}", i % 7)]),
                comments_count: comments.len() as i32,
                comments: bounded(comments),
            }
        })
        .collect();
    repo!(db, catalog::BookRepo)
        .insert_many(&books)
        .await
        .unwrap();
    let orders: Vec<catalog::Order> = (0..100)
        .map(|i| catalog::Order {
            id: ObjectId::new(),
            line_items: bounded(
                (0..1 + rng.below(8))
                    .map(|k| catalog::LineItem {
                        sku: format!("sku{k}"),
                        name: format!("item {k}"),
                    })
                    .collect(),
            ),
            address: catalog::ShippingAddress {
                name: format!("Buyer {i}"),
                street: "1 Main St".into(),
                zip: 10_000 + i,
            },
            payment: catalog::Payment {
                cc: 4_242_424,
                exp: at(86_400_000),
            },
            subtotal: 100 + i,
            status: catalog::OrderStatus::ALL[i as usize % catalog::OrderStatus::ALL.len()],
            channel: (i % 4 != 0)
                .then(|| catalog::OrderChannel::ALL[i as usize % catalog::OrderChannel::ALL.len()]),
        })
        .collect();
    repo!(db, catalog::OrderRepo)
        .insert_many(&orders)
        .await
        .unwrap();
    let shapes: Vec<catalog::Shape> = (0..60)
        .map(|i| catalog::Shape {
            id: ObjectId::new(),
            area: f64::from(i),
            variant: match i % 3 {
                0 => catalog::ShapeVariant::Circle { radius: 2.0 },
                1 => catalog::ShapeVariant::Square { d: 3.0 },
                _ => catalog::ShapeVariant::Rect {
                    length: 1.0,
                    width: 4.0,
                },
            },
        })
        .collect();
    repo!(db, catalog::ShapeRepo)
        .insert_many(&shapes)
        .await
        .unwrap();
    let categories: Vec<catalog::Category> = (0..12)
        .map(|i| catalog::Category {
            id: ObjectId::new(),
            name: format!("department {i}"),
        })
        .collect();
    repo!(db, catalog::CategoryRepo)
        .insert_many(&categories)
        .await
        .unwrap();
    let products: Vec<catalog::Product> = (0..5_100)
        .map(|i| {
            let mut ids = vec![categories[0].id];
            for _ in 0..rng.below(10) {
                let c = categories[1 + rng.below(11) as usize].id;
                if !ids.contains(&c) {
                    ids.push(c);
                }
            }
            catalog::Product {
                id: ObjectId::new(),
                name: format!("product {i}"),
                // From `i`, not the generator: the draws of everything after stay the same.
                stock: i % 501,
                rating: (i % 3 != 0).then(|| 1.0 + (i % 401) as f64 / 100.0),
                category_ids: bounded(ids),
            }
        })
        .collect();
    repo!(db, catalog::ProductRepo)
        .insert_many(&products)
        .await
        .unwrap();
    let nodes = repo!(db, catalog::NodeRepo);
    let mut names: Vec<String> = Vec::new();
    for i in 0..40 {
        let parent = (i > 0).then(|| names[rng.below(names.len() as u64) as usize].clone());
        let node = catalog::Node {
            name: format!("node-{i}"),
            parent: None,
            ancestors: Vec::new(),
        };
        nodes.insert_under(parent.as_ref(), &node).await.unwrap();
        names.push(node.name);
    }
    let jobs = repo!(db, catalog::JobRepo);
    for i in 0..30 {
        let job = catalog::Job {
            id: ObjectId::new(),
            in_progress: false,
            started: None,
            priority: i % 5,
            message: format!("job {i}"),
        };
        jobs.enqueue(&job).await.unwrap();
    }
    for _ in 0..10 {
        jobs.claim_next().await.unwrap();
    }
}

/// inventory.sqn: people with up to 10 addresses and tasks (one person with 260, both sides
/// holding the link); products with parts (one product with 260), copies on both sides; hosts
/// and their log messages (one host with 5,200), the newest kept in the host.
pub async fn inventory(db: Database) {
    let mut rng = Rng::new(7);
    let mut people = Vec::new();
    let mut tasks = Vec::new();
    for i in 0..80 {
        let id = ObjectId::new();
        let n = if i == 0 { 260 } else { rng.count(8, 60) };
        let mine: Vec<ObjectId> = (0..n)
            .map(|k| {
                let t = inventory::Task {
                    id: ObjectId::new(),
                    description: format!("task {k}"),
                    due_date: at(k as i64),
                    owner: id,
                };
                let tid = t.id;
                tasks.push(t);
                tid
            })
            .collect();
        people.push(inventory::Person {
            id,
            name: format!("Kate {i}"),
            ssn: format!("{i:09}"),
            addresses: bounded(
                (0..rng.count(2, 10))
                    .map(|k| inventory::Address {
                        street: format!("{k} Elm St"),
                        city: "Springfield".into(),
                        cc: "US".into(),
                    })
                    .collect(),
            ),
            tasks: bounded(mine),
        });
    }
    repo!(db, inventory::PersonRepo)
        .insert_many(&people)
        .await
        .unwrap();
    repo!(db, inventory::TaskRepo)
        .insert_many(&tasks)
        .await
        .unwrap();

    let mut products = Vec::new();
    let mut parts = Vec::new();
    for i in 0..60 {
        let id = ObjectId::new();
        let (name, catalog_number) = (format!("left-handed smoke shifter {i}"), 1000 + i);
        let n = if i == 0 { 260 } else { rng.count(10, 80) };
        let refs: Vec<inventory::PartRef> = (0..n)
            .map(|k| {
                let part = inventory::Part {
                    id: ObjectId::new(),
                    partno: format!("{i}-{k}"),
                    name: format!("#4 grommet {k}"),
                    qty: 94,
                    cost: "0.94".parse().unwrap(),
                    price: "3.99".parse().unwrap(),
                    product: inventory::ProductRef {
                        id,
                        name: name.clone(),
                        catalog_number,
                    },
                };
                let r = inventory::PartRef {
                    id: part.id,
                    name: part.name.clone(),
                };
                parts.push(part);
                r
            })
            .collect();
        products.push(inventory::Product {
            id,
            name,
            manufacturer: "Acme".into(),
            catalog_number,
            parts: bounded(refs),
        });
    }
    // Each side copies the other (a part the product's name, a product its parts' names), and
    // copies are taken from stored sources: products without their list first, then the parts,
    // then each product's list.
    let product_repo = repo!(db, inventory::ProductRepo);
    let bare: Vec<inventory::Product> = products
        .iter()
        .map(|p| inventory::Product {
            parts: bounded(Vec::new()),
            ..p.clone()
        })
        .collect();
    product_repo.insert_many(&bare).await.unwrap();
    repo!(db, inventory::PartRepo)
        .insert_many(&parts)
        .await
        .unwrap();
    for p in &products {
        product_repo.replace(p).await.unwrap();
    }

    let hosts = repo!(db, inventory::HostRepo);
    let messages = repo!(db, inventory::LogMessageRepo);
    let host_list: Vec<inventory::Host> = (0..12)
        .map(|i| inventory::Host {
            id: ObjectId::new(),
            name: format!("goofy{i}.example.com"),
            ipaddr: format!("127.66.66.{i}"),
            logmsgs: BoundedVec::default(),
        })
        .collect();
    hosts.insert_many(&host_list).await.unwrap();
    let mut t = 0;
    for (i, h) in host_list.iter().enumerate() {
        let message = |t: i64| inventory::LogMessage {
            id: ObjectId::new(),
            time: at(t),
            message: format!("cpu is on fire {t}"),
            host: inventory::HostRef {
                id: h.id,
                ipaddr: h.ipaddr.clone(),
                name: h.name.clone(),
            },
        };
        if i == 0 {
            // The busy host: its old messages in bulk, the newest through the subset.
            let old: Vec<inventory::LogMessage> = (0..5_160)
                .map(|_| {
                    t += 1;
                    message(t)
                })
                .collect();
            messages.insert_many(&old).await.unwrap();
        }
        for _ in 0..rng.count(15, 40) + 1 {
            t += 1;
            hosts.push_logmsgs(&h.id, &message(t)).await.unwrap();
        }
    }
}

/// library.sqn: authors (one with 260 books) and books with the author's name copied; users;
/// notes in buckets of 10 (one user writing 5,100 of them), each with a few comments and their
/// replies (one user writing most comments).
pub async fn library(db: Database) {
    let mut rng = Rng::new(11);
    let authors: Vec<library::Author> = (0..40)
        .map(|i| library::Author {
            id: ObjectId::new(),
            first_name: format!("F. Scott {i}"),
            last_name: format!("Fitzgerald {i}"),
        })
        .collect();
    repo!(db, library::AuthorRepo)
        .insert_many(&authors)
        .await
        .unwrap();
    let books: Vec<library::Book> = (0..700)
        .map(|i| {
            let a = if i < 260 {
                &authors[0]
            } else {
                &authors[1 + rng.below(39) as usize]
            };
            library::Book {
                id: ObjectId::new(),
                title: format!("The Great Gatsby {i}"),
                isbn: format!("978185715{i:04}"),
                slug: format!("978185715{i:04}-the-great-gatsby"),
                publisher: library::Publisher {
                    name: "Everyman's Library".into(),
                    date: at(0),
                    city: "London".into(),
                },
                available: i % 4 != 0,
                pages: 176 + i,
                summary: "Set in the post-Great War...".into(),
                subjects: bounded(vec!["Love stories".into(), "1920s".into()]),
                language: "English".into(),
                author: library::AuthorRef {
                    id: a.id,
                    first_name: a.first_name.clone(),
                    last_name: a.last_name.clone(),
                },
            }
        })
        .collect();
    repo!(db, library::BookRepo)
        .insert_many(&books)
        .await
        .unwrap();
    let users: Vec<library::User> = (0..25)
        .map(|i| library::User {
            username: format!("reader{i}@10gen.com"),
            password: "slsjfk4odk84k209dlkdj90009283d".into(),
        })
        .collect();
    repo!(db, library::UserRepo)
        .insert_many(&users)
        .await
        .unwrap();
    // Most notes and comments by the first user.
    let user = |rng: &mut Rng| {
        if rng.below(10) < 9 {
            users[0].username.clone()
        } else {
            users[1 + rng.below(24) as usize].username.clone()
        }
    };
    let buckets = repo!(db, library::BookNotesBucketRepo);
    let mut t = 0;
    let mut all = Vec::new();
    for (b, book) in books.iter().take(120).enumerate() {
        let n = if b == 0 { 5_000 } else { rng.count(15, 80) };
        let mut notes = Vec::new();
        for _ in 0..n {
            t += 1;
            let comments: Vec<library::Comment> = (0..rng.count(3, 12))
                .map(|_| library::Comment {
                    text: "Agreed".into(),
                    user: user(&mut rng),
                    replies: bounded(
                        (0..rng.count(1, 3))
                            .map(|_| library::Comment {
                                text: "Indeed".into(),
                                user: user(&mut rng),
                                replies: bounded(Vec::new()),
                            })
                            .collect(),
                    ),
                })
                .collect();
            notes.push(library::Note {
                note: "One of the best...".into(),
                date: at(t * 1000),
                user: user(&mut rng),
                comments: bounded(comments),
            });
        }
        // Full buckets of 10, oldest first, as the appends would leave them.
        for chunk in notes.chunks(10) {
            all.push(library::BookNotesBucket {
                id: ObjectId::new(),
                book: book.id,
                count: chunk.len() as i32,
                max: chunk.iter().map(|n| n.date).max().unwrap(),
                notes: bounded(chunk.to_vec()),
            });
        }
    }
    buckets.insert_many(&all).await.unwrap();
    // And a few through the append, as the application writes them.
    for book in books.iter().skip(120).take(20) {
        t += 1;
        let note = library::Note {
            note: "A late note".into(),
            date: at(t * 1000),
            user: user(&mut rng),
            comments: bounded(Vec::new()),
        };
        buckets.append_notes(&book.id, &note).await.unwrap();
    }
}

/// patterns.sqn: sensors and their readings in time buckets; sections with 5,100 efforts for
/// one of them and the best 20 kept; customers with invoices (one with 250); movies with cast
/// members (one with 320, overflowing); versioned documents, histograms, attributes, games,
/// business objects; users following others (5,200 following one) and posting (5,100 posts by
/// one).
pub async fn patterns(db: Database) {
    let mut rng = Rng::new(13);
    let sensors: Vec<patterns::Sensor> = (0..15).map(|i| patterns::Sensor { number: i }).collect();
    repo!(db, patterns::SensorRepo)
        .insert_many(&sensors)
        .await
        .unwrap();
    // Through `append_readings`: buckets of 200, each with its count, time range and summaries
    // kept by the append.
    let readings = repo!(db, patterns::SensorReadingsBucketRepo);
    let mut t = 0;
    for s in &sensors {
        let n = if s.number == 0 {
            450
        } else {
            rng.count(20, 100)
        };
        for _ in 0..n {
            t += 1;
            let reading = patterns::Reading {
                time: at(t * 1000),
                value: (t % 37) as f64 / 2.0,
            };
            readings.append_readings(&s.number, &reading).await.unwrap();
        }
    }

    let sections: Vec<patterns::Section> = (0..8)
        .map(|i| patterns::Section {
            name: format!("Hill climb {i}"),
            top_efforts: BoundedVec::default(),
        })
        .collect();
    let section_repo = repo!(db, patterns::SectionRepo);
    section_repo.insert_many(&sections).await.unwrap();
    let mut efforts = Vec::new();
    for (i, s) in sections.iter().enumerate() {
        let n = if i == 0 { 5_100 } else { rng.count(40, 300) };
        for k in 0..n {
            efforts.push(patterns::Effort {
                id: ObjectId::new(),
                athlete: format!("athlete {}", k % 97),
                time: 600 + rng.below(3_000) as i32,
                section: s.name.clone(),
            });
        }
    }
    repo!(db, patterns::EffortRepo)
        .insert_many(&efforts)
        .await
        .unwrap();
    // The efforts went in in bulk: each section's best 20 are read back from them.
    for s in &sections {
        section_repo.refill_top_efforts(&s.name).await.unwrap();
    }

    let mut customers = Vec::new();
    let mut invoices = Vec::new();
    for i in 0..50 {
        let name = format!("Customer No {i}");
        let n = if i == 0 { 250 } else { rng.count(10, 100) };
        let refs: Vec<patterns::InvoiceRef> = (0..n)
            .map(|k| {
                let inv = patterns::Invoice {
                    id: ObjectId::new(),
                    address: "1 High St".into(),
                    date: at(k as i64 * 86_400),
                    items: bounded(vec![patterns::InvoiceItem {
                        item: "widget".into(),
                        qty: 2,
                        price: 9.5,
                    }]),
                    total: 19.0 + k as f64,
                    status: "paid".into(),
                    customer: name.clone(),
                };
                let r = patterns::InvoiceRef {
                    id: inv.id,
                    date: inv.date,
                    total: inv.total,
                };
                invoices.push(inv);
                r
            })
            .collect();
        customers.push(patterns::Customer {
            name,
            invoices: bounded(refs),
        });
    }
    // Invoices first: a customer's list copies each invoice's date and total from the stored one.
    repo!(db, patterns::InvoiceRepo)
        .insert_many(&invoices)
        .await
        .unwrap();
    repo!(db, patterns::CustomerRepo)
        .insert_many(&customers)
        .await
        .unwrap();

    let movies = repo!(db, patterns::MovieRepo);
    let overflow = repo!(db, patterns::MoviesCastOverflowRepo);
    let member = |k: u64| patterns::CastMember {
        name: format!("actor {k}"),
        role: format!("role {k}"),
    };
    // The big movie is written whole, with its overflow document (`owner`, `items`, `count`: the
    // names `push_cast` writes and the overflow collection's validator requires).
    let big = patterns::Movie {
        id: ObjectId::new(),
        title: "Movie 0".into(),
        cast: (0..200).map(member).collect(),
        cast_overflow: Some(true),
    };
    movies.insert(&big).await.unwrap();
    overflow
        .insert(&patterns::MoviesCastOverflow {
            id: ObjectId::new(),
            owner: big.id,
            items: bounded((200..320).map(member).collect()),
            count: 120,
        })
        .await
        .unwrap();
    for i in 1..25 {
        let m = patterns::Movie {
            id: ObjectId::new(),
            title: format!("Movie {i}"),
            cast: Vec::new(),
            cast_overflow: None,
        };
        movies.insert(&m).await.unwrap();
        for k in 0..10 + rng.count(25, 60) {
            movies.push_cast(&m.id, &member(k)).await.unwrap();
        }
    }

    let versions: Vec<patterns::VersionedDocument> = (0..10)
        .map(|i| patterns::VersionedDocument {
            id: ObjectId::new(),
            document_id: ObjectId::new(),
            version: 1,
            valid_from: at(i),
            valid_to: at(i + 1000),
            payload: patterns::Payload { d: format!("v{i}") },
        })
        .collect();
    repo!(db, patterns::VersionedDocumentRepo)
        .insert_many(&versions)
        .await
        .unwrap();
    let events: Vec<patterns::EventHistogram> = (0..5)
        .map(|i| patterns::EventHistogram {
            name: format!("event-{i}"),
            minutes: bounded((0..24).map(|_| bounded(vec![0i64; 60])).collect()),
        })
        .collect();
    repo!(db, patterns::EventHistogramRepo)
        .insert_many(&events)
        .await
        .unwrap();
    let products: Vec<patterns::Product> = (0..20)
        .map(|i| patterns::Product {
            id: ObjectId::new(),
            sku: format!("sku-{i}"),
            attrs: vec![patterns::AttrsAttribute {
                k: "colour".into(),
                v: "black".into(),
            }],
        })
        .collect();
    repo!(db, patterns::ProductRepo)
        .insert_many(&products)
        .await
        .unwrap();
    let games: Vec<patterns::Game> = (0..10)
        .map(|i| patterns::Game {
            id: ObjectId::new(),
            results: [("john".to_owned(), patterns::Score { score: i })].into(),
        })
        .collect();
    repo!(db, patterns::GameRepo)
        .insert_many(&games)
        .await
        .unwrap();
    let objects: Vec<patterns::BusinessObject> = (0..10)
        .map(|i| patterns::BusinessObject {
            id: ObjectId::new(),
            object_id: format!("obj-{i}"),
            create_date: at(i),
            xml: bson::Binary {
                subtype: bson::spec::BinarySubtype::Generic,
                bytes: vec![1, 2, 3],
            },
        })
        .collect();
    repo!(db, patterns::BusinessObjectRepo)
        .insert_many(&objects)
        .await
        .unwrap();

    let ids: Vec<String> = (0..5_300).map(|i| format!("user-{i}")).collect();
    let users: Vec<patterns::User> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let follows: Vec<String> = match i {
                0 => Vec::new(),
                1 => ids[2..302].to_vec(),
                _ => {
                    let mut f = vec![ids[0].clone()];
                    for _ in 0..rng.below(4) {
                        let other = ids[rng.below(ids.len() as u64) as usize].clone();
                        if !f.contains(&other) && other != *id {
                            f.push(other);
                        }
                    }
                    f
                }
            };
            patterns::User {
                userid: id.clone(),
                schema_version: 1,
                date_created: at(i as i64),
                follows: bounded(follows),
            }
        })
        .collect();
    repo!(db, patterns::UserRepo)
        .insert_many(&users)
        .await
        .unwrap();
    let posts: Vec<patterns::Post> = (0..5_400)
        .map(|i| patterns::Post {
            id: ObjectId::new(),
            schema_version: 1,
            date: at(i as i64),
            text: format!("post {i}"),
            posted_by: if i < 5_100 {
                ids[0].clone()
            } else {
                ids[1 + rng.below(200) as usize].clone()
            },
        })
        .collect();
    repo!(db, patterns::PostRepo)
        .insert_many(&posts)
        .await
        .unwrap();
}
