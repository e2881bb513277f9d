//! [`BoundedVec`]: an array that cannot hold more than `N` elements.

use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use serde::de::{Error as _, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A `Vec` that holds at most `N` elements.
///
/// It refuses to be built over capacity: [`BoundedVec::try_push`] and `TryFrom<Vec<T>>` fail, and
/// deserializing a stored array with more than `N` elements is an error. The embedded arrays of a
/// layout (rule of thumb 3: arrays must not grow without bound) use it so that an over-full array
/// cannot exist in Rust; the repository's `push_*` methods enforce the same bound in the database
/// update itself.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoundedVec<T, const N: usize>(Vec<T>);

/// The error of adding to a full [`BoundedVec`]; it gives the rejected value back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapacityError<T> {
    /// The value (or values) that did not fit.
    pub rejected: T,
    /// The capacity.
    pub capacity: usize,
}

impl<T> fmt::Display for CapacityError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a bounded array holds at most {} elements",
            self.capacity
        )
    }
}

impl<T: fmt::Debug> std::error::Error for CapacityError<T> {}

impl<T, const N: usize> BoundedVec<T, N> {
    /// The largest number of elements.
    pub const CAPACITY: usize = N;

    /// An empty array.
    pub const fn new() -> Self {
        BoundedVec(Vec::new())
    }

    /// A full array of `N` copies of `value`: preallocated counters start as
    /// `BoundedVec::filled(BoundedVec::filled(0))` (24 x 60 zeros for a histogram).
    pub fn filled(value: T) -> Self
    where
        T: Clone,
    {
        BoundedVec(vec![value; N])
    }

    /// Appends `value`, or gives it back when the array is full.
    pub fn try_push(&mut self, value: T) -> Result<(), CapacityError<T>> {
        if self.0.len() >= N {
            return Err(CapacityError {
                rejected: value,
                capacity: N,
            });
        }
        self.0.push(value);
        Ok(())
    }

    /// Whether no more elements fit.
    pub fn is_full(&self) -> bool {
        self.0.len() >= N
    }

    /// How many more elements fit.
    pub fn remaining(&self) -> usize {
        N.saturating_sub(self.0.len())
    }

    /// Removes and returns the last element.
    pub fn pop(&mut self) -> Option<T> {
        self.0.pop()
    }

    /// Removes and returns the element at `index`, if there is one.
    pub fn remove(&mut self, index: usize) -> Option<T> {
        (index < self.0.len()).then(|| self.0.remove(index))
    }

    /// Keeps the elements for which `keep` is true.
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.0.retain(keep);
    }

    /// Removes every element.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }

    /// The elements as a plain `Vec`.
    pub fn into_inner(self) -> Vec<T> {
        self.0
    }
}

impl<T, const N: usize> Default for BoundedVec<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: fmt::Debug, const N: usize> fmt::Debug for BoundedVec<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T, const N: usize> Deref for BoundedVec<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

/// Elements can be changed in place; the length cannot grow through a slice.
impl<T, const N: usize> DerefMut for BoundedVec<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T, const N: usize> TryFrom<Vec<T>> for BoundedVec<T, N> {
    type Error = CapacityError<Vec<T>>;
    fn try_from(value: Vec<T>) -> Result<Self, Self::Error> {
        if value.len() > N {
            return Err(CapacityError {
                rejected: value,
                capacity: N,
            });
        }
        Ok(BoundedVec(value))
    }
}

impl<T, const N: usize> From<BoundedVec<T, N>> for Vec<T> {
    fn from(value: BoundedVec<T, N>) -> Self {
        value.0
    }
}

impl<T, const N: usize> IntoIterator for BoundedVec<T, N> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, T, const N: usize> IntoIterator for &'a BoundedVec<T, N> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T: Serialize, const N: usize> Serialize for BoundedVec<T, N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>, const N: usize> Deserialize<'de> for BoundedVec<T, N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bounded<T, const N: usize>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for Bounded<T, N> {
            type Value = BoundedVec<T, N>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an array of at most {N} elements")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(N));
                while let Some(item) = seq.next_element()? {
                    if items.len() >= N {
                        return Err(A::Error::custom(format_args!(
                            "array holds more than {N} elements, its declared bound"
                        )));
                    }
                    items.push(item);
                }
                Ok(BoundedVec(items))
            }
        }

        deserializer.deserialize_seq(Bounded::<T, N>(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_grow_past_capacity() {
        let mut v = BoundedVec::<u8, 2>::new();
        assert!(v.try_push(1).is_ok());
        assert!(v.try_push(2).is_ok());
        let err = v.try_push(3).unwrap_err();
        assert_eq!(err.rejected, 3);
        assert_eq!(v.len(), 2);
        assert!(BoundedVec::<u8, 2>::try_from(vec![1, 2, 3]).is_err());
    }

    #[test]
    fn refuses_to_deserialize_past_capacity() {
        let ok: BoundedVec<i32, 3> = serde_json::from_str("[1,2,3]").unwrap();
        assert_eq!(ok.as_slice(), &[1, 2, 3]);
        let err = serde_json::from_str::<BoundedVec<i32, 3>>("[1,2,3,4]").unwrap_err();
        assert!(err.to_string().contains("more than 3"), "{err}");
        let doc = bson::doc! { "a": [1, 2, 3] };
        #[derive(Deserialize, Debug)]
        struct Holder {
            #[allow(dead_code)]
            a: BoundedVec<i32, 2>,
        }
        assert!(bson::from_document::<Holder>(doc).is_err());
    }
}
