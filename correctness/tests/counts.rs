//! Issue 12 against the server: `count_<query>` of every condition shape a query can state
//! (`families::counts`: equality, `!=`, ranges, `between`, `in`, `starts_with` with and without
//! `ignore_case`, on strings, numbers, dates, an enumeration, optional fields, an array, the
//! reference to a parent, and one parent's children). For generated items over a few shops (few
//! distinct values, so conditions match some items and miss others), every count method, given
//! random arguments, returns what a reference model of the condition counts over the inserted
//! items: all the matching items, a query's `limit` left out. Where the query has no `limit`, the
//! query's own method returns as many documents as its count.

use squillion::bson::oid::ObjectId;
use squillion::bson::DateTime;
use squillion::BoundedVec;
use squillion_correctness::count_items::{
    ensure_indexes, ensure_validators, Item, ItemKind, ItemRepo, Shop, ShopRepo,
};
use squillion_testkit::{Lcg, TestDb};

const NAMES: [&str; 7] = ["ab", "Ab", "abc", "b", "Ba", "bA", "c"];
const PREFIXES: [&str; 7] = ["a", "A", "b", "B", "ab", "Ab", "x"];
const NOTES: [&str; 3] = ["n0", "n1", "n2"];
const TAGS: [&str; 4] = ["t0", "t1", "t2", "t3"];
const KINDS: [ItemKind; 3] = [ItemKind::A, ItemKind::B, ItemKind::C];

fn item(r: &mut Lcg, shops: &[ObjectId]) -> Item {
    let tags: Vec<String> = (0..r.below(4))
        .map(|_| TAGS[r.below(4) as usize].to_owned())
        .collect();
    Item {
        id: ObjectId::new(),
        name: NAMES[r.below(NAMES.len() as u64) as usize].to_owned(),
        price: r.below(8) as i32,
        weight: r.below(6) as f64 * 0.5,
        note: (r.below(3) > 0).then(|| NOTES[r.below(3) as usize].to_owned()),
        stock: (r.below(2) > 0).then(|| r.below(5) as i64 - 1),
        kind: KINDS[r.below(3) as usize],
        tags: BoundedVec::try_from(tags).expect("at most 3 tags"),
        placed: DateTime::from_millis(r.below(10) as i64 * 60_000),
        shop: shops[r.below(shops.len() as u64) as usize],
    }
}

/// How many of `items` pass `keep`.
fn count(items: &[Item], keep: impl Fn(&Item) -> bool) -> u64 {
    items.iter().filter(|i| keep(i)).count() as u64
}

/// Case-insensitive prefix (the names and prefixes are ASCII).
fn starts_with_ignore_case(name: &str, prefix: &str) -> bool {
    name.to_lowercase().starts_with(&prefix.to_lowercase())
}

