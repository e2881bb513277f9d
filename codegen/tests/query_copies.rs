//! Copies a query asks for (round 19): `query q on Ticket { sort customer.name }` copies the
//! customer's name onto each ticket (rules 5 and 6), and the decision said "query `q` on Ticket
//! filters on Customer.name" (it only sorts) and "Copies of Customer.name travel with the
//! references (rule 5: read far more often than updated)" although no ratio says so. For every
//! way a query reads the field (conditions, sort, both, with other operators) beside a `show`
//! with or without a ratio and an immutable field, the fact names what the query does and the
//! reason gives the reason each copy was made for.

use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

fn plan_of(src: &str) -> Plan {
    let source = SourceFile::new("t.sqn", src);
    let checked = squillion_codegen::load(&source)
        .unwrap_or_else(|d| panic!("{}\n{src}", source.render(&d, false)));
    squillion_codegen::engine::plan(&checked.model, &source)
}

const HEAD: &str = "entity Customer { name: string  since: date @immutable  tier: string }
entity Ticket { subject: string  opened: date }
";

#[test]
fn a_query_copy_says_what_the_query_does_and_why_it_was_copied() {
    // (query body, the verb the fact must use)
    let queries = [
        ("where customer.name == ?", "filters on"),
        (
            "where customer.name starts_with ? ignore_case",
            "filters on",
        ),
        ("where customer.name in ?", "filters on"),
        ("sort customer.name", "sorts by"),
        ("sort customer.name desc, opened", "sorts by"),
        ("where subject == ? sort customer.name", "sorts by"),
        (
            "where customer.name >= ? sort customer.name",
            "filters and sorts on",
        ),
        ("where customer.name == ? sort opened", "filters on"),
    ];
    // (relation facts, what the reason must say about the copies, what it must not)
    let shows: [(&str, &[&str], &[&str]); 4] = [
        (
            "",
            &["rules 5 and 6: a declared query filters or sorts on them"],
            &["read far more often", "immutable"],
        ),
        (
            "show Customer.tier on Ticket ratio 500:1",
            &[
                "read far more often than updated",
                "rules 5 and 6 for the others",
            ],
            &["immutable"],
        ),
        (
            "show Customer.since on Ticket",
            &["immutable", "rules 5 and 6 for the others"],
            &["read far more often"],
        ),
        // The query's field shown with a ratio: rule 5 copies it, the query is noted in the fact.
        (
            "show Customer.name on Ticket ratio 500:1",
            &["rule 5: read far more often than updated)"],
            &["rules 5 and 6"],
        ),
    ];
    let mut failures = Vec::new();
    for (query, verb) in queries {
        for (show, says, never) in &shows {
            let src = format!(
                "{HEAD}relation Customer.tickets: many(500) <-> Ticket.customer: one {{ {show} }}\nquery q on Ticket {{ {query} }}\n"
            );
            let plan = plan_of(&src);
            let d = &plan.relationships[0];
            let fact = d.facts.iter().find(|f| f.starts_with("query `q`"));
            match fact {
                Some(f) if f.contains(&format!("on Ticket {verb} Customer.name")) => {}
                other => failures.push(format!("{query} / {show}: fact {other:?}, want `{verb}`")),
            }
            // The rules cited hold the rules the reason names.
            let cites = |n: u8| d.rules.iter().any(|r| r.number == Some(n));
            if d.because.contains("rules 5 and 6") && !(cites(5) && cites(6)) {
                failures.push(format!("{query} / {show}: rules 5 and 6 not both cited"));
            }
            for s in *says {
                if !d.because.contains(s) {
                    failures.push(format!(
                        "{query} / {show}: reason lacks `{s}`: {}",
                        d.because
                    ));
                }
            }
            for s in *never {
                if d.because.contains(s) {
                    failures.push(format!(
                        "{query} / {show}: reason says `{s}`: {}",
                        d.because
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Round 21: `show Depot.name, Depot.city on Truck ratio 500:1` beside `query q on Truck { where
/// depot.city == ? }` said "query `q` on Truck filters on Depot.name, Depot.city": the query was
/// pinned on the whole `show` fact, naming fields it never reads. For every `show` of two or
/// three fields (mutable, immutable, mixed) and every non-empty set of them a query reads (by
/// conditions or sort), the query's fact names exactly the fields it reads, the rest are named
/// by a fact of the `show` alone, and the copies made are the same, in the same order, as
/// without the query.
#[test]
fn a_query_through_some_shown_fields_names_only_those() {
    let head = "entity Depot { name: string  city: string  code: string  opened: date @immutable }
entity Truck { plate: string }
";
    let shows: [&[&str]; 4] = [
        &["name", "city"],
        &["city", "name", "code"],
        &["name", "opened"],
        &["opened", "city", "name"],
    ];
    let mut failures = Vec::new();
    for shown in shows {
        let show = format!(
            "show {} on Truck ratio 500:1",
            shown
                .iter()
                .map(|f| format!("Depot.{f}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let rel = format!(
            "relation Depot.trucks: many(300) <-> Truck.depot: one {{ standalone Truck {show} }}\n"
        );
        let alone = plan_of(&format!("{head}{rel}"));
        let copies = |p: &Plan| -> Vec<String> {
            p.relationships[0]
                .denormalized
                .iter()
                .map(|d| d.copy_path.clone())
                .collect()
        };
        let want_copies = copies(&alone);
        for mask in 1u32..(1 << shown.len()) {
            let read: Vec<&str> = (0..shown.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| shown[i])
                .collect();
            for sorted in [false, true] {
                let body = if sorted {
                    format!(
                        "sort {}",
                        read.iter()
                            .map(|f| format!("depot.{f}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                } else {
                    format!(
                        "where {}",
                        read.iter()
                            .map(|f| format!("depot.{f} == ?"))
                            .collect::<Vec<_>>()
                            .join(" and ")
                    )
                };
                let src = format!("{head}{rel}query q on Truck {{ {body} }}\n");
                let plan = plan_of(&src);
                let d = &plan.relationships[0];
                let named = |f: &str, pick: &dyn Fn(&&String) -> bool| {
                    d.facts
                        .iter()
                        .filter(pick)
                        .any(|fact| fact.contains(&format!("Depot.{f}")))
                };
                let by_query = |fact: &&String| fact.starts_with("query `q`");
                let by_show = |fact: &&String| fact.contains("shown with every Truck");
                for f in shown.iter() {
                    let q = named(f, &by_query);
                    let s = named(f, &by_show);
                    let reads = read.contains(f);
                    if q != reads || s == reads {
                        failures.push(format!(
                            "{show} / {body}: Depot.{f} in the query's fact {q}, in the show's {s}: {:#?}",
                            d.facts
                        ));
                    }
                }
                if copies(&plan) != want_copies {
                    failures.push(format!(
                        "{show} / {body}: copies {:?}, without the query {want_copies:?}",
                        copies(&plan)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
