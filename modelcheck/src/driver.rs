//! What the generated glue implements: a table of repository methods and a dispatcher that calls
//! them with BSON arguments.

use std::future::Future;
use std::pin::Pin;

pub use bson::Bson as Value;
pub use mongodb::Database;

/// A call's result: `Err` when the harness could not make the call (an argument that does not
/// fit the method's Rust type), else the repository's own result.
pub type Outcome = Result<Result<Value, squillion::Error>, String>;

/// A call in flight.
pub type Call<'a> = Pin<Box<dyn Future<Output = Outcome> + Send + 'a>>;

/// One repository method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Method {
    /// The collection of the repository.
    pub collection: &'static str,
    /// The method's name.
    pub name: &'static str,
    /// Its parameter types, as written (without `self`).
    pub params: &'static [&'static str],
    /// The type of its successful result.
    pub ret: &'static str,
}

/// The glue of one generated module.
pub trait Driver: Sync {
    /// Every repository method.
    fn methods(&self) -> &'static [Method];

    /// Calls `collection`'s repository method `method` with `args`.
    fn call<'a>(
        &'a self,
        db: &'a Database,
        collection: &'a str,
        method: &'a str,
        args: Vec<Value>,
    ) -> Call<'a>;
}

/// One schema of the batch.
pub struct Schema {
    /// Its module's name.
    pub name: &'static str,
    /// `generated`, `regression` or `shrink`.
    pub origin: &'static str,
    /// Its `.sqn` text.
    pub sqn: &'static str,
    /// Its glue.
    pub driver: &'static dyn Driver,
    /// For schema-level shrinking, the reductions that made it from a batch's schema
    /// (`relation r3; field E2 u`); empty otherwise.
    pub reductions: &'static str,
}

/// Argument `i`, as the method's Rust type.
pub fn arg<T: serde::de::DeserializeOwned>(args: &[Value], i: usize) -> Result<T, String> {
    let v = args
        .get(i)
        .cloned()
        .ok_or_else(|| format!("argument {i} is missing"))?;
    let shown = v.clone().into_relaxed_extjson().to_string();
    bson::from_bson(v).map_err(|e| {
        format!(
            "argument {i} does not fit the method's type ({} expected): {e}: {shown}",
            std::any::type_name::<T>()
        )
    })
}

/// A method's result as BSON.
pub fn ser<T: serde::Serialize + ?Sized>(v: &T) -> Value {
    bson::to_bson(v).unwrap_or_else(|e| Value::String(format!("unserializable result: {e}")))
}
