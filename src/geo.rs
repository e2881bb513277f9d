//! Geospatial values: a point stored as GeoJSON, and the shapes `within` queries look inside.
//!
//! A `point` field of a `.sqn` schema is a [`GeoPoint`] in generated code and the GeoJSON
//! document `{type: "Point", coordinates: [longitude, latitude]}` in MongoDB, the form a
//! `2dsphere` index reads.

use bson::{doc, Bson, Document};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point on the Earth: longitude then latitude, in degrees (GeoJSON order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoPoint {
    /// Degrees east, in [-180, 180].
    pub lng: f64,
    /// Degrees north, in [-90, 90].
    pub lat: f64,
}

impl GeoPoint {
    /// The point at longitude `lng`, latitude `lat` (degrees).
    pub fn new(lng: f64, lat: f64) -> GeoPoint {
        GeoPoint { lng, lat }
    }

    /// The GeoJSON document: `{type: "Point", coordinates: [lng, lat]}`.
    pub fn to_document(&self) -> Document {
        doc! { "type": "Point", "coordinates": [self.lng, self.lat] }
    }

    fn pair(&self) -> Bson {
        Bson::Array(vec![Bson::Double(self.lng), Bson::Double(self.lat)])
    }
}

impl Serialize for GeoPoint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct GeoJson<'a> {
            r#type: &'a str,
            coordinates: [f64; 2],
        }
        GeoJson {
            r#type: "Point",
            coordinates: [self.lng, self.lat],
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for GeoPoint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<GeoPoint, D::Error> {
        #[derive(Deserialize)]
        struct GeoJson {
            r#type: String,
            coordinates: Vec<f64>,
        }
        let g = GeoJson::deserialize(deserializer)?;
        if g.r#type != "Point" {
            return Err(D::Error::custom(format!(
                "expected a GeoJSON Point, found type `{}`",
                g.r#type
            )));
        }
        match g.coordinates.as_slice() {
            [lng, lat] => Ok(GeoPoint::new(*lng, *lat)),
            other => Err(D::Error::custom(format!(
                "a GeoJSON Point has 2 coordinates [longitude, latitude], found {}",
                other.len()
            ))),
        }
    }
}

/// Mean Earth radius in meters, MongoDB's for `$centerSphere` radians.
pub const EARTH_RADIUS_METERS: f64 = 6_378_100.0;

/// A region `within` queries match points inside.
#[derive(Debug, Clone, PartialEq)]
pub enum GeoShape {
    /// A polygon: its corners in order (the ring is closed for you).
    Polygon(Vec<GeoPoint>),
    /// The box between two corners, as a polygon (its edges are geodesics, as for any GeoJSON
    /// polygon).
    Box {
        /// South-west corner.
        south_west: GeoPoint,
        /// North-east corner.
        north_east: GeoPoint,
    },
    /// Every point at most `radius_meters` from `center`, on the sphere.
    Circle {
        /// The center.
        center: GeoPoint,
        /// The radius, meters.
        radius_meters: f64,
    },
}

impl GeoShape {
    /// The `$geoWithin` operand: `{$geometry: Polygon}` or `{$centerSphere: [[lng, lat], radians]}`.
    pub fn to_document(&self) -> Document {
        match self {
            GeoShape::Polygon(corners) => polygon(corners),
            GeoShape::Box {
                south_west: sw,
                north_east: ne,
            } => polygon(&[
                *sw,
                GeoPoint::new(ne.lng, sw.lat),
                *ne,
                GeoPoint::new(sw.lng, ne.lat),
            ]),
            GeoShape::Circle {
                center,
                radius_meters,
            } => doc! {
                "$centerSphere": [center.pair(), radius_meters / EARTH_RADIUS_METERS]
            },
        }
    }
}

fn polygon(corners: &[GeoPoint]) -> Document {
    let mut ring: Vec<Bson> = corners.iter().map(GeoPoint::pair).collect();
    if let (Some(first), Some(last)) = (corners.first(), corners.last()) {
        if first != last {
            ring.push(first.pair());
        }
    }
    doc! { "$geometry": { "type": "Polygon", "coordinates": [Bson::Array(ring)] } }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_round_trips_through_bson_as_geojson() {
        for (lng, lat) in [(0.0, 0.0), (-73.97, 40.77), (180.0, -90.0), (2.5, 48.25)] {
            let p = GeoPoint::new(lng, lat);
            let b = bson::to_bson(&p).expect("serialize");
            assert_eq!(b, Bson::Document(p.to_document()));
            let back: GeoPoint = bson::from_bson(b).expect("deserialize");
            assert_eq!(back, p);
        }
    }

    #[test]
    fn other_geojson_is_refused() {
        let line = doc! { "type": "LineString", "coordinates": [[0.0, 0.0], [1.0, 1.0]] };
        assert!(bson::from_document::<GeoPoint>(line).is_err());
        let short = doc! { "type": "Point", "coordinates": [1.0] };
        assert!(bson::from_document::<GeoPoint>(short).is_err());
    }

    #[test]
    fn polygons_are_closed_rings() {
        let corners = vec![
            GeoPoint::new(0.0, 0.0),
            GeoPoint::new(1.0, 0.0),
            GeoPoint::new(1.0, 1.0),
        ];
        for shape in [
            GeoShape::Polygon(corners.clone()),
            GeoShape::Box {
                south_west: corners[0],
                north_east: corners[2],
            },
        ] {
            let d = shape.to_document();
            let ring = d
                .get_document("$geometry")
                .and_then(|g| g.get_array("coordinates"))
                .ok()
                .and_then(|rings| rings.first().cloned());
            let Some(Bson::Array(ring)) = ring else {
                panic!("no ring in {d}");
            };
            assert!(ring.len() >= 4);
            assert_eq!(ring.first(), ring.last());
        }
    }
}