#[tokio::test]
async fn every_count_is_the_number_of_items_the_reference_condition_selects() {
    let t = TestDb::new("count_items").await;
    ensure_validators(&t.db).await.expect("validators");
    ensure_indexes(&t.db).await.expect("indexes");
    let (shops_repo, repo) = (ShopRepo::new(&t.db), ItemRepo::new(&t.db));
    let mut r = Lcg(12);
    let mut shops = Vec::new();
    for k in 0..3 {
        let shop = Shop {
            id: ObjectId::new(),
            name: format!("shop {k}"),
        };
        shops_repo.insert(&shop).await.expect("insert shop");
        shops.push(shop.id);
    }
    // A shop without items counts none.
    let empty = ObjectId::new();
    let items: Vec<Item> = (0..90).map(|_| item(&mut r, &shops)).collect();
    repo.insert_many(&items).await.expect("insert items");

    let mut nonzero = 0;
    let mut checked = 0;
    let mut check = |what: String, got: u64, expected: u64| {
        assert_eq!(got, expected, "{what}");
        checked += 1;
        if expected > 0 && expected < items.len() as u64 {
            nonzero += 1;
        }
    };
    for round in 0..12 {
        let name = NAMES[r.below(NAMES.len() as u64) as usize];
        let prefix = PREFIXES[r.below(PREFIXES.len() as u64) as usize];
        let price = r.below(9) as i32;
        let weight = r.below(7) as f64 * 0.5 - 0.25 * (r.below(2) as f64);
        let note = NOTES[r.below(3) as usize];
        let stock = r.below(5) as i64 - 1;
        let tag = TAGS[r.below(4) as usize];
        let kind = KINDS[r.below(3) as usize];
        let kinds: Vec<ItemKind> = KINDS.iter().copied().filter(|_| r.below(2) > 0).collect();
        let prices: Vec<i32> = (0..r.below(4)).map(|_| r.below(8) as i32).collect();
        let (a, b) = (r.below(11) as i64, r.below(11) as i64);
        let (from, to) = (
            DateTime::from_millis(a.min(b) * 60_000),
            DateTime::from_millis(a.max(b) * 60_000),
        );
        let shop = if round % 4 == 3 {
            empty
        } else {
            shops[r.below(3) as usize]
        };
        let some_shops: Vec<ObjectId> = shops.iter().copied().filter(|_| r.below(2) > 0).collect();
        let i = &items;

        let got = repo.count_named(name).await.expect("count_named");
        check(format!("named {name}"), got, count(i, |x| x.name == name));
        assert_eq!(got, repo.named(name).await.expect("named").len() as u64);
        check(
            format!("not_named {name}"),
            repo.count_not_named(name).await.expect("count"),
            count(i, |x| x.name != name),
        );
        let got = repo.count_cheaper(&price).await.expect("count");
        check(
            format!("cheaper {price}"),
            got,
            count(i, |x| x.price < price),
        );
        assert_eq!(
            got,
            repo.cheaper(&price).await.expect("cheaper").len() as u64
        );
        check(
            format!("at_most {price}"),
            repo.count_at_most(&price).await.expect("count"),
            count(i, |x| x.price <= price),
        );
        check(
            format!("heavier {weight}"),
            repo.count_heavier(&weight).await.expect("count"),
            count(i, |x| x.weight > weight),
        );
        // `limit 5` and `limit 1` are not part of the count.
        let got = repo.count_dearest(&price).await.expect("count");
        check(
            format!("dearest {price}"),
            got,
            count(i, |x| x.price >= price),
        );
        let listed = repo.dearest(&price).await.expect("dearest").len() as u64;
        assert_eq!(listed, got.min(5), "dearest lists at most 5 of the {got}");
        check(
            format!("first_cheap {price}"),
            repo.count_first_cheap(&price).await.expect("count"),
            count(i, |x| x.price >= price),
        );
        check(
            format!("placed_in {from} {to}"),
            repo.count_placed_in(&from, &to).await.expect("count"),
            count(i, |x| x.placed >= from && x.placed <= to),
        );
        check(
            format!("of_kinds {kinds:?}"),
            repo.count_of_kinds(&kinds).await.expect("count"),
            count(i, |x| kinds.contains(&x.kind)),
        );
        check(
            format!("not_kind {kind:?}"),
            repo.count_not_kind(&kind).await.expect("count"),
            count(i, |x| x.kind != kind),
        );
        check(
            format!("prices_in {prices:?} weight <= {weight}"),
            repo.count_prices_in(&prices, &weight).await.expect("count"),
            count(i, |x| prices.contains(&x.price) && x.weight <= weight),
        );
        check(
            format!("name_prefix {prefix}"),
            repo.count_name_prefix(prefix).await.expect("count"),
            count(i, |x| x.name.starts_with(prefix)),
        );
        let got = repo.count_name_prefix_ci(prefix).await.expect("count");
        check(
            format!("name_prefix_ci {prefix}"),
            got,
            count(i, |x| starts_with_ignore_case(&x.name, prefix)),
        );
        assert_eq!(
            got,
            repo.name_prefix_ci(prefix).await.expect("list").len() as u64
        );
        // Optional fields: `==` and ranges never match an absent value, `!=` always does.
        check(
            format!("noted {note}"),
            repo.count_noted(note).await.expect("count"),
            count(i, |x| x.note.as_deref() == Some(note)),
        );
        check(
            format!("not_noted {note}"),
            repo.count_not_noted(note).await.expect("count"),
            count(i, |x| x.note.as_deref() != Some(note)),
        );
        check(
            format!("stocked {stock}"),
            repo.count_stocked(&stock).await.expect("count"),
            count(i, |x| x.stock.is_some_and(|s| s >= stock)),
        );
        // An array: `==` is any element, `!=` no element.
        check(
            format!("tagged {tag}"),
            repo.count_tagged(tag).await.expect("count"),
            count(i, |x| x.tags.iter().any(|t| t == tag)),
        );
        check(
            format!("untagged {tag}"),
            repo.count_untagged(tag).await.expect("count"),
            count(i, |x| x.tags.iter().all(|t| t != tag)),
        );
        // The reference to the parent, and one parent's children.
        check(
            format!("of_shop {shop} {price}"),
            repo.count_of_shop(&shop, &price).await.expect("count"),
            count(i, |x| x.shop == shop && x.price >= price),
        );
        check(
            format!("shops_kind {some_shops:?} {kind:?}"),
            repo.count_shops_kind(&some_shops, &kind)
                .await
                .expect("count"),
            count(i, |x| some_shops.contains(&x.shop) && x.kind == kind),
        );
        let got = repo.count_shop_items(&shop, &price).await.expect("count");
        check(
            format!("shop_items {shop} {price}"),
            got,
            count(i, |x| x.shop == shop && x.price >= price),
        );
        let listed = repo.shop_items(&shop, &price).await.expect("list").len() as u64;
        assert_eq!(
            listed,
            got.min(3),
            "shop_items lists at most 3 of the {got}"
        );
        check(
            format!("shop_noted {shop} {price} {note}"),
            repo.count_shop_noted(&shop, &price, note)
                .await
                .expect("count"),
            count(i, |x| {
                x.shop == shop && x.price < price && x.note.as_deref() == Some(note)
            }),
        );
    }
    // The draws select some items and leave others (the test compares something).
    assert!(
        nonzero * 2 > checked,
        "only {nonzero} of {checked} counts were strictly between 0 and all"
    );
    t.cleanup().await;
}
