//! Children added often to an array with a bound (`growth append_heavy` on an end of at most
//! `embed_array_max`): rule 3 says "arrays should not grow *without bound*", and seed 002's
//! bucket is such an array, capped (`count < 200`) and appended to with every reading. A cart
//! of at most 50 items, items added all day, is embedded in the cart (the shopping carts of
//! MongoDB's own examples); only a bound beyond `embed_array_max`, no bound, or `unbounded`
//! keeps the children out of the parent's arrays.
//!
//! The reference below is the rule, not the engine: the bound in force is the declared number
//! or the class's default (`few` 200, `many` 5,000, `squillions` none).

use proptest::prelude::*;
use squillion_codegen::model::Layout;
use squillion_codegen::plan::{CollectionRole, Plan, Shape};
use squillion_codegen::prose::thousands;

mod planned;
use planned::{bound, decision, growth_schema, plan, snake};

const EMBED_ARRAY_MAX: u64 = 200;

const PAIRS: &[(&str, &str)] = &[
    ("Cart", "CartItem"),
    ("User", "Notification"),
    ("Playlist", "Track"),
    ("Order", "Line"),
    ("Inbox", "Entry"),
    ("Board", "Pin"),
];

fn cardinality() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u64..=EMBED_ARRAY_MAX).prop_map(|n| format!("few({n})")),
        Just("few".to_owned()),
        (EMBED_ARRAY_MAX + 1..5000).prop_map(|n| format!("many({n})")),
        Just("many".to_owned()),
        Just("squillions".to_owned()),
    ]
}

/// Whether the parent's own documents hold an array for the relationship (embedded children
/// or ids), other than bounded `latest` copies.
fn parent_holds_array(plan: &Plan, id: &str, parent: &str) -> bool {
    let d = decision(plan, id);
    d.placement.iter().any(|x| {
        x.holder == parent
            && matches!(
                x.shape,
                Shape::ArrayOfIds | Shape::ArrayOfExtendedRefs | Shape::ArrayOfSubdocuments
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Appended children are embedded exactly when rule 2 and rule 3 allow it: not read on
    /// their own, and a bound within `embed_array_max`; the embedded array holds at most the
    /// bound, and the reason says the bound caps the appends. Otherwise the parent holds no
    /// array of them.
    #[test]
    fn appended_children_embed_within_the_bound(
        (p, c) in prop::sample::select(PAIRS),
        card in cardinality(),
        unbounded in any::<bool>(),
        standalone in any::<bool>(),
        navigate in prop_oneof![Just(""), Just("navigate both"), Just("navigate PARENT")],
    ) {
        let card = if unbounded { "squillions".to_owned() } else { card };
        let kinds = if unbounded { "append_heavy, unbounded" } else { "append_heavy" };
        let pf = format!("{}s", snake(c));
        let mut src = growth_schema((p, c), &card, kinds, navigate, standalone);
        src.push_str("}\n");
        let plan = plan(&src);
        let id = format!("{p}.{pf}");
        let d = decision(&plan, &id);
        let n = bound(&card);
        let within = !unbounded && n.is_some_and(|n| n <= EMBED_ARRAY_MAX);
        if within && !standalone {
            prop_assert_eq!(d.strategy, Layout::Embed, "{}\n{}", src, d.because);
            let n = n.unwrap_or_default();
            let parent_coll = plan
                .collections
                .iter()
                .find(|k| k.role == CollectionRole::Entity && k.entity == p);
            prop_assert!(parent_coll.is_some(), "{}", src);
            let field = parent_coll.and_then(|k| k.field_at(&pf));
            prop_assert!(field.is_some_and(|f| f.max_items == Some(n)), "{:#?}", field);
            prop_assert!(d.because.contains("added often"), "{}", d.because);
            prop_assert!(d.because.contains(&format!("never beyond {}", thousands(n))), "{}", d.because);
            prop_assert!(
                !d.rejected.iter().any(|r| r.why.contains("would grow")),
                "a rejected layout contradicts the decision: {:#?}", d.rejected
            );
        } else {
            prop_assert!(
                !matches!(d.strategy, Layout::Embed),
                "{:?}\n{}", d.strategy, src
            );
            if !within {
                prop_assert!(!parent_holds_array(&plan, &id, p), "{}\n{:#?}", src, d.placement);
            }
        }
    }
}

/// The example the class came from: a cart of at most 50 items, items added all day.
#[test]
fn a_cart_of_fifty_items_added_often_is_embedded() {
    let plan = plan(
        "entity Cart @collection(\"carts\") { status: string  modified_on: date }\n\
         entity CartItem { sku: string  quantity: int32  price: decimal128 }\n\
         relation Cart.items: few(50) <-> CartItem.cart: one { growth append_heavy }\n",
    );
    let d = decision(&plan, "Cart.items");
    assert_eq!(d.strategy, Layout::Embed, "{}", d.because);
    assert!(plan.collection("cart_items").is_none());
    assert!(plan
        .collection("carts")
        .and_then(|c| c.field_at("items.sku"))
        .is_some());
}
