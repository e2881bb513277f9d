//! The summaries a bucket keeps of its children (count, sum, min, max), computed from the
//! filled children as the generated code maintains them.

use bson::{Bson, Document};
use squillion_codegen::plan::SummaryFn;

/// A summary of a bucket's children's field, of the summary field's BSON type.
pub fn summarise(how: SummaryFn, field: Option<&str>, items: &[Document], ty: &str) -> Bson {
    let values: Vec<&Bson> = field
        .map(|f| items.iter().filter_map(|d| d.get(f)).collect())
        .unwrap_or_default();
    let number = |v: &Bson| match v {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(n) => Some(*n),
        Bson::DateTime(d) => Some(d.timestamp_millis() as f64),
        _ => None,
    };
    let pick = |largest: bool| {
        values
            .iter()
            .copied()
            .filter(|v| number(v).is_some())
            .max_by(|a, b| {
                let (a, b) = (number(a).unwrap_or(0.0), number(b).unwrap_or(0.0));
                if largest {
                    a.total_cmp(&b)
                } else {
                    b.total_cmp(&a)
                }
            })
            .cloned()
            .unwrap_or(Bson::Null)
    };
    match how {
        SummaryFn::Count => Bson::Int32(items.len() as i32),
        SummaryFn::Max => pick(true),
        SummaryFn::Min => pick(false),
        _ => {
            let total: f64 = values.iter().filter_map(|v| number(v)).sum();
            match ty {
                "int" | "int32" => Bson::Int32(total as i32),
                "long" | "int64" => Bson::Int64(total as i64),
                _ => Bson::Double(total),
            }
        }
    }
}
