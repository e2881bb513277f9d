//! [`DriverError`]: a failure of the driver or the server, said in one readable line.
//!
//! The driver's own `Display` prints the whole server reply as hex and the error's `Debug` tree;
//! this type keeps the driver's error (for [`DriverError::driver`]) and says what failed: the
//! operation, the collection, the server's code with its name, and the server's message
//! (for a validation failure, which rule of which field).

use bson::{Bson, Document as BsonDocument};
use mongodb::error::{ErrorKind, WriteFailure, TRANSIENT_TRANSACTION_ERROR};

/// A failure of the driver or of the server, with what was being done.
#[derive(Debug)]
pub struct DriverError(Box<Inner>);

#[derive(Debug)]
struct Inner {
    operation: Option<&'static str>,
    collection: Option<String>,
    aborted_transaction: bool,
    error: mongodb::error::Error,
}

impl DriverError {
    /// A driver error without context (an operation outside the repositories).
    pub fn new(error: mongodb::error::Error) -> Self {
        DriverError(Box::new(Inner {
            operation: None,
            collection: None,
            aborted_transaction: false,
            error,
        }))
    }

    /// The same error, saying it happened in `operation` on `collection` (kept when already set).
    pub fn during(mut self, operation: &'static str, collection: &str) -> Self {
        if self.0.operation.is_none() {
            self.0.operation = Some(operation);
            self.0.collection = Some(collection.to_owned());
        }
        self
    }

    /// The same error, saying it happened in `operation`, which names no collection
    /// (`commitTransaction`, `hello`).
    pub fn in_operation(mut self, operation: &'static str) -> Self {
        if self.0.operation.is_none() {
            self.0.operation = Some(operation);
        }
        self
    }

    /// The same error, saying that the transaction it happened in was aborted.
    pub fn aborting_transaction(mut self) -> Self {
        self.0.aborted_transaction = true;
        self
    }

    /// The operation that failed (`insert`, `update`, `createIndexes`...), when known.
    pub fn operation(&self) -> Option<&'static str> {
        self.0.operation
    }

    /// The collection it ran on, when known.
    pub fn collection(&self) -> Option<&str> {
        self.0.collection.as_deref()
    }

    /// Whether the failure aborted a transaction (nothing of it was written).
    pub fn aborted_transaction(&self) -> bool {
        self.0.aborted_transaction
    }

    /// The driver's error.
    pub fn driver(&self) -> &mongodb::error::Error {
        &self.0.error
    }

    /// The server's error code, when the server refused the operation.
    pub fn code(&self) -> Option<i32> {
        self.refusal().map(|r| r.code)
    }

    /// The server's message, when the server refused the operation.
    pub fn message(&self) -> Option<String> {
        self.refusal().map(|r| r.message)
    }

    /// The code, its name and the message of the server's refusal, if the server refused.
    fn refusal(&self) -> Option<Refusal> {
        let (code, name, message, details) = match self.0.error.kind.as_ref() {
            ErrorKind::Command(c) => (c.code, Some(c.code_name.as_str()), &c.message, None),
            ErrorKind::Write(WriteFailure::WriteError(w)) => (
                w.code,
                w.code_name.as_deref(),
                &w.message,
                w.details.as_ref(),
            ),
            ErrorKind::Write(WriteFailure::WriteConcernError(w)) => {
                (w.code, Some(w.code_name.as_str()), &w.message, None)
            }
            ErrorKind::InsertMany(m) => match (&m.write_errors, &m.write_concern_error) {
                (Some(errors), _) if !errors.is_empty() => {
                    let w = &errors[0];
                    (
                        w.code,
                        w.code_name.as_deref(),
                        &w.message,
                        w.details.as_ref(),
                    )
                }
                (_, Some(w)) => (w.code, Some(w.code_name.as_str()), &w.message, None),
                _ => return None,
            },
            ErrorKind::BulkWrite(b) => match b.write_errors.iter().min_by_key(|(i, _)| **i) {
                Some((_, w)) => (
                    w.code,
                    w.code_name.as_deref(),
                    &w.message,
                    w.details.as_ref(),
                ),
                None => {
                    let w = b.write_concern_errors.first()?;
                    (w.code, Some(w.code_name.as_str()), &w.message, None)
                }
            },
            _ => return None,
        };
        let name = name
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .or_else(|| code_name(code).map(str::to_owned));
        let mut message = one_line(message);
        if code == 11000 {
            message = duplicate_key(&message).unwrap_or(message);
        }
        if let Some(reasons) = details.and_then(validation_reasons) {
            message = format!("{message}: {reasons}");
        }
        Some(Refusal {
            code,
            name,
            message,
        })
    }

    /// What went wrong when the server did not refuse (network, selection, ...), in words.
    fn failure(&self) -> String {
        match self.0.error.kind.as_ref() {
            // These variants' own texts are Debug dumps; the refusal covers what they carry.
            ErrorKind::Write(_) | ErrorKind::InsertMany(_) | ErrorKind::BulkWrite(_) => {
                "the server refused the write".to_owned()
            }
            // Its text carries the driver's description of the topology (Debug-like braces).
            ErrorKind::ServerSelection { message, .. } => server_selection(message),
            kind => without_noise(&one_line(&kind.to_string())),
        }
    }
}

