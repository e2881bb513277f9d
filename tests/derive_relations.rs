//! Relationships that write more than one document against the real server: two-way references
//! (in a transaction), link collections, and the fan-out of denormalized copies.

mod derive_support;

use derive_support::database;
use serde::{Deserialize, Serialize};
use squillion::__private::bson::{self, doc, oid::ObjectId};
use squillion::{Error, PageRequest};

// ---- two_way, one-to-many (seed 004: a person's tasks, each task's owner) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "people")]
pub struct Person {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
    #[squillion(two_way(to = Task, max = 10, inverse = owner))]
    pub tasks: Vec<ObjectId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "tasks")]
pub struct Task {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub description: String,
    pub owner: Option<ObjectId>,
}

// ---- two_way, many-to-many with bounds on both sides (seed 003: books and authors) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "authors")]
pub struct Writer {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
    #[squillion(two_way(to = Title, max = 5, inverse = authors, inverse_max = 2))]
    pub books: Vec<ObjectId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "titles")]
pub struct Title {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub title: String,
    pub authors: Vec<ObjectId>,
}

async fn raw_doc(
    db: &squillion::__private::mongodb::Database,
    coll: &str,
    id: ObjectId,
) -> bson::Document {
    db.collection::<bson::Document>(coll)
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap()
}

fn ids(d: &bson::Document, field: &str) -> Vec<ObjectId> {
    d.get_array(field)
        .unwrap()
        .iter()
        .map(|b| b.as_object_id().unwrap())
        .collect()
}

#[tokio::test]
async fn two_way_link_updates_both_sides_and_moves_a_task_between_owners() {
    let db = database("two_way").await;
    let people = PersonRepo::new(&db);
    let tasks = TaskRepo::new(&db);
    let kate = Person {
        id: ObjectId::new(),
        name: "Kate Monster".into(),
        tasks: vec![],
    };
    let jim = Person {
        id: ObjectId::new(),
        name: "Jim".into(),
        tasks: vec![],
    };
    people.insert(&kate).await.unwrap();
    people.insert(&jim).await.unwrap();
    let t = Task {
        id: ObjectId::new(),
        description: "Write lesson plan".into(),
        owner: None,
    };
    tasks.insert(&t).await.unwrap();

    people.link_tasks(&kate.id, &t.id).await.unwrap();
    assert_eq!(
        ids(&raw_doc(&db, "people", kate.id).await, "tasks"),
        vec![t.id]
    );
    assert_eq!(
        raw_doc(&db, "tasks", t.id)
            .await
            .get_object_id("owner")
            .unwrap(),
        kate.id
    );

    // Reassigning: the new owner lists it, the old one no longer does, the task names the new one.
    people.link_tasks(&jim.id, &t.id).await.unwrap();
    assert!(ids(&raw_doc(&db, "people", kate.id).await, "tasks").is_empty());
    assert_eq!(
        ids(&raw_doc(&db, "people", jim.id).await, "tasks"),
        vec![t.id]
    );
    assert_eq!(
        raw_doc(&db, "tasks", t.id)
            .await
            .get_object_id("owner")
            .unwrap(),
        jim.id
    );

    people.unlink_tasks(&jim.id, &t.id).await.unwrap();
    assert!(ids(&raw_doc(&db, "people", jim.id).await, "tasks").is_empty());
    assert!(!raw_doc(&db, "tasks", t.id).await.contains_key("owner"));

    // A missing task: nothing is written on either side.
    let missing = ObjectId::new();
    assert!(matches!(
        people.link_tasks(&kate.id, &missing).await,
        Err(Error::NotFound { .. })
    ));
    assert!(
        ids(&raw_doc(&db, "people", kate.id).await, "tasks").is_empty(),
        "the transaction was not rolled back"
    );
}

