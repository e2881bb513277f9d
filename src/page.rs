//! Pages of results.

use serde::{Deserialize, Serialize};

/// Which page to read: page numbers start at 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PageRequest {
    /// 0-based page number.
    pub page: u64,
    /// Items per page (at least 1).
    pub per_page: u64,
}

impl PageRequest {
    /// Page `page` (0-based) of `per_page` items.
    pub fn new(page: u64, per_page: u64) -> Self {
        PageRequest {
            page,
            per_page: per_page.max(1),
        }
    }

    /// The first page of `per_page` items.
    pub fn first(per_page: u64) -> Self {
        Self::new(0, per_page)
    }

    /// The page after this one.
    pub fn next(self) -> Self {
        Self::new(self.page.saturating_add(1), self.per_page)
    }

    /// Items skipped before this page.
    pub fn skip(self) -> u64 {
        self.page.saturating_mul(self.per_page)
    }
}

/// One page of results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    /// The items, in the order of the query.
    pub items: Vec<T>,
    /// The request that produced this page.
    pub request: PageRequest,
    /// More items follow this page.
    pub has_more: bool,
}

impl<T> Page<T> {
    /// The request for the following page, if there is one.
    pub fn next(&self) -> Option<PageRequest> {
        self.has_more.then(|| self.request.next())
    }

    /// Converts every item.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            request: self.request,
            has_more: self.has_more,
        }
    }
}

/// Where a keyset page ends: the sort keys' values and the `_id` of its last document.
///
/// Opaque; it serializes (as BSON or JSON) so a web application can hand it to its client and
/// take it back. A cursor only continues the query that made it (the same sort keys):
/// given to another, the query fails with [`crate::Error::InvalidCursor`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageCursor {
    /// The stored path of each sort key, `_id` last.
    pub(crate) keys: Vec<String>,
    /// The last document's value of each key (`Null` where it has none).
    pub(crate) values: Vec<bson::Bson>,
}

/// One page of a declared query read by keyset: the documents after a cursor, in the query's
/// declared order (ties broken by `_id`), and the cursor of the next page.
///
/// Unlike skipping, a keyset page costs the same wherever it is and neither repeats nor drops a
/// document when others are inserted or removed before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CursorPage<T> {
    /// The documents, in the query's order.
    pub items: Vec<T>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<PageCursor>,
}

impl<T> CursorPage<T> {
    /// Converts every item.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> CursorPage<U> {
        CursorPage {
            items: self.items.into_iter().map(f).collect(),
            next: self.next,
        }
    }
}