/// A server selection failure in words: each server the driver tried and what it met
/// (`127.0.0.1:1: connection refused (os error 111)`), without the topology's description.
fn server_selection(message: &str) -> String {
    let mut tried = Vec::new();
    for server in message.split("Address: ").skip(1) {
        let address = server.split([',', ' ']).next().unwrap_or_default();
        let error = server
            .split_once("Error: ")
            .map(|(_, e)| e.split(" }").next().unwrap_or(e).trim())
            .filter(|e| !e.is_empty());
        match error {
            Some(e) => tried.push(format!("{address}: {}", lowercase_first(&without_noise(e)))),
            None => tried.push(format!("{address}: no answer")),
        }
    }
    if tried.is_empty() {
        "no server answered before the server selection timeout".to_owned()
    } else {
        format!(
            "no server answered before the server selection timeout ({})",
            tried.join("; ")
        )
    }
}

/// `s` with its first letter in lower case, unless it starts an acronym (`I/O`).
fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a.is_uppercase() && b.is_lowercase() => {
            let mut out: String = a.to_lowercase().collect();
            out.push(b);
            out.extend(chars);
            out
        }
        _ => s.to_owned(),
    }
}

struct Refusal {
    code: i32,
    name: Option<String>,
    message: String,
}

impl DriverError {
    /// What the server answered (its message, code and code name), or what went wrong when it did
    /// not answer, in one line: the error's text without the operation that failed.
    pub fn reason(&self) -> String {
        match self.refusal() {
            Some(r) => match r.name {
                Some(name) => format!("{} (server code {} {name})", r.message, r.code),
                None => format!("{} (server code {})", r.message, r.code),
            },
            None => self.failure(),
        }
    }
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.0.operation, &self.0.collection) {
            (Some(op), Some(c)) => write!(f, "{op} on `{c}` failed: ")?,
            (Some(op), None) => write!(f, "{op} failed: ")?,
            _ => f.write_str("MongoDB operation failed: ")?,
        }
        f.write_str(&self.reason())?;
        if self.0.aborted_transaction {
            f.write_str("; the transaction was aborted, nothing of it was written")?;
        } else if self.0.error.contains_label(TRANSIENT_TRANSACTION_ERROR) {
            f.write_str("; transient, the transaction can be run again")?;
        }
        Ok(())
    }
}

/// The driver's text of an error without its empty labels, sources and server responses.
fn without_noise(text: &str) -> String {
    let mut text = text.to_owned();
    for noise in [", source: None", ", server response: None"] {
        text = text.replace(noise, "");
    }
    while let Some(start) = text.find(", labels: {") {
        let Some(end) = text[start..].find('}') else {
            break;
        };
        text.replace_range(start..start + end + 1, "");
    }
    text.replace("Kind: ", "")
}

/// `s` on one line: line breaks and runs of spaces become one space.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A duplicate key error (`E11000 duplicate key error collection: db.c index: NAME [collation:
/// {...}] dup key: { f: v }`) in words: the index and the value another document has. Under a
/// collation the server prints the value as its collation key, bytes nobody can read, so the
/// value is left out and the comparison named instead. `None` when the message has another form.
fn duplicate_key(message: &str) -> Option<String> {
    let rest = message.split_once(" index: ")?.1;
    let index = rest.split_whitespace().next()?;
    let value = rest.split_once("dup key: ").map(|(_, v)| v.trim());
    let collated = rest.contains("collation:");
    let strength = rest
        .split_once("strength: ")
        .and_then(|(_, s)| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|s| s.parse::<u8>().ok());
    Some(match (collated, value) {
        (true, _) => {
            let how = match strength {
                Some(1 | 2) => "compared ignoring case",
                _ => "compared under its collation",
            };
            format!("another document has the same value in unique index `{index}` ({how})")
        }
        (false, Some(v)) => format!("another document has {v} in unique index `{index}`"),
        (false, None) => format!("another document has the same value in unique index `{index}`"),
    })
}