#[tokio::test]
async fn two_way_bound_on_the_other_side_rolls_back_both() {
    let db = database("two_way_bound").await;
    let writers = WriterRepo::new(&db);
    let titles = TitleRepo::new(&db);
    let w: Vec<Writer> = (0..3)
        .map(|i| Writer {
            id: ObjectId::new(),
            name: format!("writer {i}"),
            books: vec![],
        })
        .collect();
    for x in &w {
        writers.insert(x).await.unwrap();
    }
    let book = Title {
        id: ObjectId::new(),
        title: "A tale of two people".into(),
        authors: vec![],
    };
    titles.insert(&book).await.unwrap();
    writers.link_books(&w[0].id, &book.id).await.unwrap();
    writers.link_books(&w[1].id, &book.id).await.unwrap();
    assert_eq!(
        ids(&raw_doc(&db, "titles", book.id).await, "authors"),
        vec![w[0].id, w[1].id]
    );
    match writers.link_books(&w[2].id, &book.id).await {
        Err(Error::BoundExceeded { field, max: 2 }) => assert_eq!(field, "titles.authors"),
        other => panic!("expected the book's author bound, got {other:?}"),
    }
    assert!(
        ids(&raw_doc(&db, "authors", w[2].id).await, "books").is_empty(),
        "the writer's side was written although the book's side refused"
    );
}

#[tokio::test]
async fn two_way_refuses_to_run_without_transactions() {
    // A standalone server (no replica-set advertisement) cannot run transactions.
    let standalone = derive_support::StandaloneServer::start();
    let client = squillion::__private::mongodb::Client::with_uri_str(&standalone.uri)
        .await
        .unwrap();
    let db = client.database("sq_derive_standalone");
    let people = PersonRepo::new(&db);
    let tasks = TaskRepo::new(&db);
    let kate = Person {
        id: ObjectId::new(),
        name: "Kate".into(),
        tasks: vec![],
    };
    people.insert(&kate).await.unwrap();
    let t = Task {
        id: ObjectId::new(),
        description: "x".into(),
        owner: None,
    };
    tasks.insert(&t).await.unwrap();
    match people.link_tasks(&kate.id, &t.id).await {
        Err(Error::TransactionsUnsupported) => {}
        other => panic!("expected TransactionsUnsupported, got {other:?}"),
    }
    let stored = db
        .collection::<bson::Document>("people")
        .find_one(doc! { "_id": kate.id })
        .await
        .unwrap()
        .unwrap();
    assert!(
        stored.get_array("tasks").unwrap().is_empty(),
        "half of the link was written"
    );

    // Fan-out still runs without transactions, one write after the other, and says so.
    let suppliers = SupplierRepo::new(&db);
    let s = Supplier {
        id: ObjectId::new(),
        name: "Acme".into(),
    };
    suppliers.insert(&s).await.unwrap();
    let report = suppliers.set_name(&s.id, "Acme Corp").await.unwrap();
    assert!(!report.atomic);
}

// ---- link collection (a membership with a role) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "users")]
pub struct User {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "groups")]
pub struct Group {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "memberships", link(user = User, group = Group))]
pub struct Membership {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub user: ObjectId,
    pub group: ObjectId,
    pub role: String,
}

#[tokio::test]
async fn link_collection_is_idempotent_and_lists_partners_with_link_fields() {
    let db = database("link").await;
    let users = UserRepo::new(&db);
    let groups = GroupRepo::new(&db);
    let links = MembershipRepo::new(&db);
    links.ensure_indexes().await.unwrap();
    let u = User {
        id: ObjectId::new(),
        name: "ann".into(),
    };
    users.insert(&u).await.unwrap();
    let gs: Vec<Group> = (0..5)
        .map(|i| Group {
            id: ObjectId::new(),
            name: format!("g{i}"),
        })
        .collect();
    for g in &gs {
        groups.insert(g).await.unwrap();
    }
    let m = |g: &Group, role: &str| Membership {
        id: ObjectId::new(),
        user: u.id,
        group: g.id,
        role: role.into(),
    };

    // Eight racing links of one pair: one document.
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let links = links.clone();
        let link = m(&gs[0], "member");
        tasks.push(tokio::spawn(
            async move { links.link(&link).await.unwrap() },
        ));
    }
    let mut created = 0;
    for t in tasks {
        if t.await.unwrap() {
            created += 1;
        }
    }
    assert_eq!(created, 1);
    assert_eq!(links.count(doc! {}).await.unwrap(), 1);
    // Linking again updates the link's own fields.
    assert!(!links.link(&m(&gs[0], "admin")).await.unwrap());
    assert_eq!(
        links
            .get_link(&u.id, &gs[0].id)
            .await
            .unwrap()
            .unwrap()
            .role,
        "admin"
    );
    for g in &gs[1..] {
        links.link(&m(g, "member")).await.unwrap();
    }

    let page = links
        .groups_of_user(&u.id, PageRequest::first(3))
        .await
        .unwrap();
    assert_eq!(page.items.len(), 3);
    assert!(page.has_more);
    let (link, group) = &page.items[0];
    assert_eq!(link.group, group.id);
    let rest = links
        .groups_of_user(&u.id, page.next().unwrap())
        .await
        .unwrap();
    assert_eq!(rest.items.len(), 2);
    assert!(!rest.has_more);
    let members = links
        .users_of_group(&gs[0].id, PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(members.items.len(), 1);
    assert_eq!(members.items[0].0.role, "admin");
    assert_eq!(members.items[0].1.name, "ann");

    assert!(links.unlink(&u.id, &gs[0].id).await.unwrap());
    assert!(!links.unlink(&u.id, &gs[0].id).await.unwrap());
    assert_eq!(
        links
            .by_user(&u.id, PageRequest::first(10))
            .await
            .unwrap()
            .items
            .len(),
        4
    );
}

