//! Issue 12 against the server: loads through arrays of ids (`families::loads`). For random
//! shops, items and tags, linked at random (`add_items`, `link_tags` from either side), every
//! `load_<f>` returns the referenced documents in the array's order (ids that find nothing
//! skipped), and every `load_<f>_projected::<P>` returns the same documents read as `P` while the
//! server sends only `_id` and the fields `P` names (its `rename`s applied): the client records
//! the documents the server sent, so the test sees the projection went over the wire.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use squillion::bson::oid::ObjectId;
use squillion::BoundedVec;
use squillion_correctness::loads::{ensure_indexes, Item, ItemRepo, Shop, ShopRepo, Tag, TagRepo};
use squillion_testkit::{Lcg, SentDocuments, TestDb};

/// What a listing of items reads: a renamed field among them.
#[derive(Debug, Deserialize, PartialEq)]
struct ItemLine {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[serde(rename = "title")]
    name: String,
    price: i32,
}

/// What a listing of tags reads.
#[derive(Debug, Deserialize, PartialEq)]
struct TagLine {
    #[serde(rename = "_id")]
    id: ObjectId,
    label: String,
}

/// The ids of `items`, in order (what a failure prints: the items carry 20 KB each).
fn ids(items: &[Item]) -> Vec<ObjectId> {
    items.iter().map(|i| i.id).collect()
}

fn ids_of(items: &[&Item]) -> Vec<ObjectId> {
    items.iter().map(|i| i.id).collect()
}

/// Each document the server sent holds exactly `keys`, and there are `count` of them.
fn assert_sent(what: &str, sent: &SentDocuments, count: usize, keys: &[&str]) {
    let docs = sent.take();
    assert_eq!(docs.len(), count, "{what}: the server sent {docs:?}");
    let expected: BTreeSet<&str> = keys.iter().copied().collect();
    for d in &docs {
        let got: BTreeSet<&str> = d.keys().map(String::as_str).collect();
        assert_eq!(got, expected, "{what}: the server sent {d:?}");
    }
}

