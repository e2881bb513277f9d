//! Issue 13 against the server: the `near` and `within` query methods squillion generates for
//! points at every placement (`families::geo`: a field, an optional field, a field of a value
//! type) return what a reference model of the sphere says, nearest first for `near`, from
//! documents written through the generated repository (so through `GeoPoint`'s serde and the
//! collection's `$jsonSchema` validator), served by the `2dsphere` index the Plan names. Each
//! query's `count_<q>` counts what the query returns (`near` counted as `$geoWithin` a circle).

use serde_json::Value;
use squillion::__private::bson::{doc, Document};
use squillion::__private::mongodb::Database;
use squillion::{GeoPoint, GeoShape, EARTH_RADIUS_METERS};
use squillion_testkit::TestDb;

/// Points and queries are drawn from this generator (a fixed-seed LCG: the same on every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn around(&mut self, c: GeoPoint, degrees: f64) -> GeoPoint {
        GeoPoint::new(
            c.lng + (self.next() * 2.0 - 1.0) * degrees,
            c.lat + (self.next() * 2.0 - 1.0) * degrees,
        )
    }
}

/// Great-circle distance in meters (haversine, MongoDB's Earth radius).
fn distance(a: GeoPoint, b: GeoPoint) -> f64 {
    let (la1, la2) = (a.lat.to_radians(), b.lat.to_radians());
    let (dla, dlo) = ((b.lat - a.lat).to_radians(), (b.lng - a.lng).to_radians());
    let h = (dla / 2.0).sin().powi(2) + la1.cos() * la2.cos() * (dlo / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_METERS * h.sqrt().asin()
}

/// One stored place of the reference model.
#[derive(Clone)]
struct Place {
    name: String,
    kind: String,
    at: Option<GeoPoint>,
}

const KINDS: [&str; 3] = ["cafe", "park", "shop"];
/// Centers the places are scattered around (degrees), including the southern and western
/// hemispheres and high latitudes.
const CENTERS: [(f64, f64); 4] = [
    (2.35, 48.85),
    (-73.98, 40.75),
    (151.2, -33.87),
    (18.9, 69.6),
];

/// A generated module's repository, seen through closures: insert a place, run each query.
struct Module {
    name: &'static str,
    plan: &'static str,
    optional: bool,
    run: fn(&Database, Vec<Place>, Probe) -> futures::future::BoxFuture<'_, Vec<String>>,
    /// The query's `count_<q>` for a probe.
    count: fn(&Database, Probe) -> futures::future::BoxFuture<'_, u64>,
    prepare: fn(&Database) -> futures::future::BoxFuture<'_, squillion::Result<()>>,
}

/// What to ask: `(kind filter, center, max meters)` for `near`, or a shape for `within`.
#[derive(Clone)]
enum Probe {
    Insert,
    Near(Option<String>, GeoPoint, f64),
    Within(GeoShape),
}

macro_rules! module {
    ($m:ident, $optional:expr, |$p:ident| $make:expr) => {
        Module {
            name: stringify!($m),
            plan: squillion_correctness::$m::PLAN_JSON,
            optional: $optional,
            prepare: |db| {
                Box::pin(async move {
                    squillion_correctness::$m::ensure_validators(db).await?;
                    squillion_correctness::$m::ensure_indexes(db).await
                })
            },
            run: |db, places, probe| {
                Box::pin(async move {
                    use squillion_correctness::$m::{Place as Doc, PlaceRepo};
                    let repo = PlaceRepo::new(db);
                    let found: Vec<Doc> = match probe {
                        Probe::Insert => {
                            for $p in &places {
                                let doc: Doc = $make;
                                repo.insert(&doc)
                                    .await
                                    .expect("insert through the validator");
                            }
                            Vec::new()
                        }
                        Probe::Near(None, at, max) => repo.nearby(&at, max).await.expect("nearby"),
                        Probe::Near(Some(kind), at, max) => repo
                            .nearby_of_kind(&kind, &at, max)
                            .await
                            .expect("nearby_of_kind"),
                        Probe::Within(shape) => repo.inside(&shape).await.expect("inside"),
                    };
                    found.into_iter().map(|d| d.name).collect()
                })
            },
            count: |db, probe| {
                Box::pin(async move {
                    use squillion_correctness::$m::PlaceRepo;
                    let repo = PlaceRepo::new(db);
                    match probe {
                        Probe::Insert => 0,
                        Probe::Near(None, at, max) => {
                            repo.count_nearby(&at, max).await.expect("count_nearby")
                        }
                        Probe::Near(Some(kind), at, max) => repo
                            .count_nearby_of_kind(&kind, &at, max)
                            .await
                            .expect("count_nearby_of_kind"),
                        Probe::Within(shape) => {
                            repo.count_inside(&shape).await.expect("count_inside")
                        }
                    }
                })
            },
        }
    };
}

fn modules() -> Vec<Module> {
    use squillion::__private::bson::oid::ObjectId;
    vec![
        module!(geo_top, false, |p| Doc {
            id: ObjectId::new(),
            name: p.name.clone(),
            kind: p.kind.clone(),
            loc: p.at.expect("geo_top places all have a point"),
        }),
        module!(geo_optional, true, |p| Doc {
            id: ObjectId::new(),
            name: p.name.clone(),
            kind: p.kind.clone(),
            loc: p.at,
        }),
        module!(geo_value, false, |p| Doc {
            id: ObjectId::new(),
            name: p.name.clone(),
            kind: p.kind.clone(),
            spot: squillion_correctness::geo_value::Spot {
                label: format!("spot of {}", p.name),
                loc: p.at.expect("geo_value places all have a point"),
            },
        }),
    ]
}

async fn index_keys(db: &Database) -> Vec<(String, Document)> {
    let reply = db
        .run_command(doc! { "listIndexes": "places" })
        .await
        .expect("listIndexes");
    reply
        .get_document("cursor")
        .and_then(|c| c.get_array("firstBatch"))
        .map(|b| {
            b.iter()
                .filter_map(|d| d.as_document())
                .filter_map(|d| {
                    Some((
                        d.get_str("name").ok()?.to_owned(),
                        d.get_document("key").ok()?.clone(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Places whose distance to `at` is within 0.5% of `max` are on the boundary: the server and the
/// reference model may disagree on them, so neither side's answer counts them.
fn near_expected(
    places: &[Place],
    kind: Option<&str>,
    at: GeoPoint,
    max: f64,
) -> (Vec<String>, Vec<String>) {
    let mut inside: Vec<(f64, String)> = Vec::new();
    let mut boundary = Vec::new();
    for p in places {
        let Some(q) = p.at else { continue };
        if kind.is_some_and(|k| k != p.kind) {
            continue;
        }
        let d = distance(at, q);
        if (d - max).abs() <= max * 0.005 {
            boundary.push(p.name.clone());
        } else if d < max {
            inside.push((d, p.name.clone()));
        }
    }
    inside.sort_by(|a, b| a.0.total_cmp(&b.0));
    (inside.into_iter().map(|(_, n)| n).collect(), boundary)
}

#[tokio::test]
async fn near_and_within_return_what_the_sphere_says_nearest_first() {
    let t = TestDb::new("geo_families").await;
    let modules = modules();
    let names: Vec<&str> = modules.iter().map(|m| m.name).collect();
    let expected: Vec<&str> = squillion_correctness::MODULES
        .iter()
        .copied()
        .filter(|m| m.starts_with("geo_"))
        .collect();
    assert_eq!(names, expected, "every geo_ module of the family is tested");

    let mut rng = Lcg(13);
    let mut checked = 0;
    for m in &modules {
        let db = t.client.database(&format!("{}_{}", t.db.name(), m.name));
        db.drop().await.expect("drop");
        (m.prepare)(&db).await.expect("validator and indexes");

        // Every query's index, as the Plan names it, is on the server with a 2dsphere key.
        let plan: Value = serde_json::from_str(m.plan).expect("plan json");
        let keys = index_keys(&db).await;
        for q in plan["queries"].as_array().expect("queries") {
            let index = q["index"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: {} has no index", m.name, q["name"]));
            let Some((_, key)) = keys.iter().find(|(n, _)| n == index) else {
                panic!("{}: index {index} is not on the server: {keys:?}", m.name);
            };
            assert!(
                key.values().any(|v| v.as_str() == Some("2dsphere")),
                "{}: {index} has no 2dsphere key: {key}",
                m.name
            );
        }

        let mut places = Vec::new();
        for (c, &(lng, lat)) in CENTERS.iter().enumerate() {
            for k in 0..40 {
                let at = rng.around(GeoPoint::new(lng, lat), 1.0);
                places.push(Place {
                    name: format!("p{c}_{k}"),
                    kind: KINDS[k % KINDS.len()].to_owned(),
                    at: if m.optional && k % 5 == 4 {
                        None
                    } else {
                        Some(at)
                    },
                });
            }
        }
        (m.run)(&db, places.clone(), Probe::Insert).await;

        for &(lng, lat) in &CENTERS {
            for round in 0..4 {
                let at = rng.around(GeoPoint::new(lng, lat), 0.8);
                let max = 20_000.0 + rng.next() * 60_000.0;
                let kind = (round % 2 == 1).then(|| KINDS[round % KINDS.len()].to_owned());
                let found = (m.run)(&db, Vec::new(), Probe::Near(kind.clone(), at, max)).await;
                // `count_<q>` of a `near` query counts the same points (as `$geoWithin` a circle).
                let counted = (m.count)(&db, Probe::Near(kind.clone(), at, max)).await;
                assert_eq!(
                    counted,
                    found.len() as u64,
                    "{}: count near {at:?} within {max} m, kind {kind:?}",
                    m.name
                );
                let (want, boundary) = near_expected(&places, kind.as_deref(), at, max);
                let got: Vec<String> = found
                    .iter()
                    .filter(|n| !boundary.contains(n))
                    .cloned()
                    .collect();
                let by_name = |n: &String| places.iter().find(|p| &p.name == n).and_then(|p| p.at);
                // Nearest first: the server's order, by the reference distances, never decreases
                // (beyond rounding between two models of the sphere).
                let distances: Vec<f64> = got
                    .iter()
                    .filter_map(by_name)
                    .map(|p| distance(at, p))
                    .collect();
                assert!(
                    distances.windows(2).all(|w| w[1] >= w[0] * 0.999),
                    "{}: near {at:?} within {max} m is not nearest first: {got:?} {distances:?}",
                    m.name
                );
                let (mut g, mut w) = (got.clone(), want.clone());
                g.sort();
                w.sort();
                assert_eq!(
                    g, w,
                    "{}: near {at:?} within {max} m, kind {kind:?}",
                    m.name
                );
                checked += want.len();

                // Within a circle on the sphere: the same points as near, in any order.
                let radius = max;
                let circle = GeoShape::Circle {
                    center: at,
                    radius_meters: radius,
                };
                let found = (m.run)(&db, Vec::new(), Probe::Within(circle.clone())).await;
                let counted = (m.count)(&db, Probe::Within(circle)).await;
                assert_eq!(counted, found.len() as u64, "{}: count within", m.name);
                let (want, boundary) = near_expected(&places, None, at, radius);
                let mut got: Vec<String> = found
                    .into_iter()
                    .filter(|n| !boundary.contains(n))
                    .collect();
                let mut want = want;
                got.sort();
                want.sort();
                assert_eq!(got, want, "{}: within {radius} m of {at:?}", m.name);

                // Within a box (a GeoJSON polygon: geodesic edges, so points near an edge do not
                // count).
                let half = 0.3 + rng.next() * 0.4;
                let (sw, ne) = (
                    GeoPoint::new(at.lng - half, at.lat - half / 2.0),
                    GeoPoint::new(at.lng + half, at.lat + half / 2.0),
                );
                let found = (m.run)(
                    &db,
                    Vec::new(),
                    Probe::Within(GeoShape::Box {
                        south_west: sw,
                        north_east: ne,
                    }),
                )
                .await;
                let margin = 0.02;
                let strictly = |p: GeoPoint, m: f64| {
                    p.lng > sw.lng + m
                        && p.lng < ne.lng - m
                        && p.lat > sw.lat + m
                        && p.lat < ne.lat - m
                };
                let edge: Vec<&String> = places
                    .iter()
                    .filter(|p| {
                        p.at.is_some_and(|q| strictly(q, -margin) && !strictly(q, margin))
                    })
                    .map(|p| &p.name)
                    .collect();
                let mut want: Vec<String> = places
                    .iter()
                    .filter(|p| p.at.is_some_and(|q| strictly(q, margin)))
                    .map(|p| p.name.clone())
                    .collect();
                let mut got: Vec<String> =
                    found.into_iter().filter(|n| !edge.contains(&n)).collect();
                got.sort();
                want.sort();
                assert_eq!(got, want, "{}: within the box {sw:?} {ne:?}", m.name);
            }
        }
    }
    // The draws put points inside the probes (the test compares something).
    assert!(
        checked > 50,
        "only {checked} points were found near the probes"
    );
    t.cleanup().await;
}
