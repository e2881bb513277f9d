//! Multi-document transactions: detection, and the retry loop the layouts that write two
//! documents at once use.

use bson::doc;
use mongodb::error::{ErrorKind, TRANSIENT_TRANSACTION_ERROR, UNKNOWN_TRANSACTION_COMMIT_RESULT};
use mongodb::{ClientSession, Database};

use crate::{Error, Result};

/// How many times a transaction that failed with a transient error is run again.
pub const TRANSACTION_ATTEMPTS: usize = 5;

/// Whether the deployment behind `db` runs multi-document transactions: a replica set member or
/// a mongos answers `hello` with `setName` or `msg: "isdbgrid"`; a standalone server does not.
pub async fn supports_transactions(db: &Database) -> Result<bool> {
    let hello = db.run_command(doc! { "hello": 1 }).await?;
    let replica_set = hello.get_str("setName").is_ok();
    let mongos = hello.get_str("msg").is_ok_and(|m| m == "isdbgrid");
    let sessions = hello.contains_key("logicalSessionTimeoutMinutes");
    Ok((replica_set || mongos) && sessions)
}

/// The server's error code carried by a driver error.
pub fn server_code(e: &mongodb::error::Error) -> Option<i32> {
    match e.kind.as_ref() {
        ErrorKind::Command(c) => Some(c.code),
        ErrorKind::Write(mongodb::error::WriteFailure::WriteError(w)) => Some(w.code),
        ErrorKind::Write(mongodb::error::WriteFailure::WriteConcernError(w)) => Some(w.code),
        ErrorKind::InsertMany(m) => m
            .write_errors
            .as_ref()
            .and_then(|errors| errors.first().map(|w| w.code)),
        ErrorKind::BulkWrite(b) => b.write_errors.values().next().map(|w| w.code),
        _ => None,
    }
}

/// Maps the server's refusal of transactions (code 20, "Transaction numbers are only allowed on a
/// replica set member or mongos") to [`Error::TransactionsUnsupported`].
pub fn classify(e: mongodb::error::Error) -> Error {
    let unsupported = server_code(&e) == Some(20)
        || e.to_string()
            .contains("Transaction numbers are only allowed");
    if unsupported {
        Error::TransactionsUnsupported
    } else {
        Error::Driver(e)
    }
}

/// Whether running the whole transaction again may succeed.
pub fn is_transient(e: &Error) -> bool {
    matches!(e, Error::Driver(d) if d.contains_label(TRANSIENT_TRANSACTION_ERROR))
}

/// Commits, retrying a commit whose result is unknown.
pub async fn commit(session: &mut ClientSession) -> Result<()> {
    loop {
        match session.commit_transaction().await {
            Ok(()) => return Ok(()),
            Err(e) if e.contains_label(UNKNOWN_TRANSACTION_COMMIT_RESULT) => continue,
            Err(e) => return Err(classify(e)),
        }
    }
}

/// Runs `$body` (an expression using `$session: &mut ClientSession` that evaluates to
/// `Result<R>`) in a transaction on `$client`, retried while it fails with a transient error.
#[macro_export]
#[doc(hidden)]
macro_rules! __squillion_transaction {
    ($client:expr, |$session:ident| $body:expr) => {{
        let mut __attempt = 0usize;
        let mut $session = $client
            .start_session()
            .await
            .map_err($crate::__private::txn::classify)?;
        loop {
            __attempt += 1;
            $session
                .start_transaction()
                .await
                .map_err($crate::__private::txn::classify)?;
            let __outcome: $crate::Result<_> = async { $body }.await;
            match __outcome {
                Ok(__value) => match $crate::__private::txn::commit(&mut $session).await {
                    Ok(()) => break Ok(__value),
                    Err(__e)
                        if __attempt < $crate::__private::txn::TRANSACTION_ATTEMPTS
                            && $crate::__private::txn::is_transient(&__e) =>
                    {
                        continue
                    }
                    Err(__e) => break Err(__e),
                },
                Err(__e) => {
                    let _ = $session.abort_transaction().await;
                    if __attempt < $crate::__private::txn::TRANSACTION_ATTEMPTS
                        && $crate::__private::txn::is_transient(&__e)
                    {
                        continue;
                    }
                    break Err(__e);
                }
            }
        }
    }};
}
