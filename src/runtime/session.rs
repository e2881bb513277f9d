//! Running a group of writes in a transaction when the deployment can, or one after the other
//! when it cannot.

/// Awaits a driver action in the session when there is one: `in_session!(action, session)` where
/// `session: Option<&mut ClientSession>`.
#[macro_export]
#[doc(hidden)]
macro_rules! __squillion_in_session {
    ($action:expr, $session:expr) => {
        match $session.as_deref_mut() {
            ::core::option::Option::Some(s) => $action.session(s).await,
            ::core::option::Option::None => $action.await,
        }
    };
}