// ---- denormalized copies and their fan-out (seeds 000 and 004) ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "suppliers")]
pub struct Supplier {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(
        fan_out(to = Order, by = "supplier.id", copy = "supplier.name"),
        fan_out(to = Catalog, array = "items", by = "supplier", copy = "supplier_name")
    )]
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SupplierRef {
    pub id: ObjectId,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "orders")]
pub struct Order {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(denormalized(from = "Supplier.name"))]
    pub supplier: SupplierRef,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogItem {
    pub sku: String,
    pub supplier: ObjectId,
    pub supplier_name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "catalogs")]
pub struct Catalog {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(embed(max = 50))]
    pub items: Vec<CatalogItem>,
}

#[tokio::test]
async fn fan_out_reaches_every_copy_in_one_transaction() {
    let db = database("fan_out").await;
    let suppliers = SupplierRepo::new(&db);
    let orders = OrderRepo::new(&db);
    let catalogs = CatalogRepo::new(&db);
    let acme = Supplier {
        id: ObjectId::new(),
        name: "Acme".into(),
    };
    let other = Supplier {
        id: ObjectId::new(),
        name: "Other".into(),
    };
    suppliers.insert(&acme).await.unwrap();
    suppliers.insert(&other).await.unwrap();
    let r = |s: &Supplier| SupplierRef {
        id: s.id,
        name: s.name.clone(),
    };
    for s in [&acme, &acme, &acme, &other] {
        orders
            .insert(&Order {
                id: ObjectId::new(),
                supplier: r(s),
            })
            .await
            .unwrap();
    }
    let item = |sku: &str, s: &Supplier| CatalogItem {
        sku: sku.into(),
        supplier: s.id,
        supplier_name: s.name.clone(),
    };
    let c1 = Catalog {
        id: ObjectId::new(),
        items: vec![item("a", &acme), item("b", &other), item("c", &acme)],
    };
    let c2 = Catalog {
        id: ObjectId::new(),
        items: vec![item("d", &other)],
    };
    catalogs.insert(&c1).await.unwrap();
    catalogs.insert(&c2).await.unwrap();

    let report = suppliers.set_name(&acme.id, "Acme Corp").await.unwrap();
    assert!(report.atomic);
    assert_eq!(report.copies_matched, 4, "three orders and one catalog");

    use squillion::__private::futures::TryStreamExt;
    let all_orders: Vec<bson::Document> = db
        .collection::<bson::Document>("orders")
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    for o in &all_orders {
        let s = o.get_document("supplier").unwrap();
        let expected = if s.get_object_id("id").unwrap() == acme.id {
            "Acme Corp"
        } else {
            "Other"
        };
        assert_eq!(s.get_str("name").unwrap(), expected);
    }
    let c1_items = catalogs.get(&c1.id).await.unwrap().unwrap().items;
    let names: Vec<&str> = c1_items.iter().map(|i| i.supplier_name.as_str()).collect();
    assert_eq!(
        names,
        vec!["Acme Corp", "Other", "Acme Corp"],
        "every array element, and only the supplier's"
    );
    assert_eq!(
        catalogs.get(&c2.id).await.unwrap().unwrap().items[0].supplier_name,
        "Other"
    );
    assert_eq!(
        suppliers.get(&acme.id).await.unwrap().unwrap().name,
        "Acme Corp"
    );
    assert!(matches!(
        suppliers.set_name(&ObjectId::new(), "x").await,
        Err(Error::NotFound { .. })
    ));
}
