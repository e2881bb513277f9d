//! A child that always has one parent and may have none of a second kind (`Message.ticket:
//! one`, `Message.author: one?`). The optional end keeps the child out of that second parent
//! only: a message without an author still has its ticket to live in. Before, any `one?` end
//! gave the child a collection of its own, so the ticket held an array of message ids ("Message
//! is read on its own", which nothing said).
//!
//! Reference model: the same schema without the optional relation. Where the optional relation
//! keeps its reference in the child (`child_ref`), the first parent's layout must be the one it
//! has without it; the optional relation never embeds or buckets the child; and no sentence
//! says the child keeps documents of its own when the Plan gives it no collection.

mod planned;

use planned::plan;
use proptest::prelude::*;
use squillion_codegen::model::Layout;

#[derive(Debug, Clone)]
struct Case {
    /// The first parent's end, always there (`few(20)`, `many(300, typical 5)`, ...).
    home: String,
    /// A fact of the first relation (`page 20 by at`, `growth append_heavy`, or none).
    home_fact: &'static str,
    /// The optional parent's end.
    other: String,
    /// A fact of the optional relation.
    other_fact: &'static str,
    /// A query on the child alone.
    queried: bool,
}

fn case() -> impl Strategy<Value = Case> {
    let bound = prop_oneof![
        (2u64..200).prop_map(|n| format!("few({n})")),
        (201u64..5000).prop_map(|n| format!("many({n})")),
        (300u64..3000).prop_map(|n| format!("many({n}, typical 5)")),
        Just("squillions".to_owned()),
    ];
    // `one?`: the optional parent is a one-to-one (`Owner.items: one? <-> Item.owner: one?`).
    let other = prop_oneof![4 => bound.clone(), 1 => Just("one?".to_owned())];
    (
        bound,
        prop::sample::select(&["", "page 20 by at", "growth append_heavy", "growth static"][..]),
        other,
        prop::sample::select(&["", "navigate both", "show Owner.name on Item ratio 100:1"][..]),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(home, home_fact, other, other_fact, queried)| Case {
            home,
            home_fact,
            other,
            other_fact,
            queried,
        })
}

impl Case {
    fn source(&self, with_optional: bool) -> String {
        let growing = self.home_fact.starts_with("growth append") || self.home == "squillions";
        let home_fact = if self.home_fact == "growth static" && growing {
            ""
        } else {
            self.home_fact
        };
        let mut src = format!(
            "entity Box {{ label: string }}\n\
             entity Owner {{ name: string }}\n\
             entity Item {{ text: string  at: date }}\n\
             relation Box.items: {} <-> Item.box: one {{ {home_fact} }}\n",
            self.home
        );
        if with_optional {
            src.push_str(&format!(
                "relation Owner.items: {} <-> Item.owner: one? {{ {} }}\n",
                self.other, self.other_fact
            ));
        }
        if self.queried {
            src.push_str("query recent_items on Item { where at >= ? sort at desc limit 10 }\n");
        }
        src
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn an_optional_second_parent_keeps_the_child_out_of_itself_only(case in case()) {
        let src = case.source(true);
        let with = plan(&src);
        let without = plan(&case.source(false));
        let optional = with.relationship("Owner.items").unwrap();
        let home = with.relationship("Box.items").unwrap();
        let reference = without.relationship("Box.items").unwrap();
        prop_assert!(
            !matches!(optional.strategy, Layout::Embed | Layout::Bucket),
            "{src}\n{}", optional.because
        );
        if optional.strategy == Layout::ChildRef {
            prop_assert_eq!(
                home.strategy, reference.strategy,
                "{}\nwith: {}\nwithout: {}", src, home.because, reference.because
            );
        }
        let own_collection = with.collections.iter().any(|c| c.entity == "Item" && c.name == "items");
        let sentences = with
            .relationships
            .iter()
            .flat_map(|d| d.facts.iter().chain(std::iter::once(&d.because)));
        for s in sentences {
            if !own_collection {
                prop_assert!(!s.contains("keep documents of their own"), "{src}\n{s}");
                prop_assert!(!s.contains("keeps its own collection"), "{src}\n{s}");
            }
            // Nothing here is read on its own unless the query says so.
            if !case.queried {
                prop_assert!(!s.contains("Item is read on its own"), "{src}\n{s}");
                prop_assert!(!s.contains("Items are read on their own"), "{src}\n{s}");
            }
        }
        for r in with.relationships.iter().flat_map(|d| &d.rejected) {
            if !case.queried {
                prop_assert!(!r.why.contains("Item is read on its own"), "{src}\n{}", r.why);
            }
        }
    }
}

/// The helpdesk's thread: messages live in their ticket and hold their optional author's id,
/// indexed through the array.
#[test]
fn a_message_without_an_author_stays_in_its_ticket() {
    let p = plan(
        "entity Agent { name: string }\n\
         entity Ticket { subject: string }\n\
         entity Message { body: string }\n\
         relation Ticket.messages: few(50) <-> Message.ticket: one\n\
         relation Agent.messages: squillions <-> Message.author: one?\n",
    );
    let thread = p.relationship("Ticket.messages").unwrap();
    assert_eq!(thread.strategy, Layout::Embed, "{}", thread.because);
    let authored = p.relationship("Agent.messages").unwrap();
    assert_eq!(authored.strategy, Layout::ChildRef, "{}", authored.because);
    assert!(p.collections.iter().all(|c| c.entity != "Message"));
    let tickets = p.collections.iter().find(|c| c.name == "tickets").unwrap();
    assert!(
        tickets
            .indexes
            .iter()
            .any(|i| i.keys.iter().any(|k| k.path == "messages.author")),
        "{:#?}",
        tickets.indexes
    );
    // A child with no other parent keeps its documents, as before.
    let alone = plan(
        "entity Agent { name: string }\n\
         entity Message { body: string }\n\
         relation Agent.messages: few(50) <-> Message.author: one?\n",
    );
    let d = alone.relationship("Agent.messages").unwrap();
    assert_ne!(d.strategy, Layout::Embed, "{}", d.because);
    assert!(alone.collections.iter().any(|c| c.entity == "Message"));
}
