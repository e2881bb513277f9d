//! Multi-document transactions: detection, and the retry loop the layouts that write two
//! documents at once use.

use std::hash::BuildHasher;
use std::time::{Duration, Instant};

use bson::doc;
use mongodb::error::{ErrorKind, TRANSIENT_TRANSACTION_ERROR, UNKNOWN_TRANSACTION_COMMIT_RESULT};
use mongodb::{ClientSession, Database};

use crate::{Error, Result};

/// How many times in all a transaction is run while it fails with a transient error (a write
/// conflict with a concurrent transaction, a lost connection): the first run and up to 31
/// retries, each after a [`backoff`], within [`TRANSACTION_TIME_LIMIT`]. Measured with sixteen
/// writers moving 40 documents between 12 owners (tests/derive_concurrency.rs), over a third of
/// 25,000 committed links and unlinks needed more than one run, the number needing one more run
/// falls by about a third per run, and the slowest needed 19; with five runs and no pause, 4,304
/// of the 32,000 operations failed.
pub const TRANSACTION_ATTEMPTS: usize = 32;

/// No retry starts after this long (the driver's own transaction API stops at the same time), so
/// a transaction meeting an unreachable server does not wait out 32 server-selection timeouts.
pub const TRANSACTION_TIME_LIMIT: Duration = Duration::from_secs(120);

/// How many times a commit whose result is unknown (`UnknownTransactionCommitResult`: the
/// connection was lost while committing) is sent again before the error is returned.
pub const COMMIT_ATTEMPTS: usize = 3;

/// The pause before retry number `retry` (1 for the first retry), as the driver's own
/// transaction API (`start_transaction().and_run`) waits: a random fraction ("full jitter") of
/// `5 ms * 1.5^retry`, at most 500 ms. Runs that conflicted with each other spread out instead of
/// conflicting again; 31 pauses add up to 11.3 s at most.
pub fn backoff(retry: usize) -> Duration {
    let ceiling = (5.0 * 1.5f64.powi(retry.min(30) as i32)).min(500.0);
    Duration::from_secs_f64(ceiling * jitter() / 1000.0)
}

/// A number in `[0, 1)` that differs from call to call (not for cryptography): the process's
/// random hash keys over the current instant.
fn jitter() -> f64 {
    let h = std::collections::hash_map::RandomState::new().hash_one(Instant::now());
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Waits `d` on any async runtime (the crate depends on none): a short-lived thread sleeps and
/// then completes a channel the caller awaits. Only transaction retries wait, so the thread is
/// rare; if none can be started the retry runs at once.
pub async fn pause(d: Duration) {
    if d.is_zero() {
        return;
    }
    let (done, wait) = futures::channel::oneshot::channel::<()>();
    let sleeper = std::thread::Builder::new()
        .name("squillion-backoff".into())
        .spawn(move || {
            std::thread::sleep(d);
            let _ = done.send(());
        });
    if sleeper.is_ok() {
        let _ = wait.await;
    }
}

/// Whether the deployment behind `db` runs multi-document transactions: a replica set member or
/// a mongos answers `hello` with `setName` or `msg: "isdbgrid"`; a standalone server does not.
pub async fn supports_transactions(db: &Database) -> Result<bool> {
    let hello = db
        .run_command(doc! { "hello": 1 })
        .await
        .map_err(|e| Error::Driver(crate::error::DriverError::new(e).in_operation("hello")))?;
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
        Error::Driver(crate::error::DriverError::new(e))
    }
}

/// Whether running the whole transaction again may succeed.
pub fn is_transient(e: &Error) -> bool {
    matches!(e, Error::Driver(d) if d.driver().contains_label(TRANSIENT_TRANSACTION_ERROR))
}

/// `e`, saying the transaction it ended was aborted (nothing of it was written).
pub fn aborted(e: Error) -> Error {
    match e {
        Error::Driver(d) => Error::Driver(d.aborting_transaction()),
        other => other,
    }
}

/// Whether a transaction that failed with `e` on run number `attempt` (1-based), first started
/// at `started`, is run again: a transient error, fewer than [`TRANSACTION_ATTEMPTS`] runs and
/// less than [`TRANSACTION_TIME_LIMIT`] so far.
pub fn retry(e: &Error, attempt: usize, started: Instant) -> bool {
    is_transient(e) && attempt < TRANSACTION_ATTEMPTS && started.elapsed() < TRANSACTION_TIME_LIMIT
}

/// Commits, sending the commit again (up to [`COMMIT_ATTEMPTS`] times in all) while its result is
/// unknown; a commit that ran out of time on the server (code 50) is not sent again.
pub async fn commit(session: &mut ClientSession) -> Result<()> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        match session.commit_transaction().await {
            Ok(()) => return Ok(()),
            Err(e)
                if attempt < COMMIT_ATTEMPTS
                    && e.contains_label(UNKNOWN_TRANSACTION_COMMIT_RESULT)
                    && server_code(&e) != Some(50) =>
            {
                continue
            }
            Err(e) => {
                return Err(match classify(e) {
                    Error::Driver(d) => Error::Driver(d.in_operation("commitTransaction")),
                    other => other,
                })
            }
        }
    }
}

/// Runs `$body` (an expression using `$session: &mut ClientSession` that evaluates to
/// `Result<R>`) in a transaction on `$client`, run again after a [`backoff`] while the body or the
/// commit fails with a transient error, [`TRANSACTION_ATTEMPTS`] times at most; then the last
/// error is returned.
#[macro_export]
#[doc(hidden)]
macro_rules! __squillion_transaction {
    ($client:expr, |$session:ident| $body:expr) => {{
        let mut __attempt = 0usize;
        let __started = ::std::time::Instant::now();
        let mut $session = $client
            .start_session()
            .await
            .map_err($crate::__private::txn::classify)?;
        loop {
            if __attempt > 0 {
                $crate::__private::txn::pause($crate::__private::txn::backoff(__attempt)).await;
            }
            __attempt += 1;
            $session
                .start_transaction()
                .await
                .map_err($crate::__private::txn::classify)?;
            let __outcome: $crate::Result<_> = async { $body }.await;
            match __outcome {
                Ok(__value) => match $crate::__private::txn::commit(&mut $session).await {
                    Ok(()) => break Ok(__value),
                    Err(__e) if $crate::__private::txn::retry(&__e, __attempt, __started) => {
                        continue
                    }
                    Err(__e) => break Err(__e),
                },
                Err(__e) => {
                    let _ = $session.abort_transaction().await;
                    if $crate::__private::txn::retry(&__e, __attempt, __started) {
                        continue;
                    }
                    break Err($crate::__private::txn::aborted(__e));
                }
            }
        }
    }};
}