/// The name of a server error code, for servers that send none (MongoDB's `error_codes.yml`).
fn code_name(code: i32) -> Option<&'static str> {
    Some(match code {
        2 => "BadValue",
        9 => "FailedToParse",
        11 => "UserNotFound",
        13 => "Unauthorized",
        14 => "TypeMismatch",
        20 => "IllegalOperation",
        26 => "NamespaceNotFound",
        27 => "IndexNotFound",
        28 => "PathNotViable",
        40 => "ConflictingUpdateOperators",
        48 => "NamespaceExists",
        50 => "MaxTimeMSExpired",
        52 => "DollarPrefixedFieldName",
        59 => "CommandNotFound",
        66 => "ImmutableField",
        67 => "CannotCreateIndex",
        72 => "InvalidOptions",
        85 => "IndexOptionsConflict",
        86 => "IndexKeySpecsConflict",
        112 => "WriteConflict",
        121 => "DocumentValidationFailure",
        244 => "TransactionTooLarge",
        251 => "NoSuchTransaction",
        256 => "TransactionCommitted",
        263 => "OperationNotSupportedInTransaction",
        11000 => "DuplicateKey",
        _ => return None,
    })
}

/// The rules a document failed, from a validation failure's `errInfo`: `name: minLength
/// (specified string length was not satisfied)`, at most three, `None` when there are none.
fn validation_reasons(details: &BsonDocument) -> Option<String> {
    fn walk(value: &Bson, path: &mut Vec<String>, out: &mut Vec<String>) {
        match value {
            Bson::Document(d) => {
                let named = d.get_str("propertyName").ok().map(str::to_owned);
                if let Some(n) = &named {
                    path.push(n.clone());
                }
                if let Ok(reason) = d.get_str("reason") {
                    let rule = d.get_str("operatorName").unwrap_or("rule");
                    let at = if path.is_empty() {
                        String::new()
                    } else {
                        format!("`{}` ", path.join("."))
                    };
                    let missing = d
                        .get_array("missingProperties")
                        .map(|m| {
                            let names: Vec<String> = m
                                .iter()
                                .filter_map(Bson::as_str)
                                .map(|s| format!("`{s}`"))
                                .collect();
                            format!(" {}", names.join(", "))
                        })
                        .unwrap_or_default();
                    out.push(one_line(&format!("{at}{rule}: {reason}{missing}")));
                }
                for (k, v) in d {
                    if k != "specifiedAs" && k != "consideredValue" {
                        walk(v, path, out);
                    }
                }
                if named.is_some() {
                    path.pop();
                }
            }
            Bson::Array(a) => a.iter().for_each(|v| walk(v, path, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(
        details.get("details").unwrap_or(&Bson::Null),
        &mut Vec::new(),
        &mut out,
    );
    if out.is_empty() {
        return None;
    }
    let more = out.len().saturating_sub(3);
    out.truncate(3);
    let mut s = out.join("; ");
    if more > 0 {
        s.push_str(&format!(" (and {more} more)"));
    }
    Some(s)
}

/// Adds the operation and the collection to a driver error: `.during("insert", coll.name())?`.
pub trait Context<T> {
    /// The result, its error saying it happened in `operation` on `collection`.
    fn during(self, operation: &'static str, collection: &str) -> crate::Result<T>;
}

impl<T> Context<T> for Result<T, mongodb::error::Error> {
    fn during(self, operation: &'static str, collection: &str) -> crate::Result<T> {
        self.map_err(|e| crate::Error::Driver(DriverError::new(e).during(operation, collection)))
    }
}

impl<T> Context<T> for crate::Result<T> {
    fn during(self, operation: &'static str, collection: &str) -> crate::Result<T> {
        self.map_err(|e| match e {
            crate::Error::Driver(d) => crate::Error::Driver(d.during(operation, collection)),
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::duplicate_key;

    #[test]
    fn duplicate_keys_name_the_index_and_never_print_collation_keys() {
        // SecantusDB and MongoDB print a collated value as its collation key: bytes.
        for message in [
            r#"E11000 duplicate key error collection: app.listeners index: email_1 collation: { locale: "en", caseLevel: false, strength: 2, version: "57.1" } dup key: { email: "CollationKey(0x2b312b0a7c33592b)" }"#,
            "E11000 duplicate key error collection: app.listeners index: email_1 collation: { locale: \"en\", strength: 2 } dup key: { email: \"+1+\u{1}\u{13}\" }",
        ] {
            let said = duplicate_key(message).unwrap_or_default();
            assert_eq!(
                said,
                "another document has the same value in unique index `email_1` (compared ignoring \
                 case)"
            );
        }
        assert_eq!(
            duplicate_key(
                r#"E11000 duplicate key error collection: app.tracks index: isrc_1 dup key: { isrc: "GB-0" }"#
            )
            .as_deref(),
            Some(r#"another document has { isrc: "GB-0" } in unique index `isrc_1`"#)
        );
        assert_eq!(duplicate_key("something else"), None);
    }
}
