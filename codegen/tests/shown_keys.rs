//! A `show` of an entity's natural key (`@key`), or a query through a relation end to it
//! (`where origin.code == ?`), needs no copy: the key is the value every reference to the entity
//! holds. Over generated schemas (one-to-many and many-to-many, keys of several types and
//! names, shown alone or with other fields, read by a query or not), the Plan stores no copy of a
//! key beside a reference (which would repeat it, under a nested `_id`), says why in the
//! decision's facts, and answers a query through the key with the reference itself, indexed.

use proptest::prelude::*;
use squillion_codegen::model::Layout;
use squillion_codegen::plan::{FieldKind, Plan, PlanField};

mod planned;
use planned::plan;

#[derive(Debug, Clone)]
struct Case {
    key: &'static str,
    key_type: &'static str,
    /// `few(N)`, `many(N)`, `squillions` on the source's side (how many holders each has).
    card: String,
    many_to_many: bool,
    /// The source's other fields shown with the key (`city` mutable, `opened` immutable).
    with_city: bool,
    with_opened: bool,
    ratio: u32,
    /// A query on the holder through the key.
    query: bool,
    standalone: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(&["code", "iata", "slug", "number"][..]),
        prop::sample::select(&["string", "int32", "int64"][..]),
        prop_oneof![
            (2u64..200).prop_map(|n| format!("few({n})")),
            (201u64..5000).prop_map(|n| format!("many({n})")),
            Just("squillions".to_owned()),
        ],
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(&[2u32, 50, 1000][..]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(
                key,
                key_type,
                card,
                many_to_many,
                with_city,
                with_opened,
                ratio,
                query,
                standalone,
            )| {
                Case {
                    key,
                    key_type,
                    card,
                    many_to_many,
                    with_city,
                    with_opened,
                    ratio,
                    query,
                    standalone,
                }
            },
        )
}

fn schema(c: &Case) -> String {
    let mut shown = vec![format!("Hub.{}", c.key)];
    if c.with_city {
        shown.push("Hub.city".to_owned());
    }
    if c.with_opened {
        shown.push("Hub.opened".to_owned());
    }
    // One-to-many: each Trip has one Hub. Many-to-many: each Trip lists up to 12 Hubs.
    let trip_end = if c.many_to_many { "few(12)" } else { "one" };
    let mut body = format!("  show {} on Trip ratio {}:1\n", shown.join(", "), c.ratio);
    if c.standalone {
        body.push_str("  standalone Trip\n");
    }
    if c.many_to_many {
        body.push_str("  navigate Trip\n");
    }
    let query = if c.query {
        format!(
            "query trips_at on Trip {{\n  where hub.{} == ?\n  sort starts\n  rate 20/s\n}}\n",
            c.key
        )
    } else {
        String::new()
    };
    format!(
        "entity Hub {{\n  {key}: {ty} @key\n  city: string\n  opened: date @immutable\n}}\n\n\
         entity Trip {{\n  starts: date\n}}\n\n\
         relation Hub.trips: {card} <-> Trip.hub: {trip_end} {{\n{body}}}\n\n{query}",
        key = c.key,
        ty = c.key_type,
        card = c.card,
    )
}

/// Every field under `fields`, at any depth, with its stored path.
fn walk<'p>(fields: &'p [PlanField], at: &str, out: &mut Vec<(String, &'p PlanField)>) {
    for f in fields {
        let path = if at.is_empty() {
            f.name.clone()
        } else {
            format!("{at}.{}", f.name)
        };
        out.push((path.clone(), f));
        walk(&f.children, &path, out);
    }
}

fn check(c: &Case, p: &Plan) -> Result<(), String> {
    let key_source = format!("Hub.{}", c.key);
    let d = p
        .relationship("Hub.trips")
        .ok_or_else(|| "no decision Hub.trips".to_owned())?;
    if d.strategy == Layout::Embed {
        // Trips inside their Hub's document: nothing is copied at all.
        return Ok(());
    }
    // Whatever the layout (a child under parent_refs gets a plain reference to hold the key).
    if let Some(copy) = d.denormalized.iter().find(|x| x.source == key_source) {
        return Err(format!(
            "{}: the key {key_source} is copied to {} beside the reference that holds it",
            d.strategy.as_str(),
            copy.copy_path
        ));
    }
    if !d.facts.iter().any(|f| {
        f.starts_with(&format!(
            "{key_source} is shown with every Trip without a copy"
        ))
    }) {
        return Err(format!(
            "the facts do not say why {key_source} is not copied: {:?}",
            d.facts
        ));
    }
    for coll in &p.collections {
        let mut all = Vec::new();
        walk(&coll.fields, "", &mut all);
        for (path, f) in all {
            if path.contains('.') && f.name == "_id" && f.kind == FieldKind::Denormalized {
                return Err(format!("{}: a copy stored as `{path}`", coll.name));
            }
        }
    }
    // The other fields are still decided by rule 5 as before: the immutable one is copied.
    if c.with_opened && !d.denormalized.iter().any(|x| x.source == "Hub.opened") {
        return Err("Hub.opened (immutable) is not copied".to_owned());
    }
    if c.query {
        let q = p
            .queries
            .iter()
            .find(|q| q.name == "trips_at")
            .ok_or_else(|| "no query trips_at".to_owned())?;
        let cond = q
            .conditions
            .first()
            .ok_or_else(|| "trips_at has no condition".to_owned())?;
        if cond.path != "hub" && cond.path != "hub.id" {
            return Err(format!(
                "`hub.{}` is compared at `{}`, not at the reference",
                c.key, cond.path
            ));
        }
        let coll = p
            .collection(&q.collection)
            .ok_or_else(|| format!("no collection {}", q.collection))?;
        let indexed = coll
            .indexes
            .iter()
            .any(|i| i.keys.first().is_some_and(|k| k.path == cond.path));
        if !indexed {
            return Err(format!("no index leads with `{}`", cond.path));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn a_shown_key_is_the_reference(c in case()) {
        let src = schema(&c);
        let p = plan(&src);
        if let Err(e) = check(&c, &p) {
            prop_assert!(false, "{e}\n{src}");
        }
    }
}

/// The airline's flights: the airport code shown on every flight is the reference itself.
#[test]
fn airport_code_is_not_copied() {
    let p = plan(
        "entity Airport @static { code: string @key  city: string }\n\
         entity Flight { number: string  departs: date }\n\
         relation Airport.departures: squillions <-> Flight.origin: one {\n\
           show Airport.city, Airport.code on Flight\n}\n\
         query flights_from on Flight { where origin.code == ? sort departs rate 200/s }\n",
    );
    let d = p.relationship("Airport.departures").expect("decision");
    let sources: Vec<&str> = d.denormalized.iter().map(|x| x.source.as_str()).collect();
    assert_eq!(sources, ["Airport.city"]);
    let q = &p.queries[0];
    assert_eq!(q.conditions[0].path, "origin.id");
    assert_eq!(q.conditions[0].written, "origin");
}