#[tokio::test]
async fn loads_through_id_arrays_return_the_array_order_and_projected_loads_send_only_their_fields()
{
    let (t, sent) = TestDb::watching_reads("loads").await;
    ensure_indexes(&t.db).await.expect("indexes");
    let (shops, items, tags) = (
        ShopRepo::new(&t.db),
        ItemRepo::new(&t.db),
        TagRepo::new(&t.db),
    );
    let mut rng = Lcg(53);
    for round in 0..3 {
        for c in ["shops", "items", "tags"] {
            t.db.collection::<squillion::bson::Document>(c)
                .delete_many(squillion::bson::doc! {})
                .await
                .expect("clear");
        }
        let mut stored_items: BTreeMap<ObjectId, Item> = BTreeMap::new();
        for k in 0..(5 + rng.below(20)) {
            let item = Item {
                id: ObjectId::new(),
                title: format!("item {k}"),
                price: rng.below(100) as i32,
                summary: "x".repeat(rng.below(20_000) as usize),
                tags: BoundedVec::default(),
            };
            items.insert(&item).await.expect("insert item");
            stored_items.insert(item.id, item);
        }
        let mut stored_tags: Vec<ObjectId> = Vec::new();
        for k in 0..(3 + rng.below(6)) {
            let tag = Tag {
                id: ObjectId::new(),
                label: format!("tag {k}"),
                note: "y".repeat(rng.below(20_000) as usize),
                items: BoundedVec::default(),
            };
            tags.insert(&tag).await.expect("insert tag");
            stored_tags.push(tag.id);
        }
        let item_ids: Vec<ObjectId> = stored_items.keys().copied().collect();
        // Shops list random items in a random order, some of them deleted afterwards.
        let mut shop_ids = Vec::new();
        for k in 0..3 {
            let shop = Shop {
                id: ObjectId::new(),
                name: format!("shop {k}"),
                items: BoundedVec::default(),
            };
            shops.insert(&shop).await.expect("insert shop");
            for _ in 0..rng.below(12) {
                let id = item_ids[rng.below(item_ids.len() as u64) as usize];
                shops.add_items(&shop.id, &id).await.expect("add_items");
            }
            shop_ids.push(shop.id);
        }
        // Items and tags linked from either side.
        for _ in 0..(item_ids.len() * 2) {
            let item = item_ids[rng.below(item_ids.len() as u64) as usize];
            let tag = stored_tags[rng.below(stored_tags.len() as u64) as usize];
            let linked = if rng.below(2) == 0 {
                items.link_tags(&item, &tag).await
            } else {
                tags.link_items(&tag, &item).await
            };
            match linked {
                Ok(()) | Err(squillion::Error::BoundExceeded { .. }) => {}
                Err(e) => panic!("link: {e}"),
            }
        }
        let gone = item_ids[rng.below(item_ids.len() as u64) as usize];
        assert!(items.delete(&gone).await.expect("delete"));
        // The reference: every item as now stored (the links wrote their `tags`).
        stored_items.clear();
        for id in &item_ids {
            if let Some(item) = items.get(id).await.expect("get") {
                stored_items.insert(item.id, item);
            }
        }
        assert_eq!(stored_items.len(), item_ids.len() - 1);
        sent.take();

        for id in &shop_ids {
            let shop = shops.get(id).await.expect("get").expect("a shop");
            sent.take();
            let want: Vec<&Item> = shop
                .items
                .iter()
                .filter_map(|i| stored_items.get(i))
                .collect();
            let whole = shops.load_items(&shop).await.expect("load_items");
            assert_eq!(ids(&whole), ids_of(&want), "round {round}: load_items");
            assert!(
                whole.iter().zip(&want).all(|(a, b)| a == *b),
                "round {round}: load_items"
            );
            sent.take();
            let lines: Vec<ItemLine> = shops
                .load_items_projected(&shop)
                .await
                .expect("load_items_projected");
            let want_lines: Vec<ItemLine> = want
                .iter()
                .map(|i| ItemLine {
                    id: i.id,
                    name: i.title.clone(),
                    price: i.price,
                })
                .collect();
            assert_eq!(lines, want_lines, "round {round}: load_items_projected");
            assert_sent(
                "load_items_projected",
                &sent,
                want.len(),
                &["_id", "title", "price"],
            );
        }
        for id in &item_ids {
            let Some(item) = items.get(id).await.expect("get") else {
                continue;
            };
            sent.take();
            let labels: Vec<TagLine> = items.load_tags_projected(&item).await.expect("load_tags");
            assert_eq!(
                labels.iter().map(|l| l.id).collect::<Vec<_>>(),
                item.tags.iter().copied().collect::<Vec<_>>(),
                "round {round}: load_tags_projected follows the array"
            );
            assert!(labels.iter().all(|l| l.label.starts_with("tag ")));
            assert_sent(
                "load_tags_projected",
                &sent,
                labels.len(),
                &["_id", "label"],
            );
        }
        for id in &stored_tags {
            let tag = tags.get(id).await.expect("get").expect("a tag");
            sent.take();
            let listed: Vec<&Item> = tag
                .items
                .iter()
                .filter_map(|i| stored_items.get(i))
                .collect();
            let loaded = tags.load_items(&tag).await.expect("load_items");
            assert_eq!(ids(&loaded), ids_of(&listed), "round {round}: tag's items");
            assert!(
                loaded.iter().zip(&listed).all(|(a, b)| a == *b),
                "round {round}: tag's items"
            );
            // Every item listed by the tag lists the tag back.
            assert!(
                loaded.iter().all(|i| i.tags.contains(id)),
                "round {round}: two-way"
            );
            sent.take();
            let lines: Vec<ItemLine> = tags.load_items_projected(&tag).await.expect("projected");
            assert_eq!(lines.len(), listed.len());
            assert_sent(
                "tag's load_items_projected",
                &sent,
                listed.len(),
                &["_id", "title", "price"],
            );
        }
    }
    t.cleanup().await;
}
