//! Defect 7 against the server: schemas whose relations would embed entities inside each other
//! get a collection for the cycle's root, and every entity's documents can be written and read
//! back through the generated repositories.

use squillion::__private::bson::oid::ObjectId;
use squillion::BoundedVec;
use squillion_correctness::{cycle_pair, cycle_self_one, cycle_three, cycle_tree};
use squillion_testkit::TestDb;

#[tokio::test]
async fn every_entity_of_a_broken_cycle_is_stored_and_read_back() {
    let t = TestDb::new("cycles").await;
    let db = &t.db;

    // Parts keep a collection; each holds its assembly, which lists its parts by id.
    cycle_pair::ensure_indexes(db).await.unwrap();
    let parts = cycle_pair::PartRepo::new(db);
    let (a, b) = (ObjectId::new(), ObjectId::new());
    let whole = cycle_pair::Part {
        id: a,
        name: "engine".into(),
        assembly: Some(cycle_pair::Assembly {
            name: "car".into(),
            parts: BoundedVec::try_from(vec![b]).unwrap(),
        }),
    };
    let piece = cycle_pair::Part {
        id: b,
        name: "piston".into(),
        assembly: None,
    };
    parts.insert(&whole).await.unwrap();
    parts.insert(&piece).await.unwrap();
    assert_eq!(parts.get(&a).await.unwrap(), Some(whole.clone()));
    let assembly = whole.assembly.as_ref().unwrap();
    let listed: Vec<ObjectId> = assembly.parts.iter().copied().collect();
    assert_eq!(listed, vec![b]);
    assert_eq!(parts.get(&b).await.unwrap(), Some(piece));

    // A person references the spouse; both are documents of `people`.
    cycle_self_one::ensure_indexes(db).await.unwrap();
    let people = cycle_self_one::PersonRepo::new(db);
    let (p, q) = (ObjectId::new(), ObjectId::new());
    for (id, other, name) in [(p, q, "Ann"), (q, p, "Bob")] {
        people
            .insert(&cycle_self_one::Person {
                id,
                name: name.into(),
                spouse_of: other,
            })
            .await
            .unwrap();
    }
    let page = people.find_by_spouse_of(&p, None, 10).await.unwrap();
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.items[0].name, "Bob");

    // Stores are the ring's root: shelves inside stores, regions inside shelves, stores by id.
    cycle_three::ensure_indexes(db).await.unwrap();
    let stores = cycle_three::StoreRepo::new(db);
    let (s1, s2) = (ObjectId::new(), ObjectId::new());
    let store = cycle_three::Store {
        id: s1,
        name: "north".into(),
        shelves: BoundedVec::try_from(vec![cycle_three::Shelf {
            name: "top".into(),
            regions: BoundedVec::try_from(vec![cycle_three::Region {
                name: "west".into(),
                stores: BoundedVec::try_from(vec![s2]).unwrap(),
            }])
            .unwrap(),
        }])
        .unwrap(),
    };
    stores.insert(&store).await.unwrap();
    assert_eq!(stores.get(&s1).await.unwrap(), Some(store));

    // Root comments are documents; replies nest inside them.
    cycle_tree::ensure_indexes(db).await.unwrap();
    let comments = cycle_tree::CommentRepo::new(db);
    let leaf = |text: &str| cycle_tree::Comment {
        id: ObjectId::new(),
        text: text.into(),
        replies: BoundedVec::new(),
    };
    let root = cycle_tree::Comment {
        id: ObjectId::new(),
        text: "first".into(),
        replies: BoundedVec::try_from(vec![leaf("re"), leaf("re re")]).unwrap(),
    };
    comments.insert(&root).await.unwrap();
    comments
        .push_replies(&root.id, &leaf("late"))
        .await
        .unwrap();
    let back = comments.get(&root.id).await.unwrap().unwrap();
    assert_eq!(back.replies.len(), 3);
    assert_eq!(back.replies[2].text, "late");
    t.cleanup().await;
}
