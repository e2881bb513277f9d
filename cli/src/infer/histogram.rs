//! Counts per parent (array lengths, children, holders) as a histogram: how many parents have
//! each count. Its size is the number of distinct counts, never the number of parents.

use std::collections::BTreeMap;

/// How many parents have each count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    counts: BTreeMap<u64, u64>,
}

impl Histogram {
    /// A histogram from `(count, parents)` pairs.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (u64, u64)>) -> Histogram {
        let mut h = Histogram::default();
        for (value, n) in pairs {
            h.add(value, n);
        }
        h
    }

    /// `n` more parents with `value`.
    pub fn add(&mut self, value: u64, n: u64) {
        if n > 0 {
            *self.counts.entry(value).or_default() += n;
        }
    }

    /// Adds every parent of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (v, n) in &other.counts {
            self.add(*v, *n);
        }
    }

    /// Parents counted.
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Parents with a count above zero.
    pub fn nonzero(&self) -> u64 {
        self.counts.range(1..).map(|(_, n)| n).sum()
    }

    /// The largest count.
    pub fn max(&self) -> Option<u64> {
        self.counts.keys().next_back().copied()
    }

    /// The smallest count at or above which a fraction `p` (0..=1) of parents lie: the nearest
    /// rank percentile.
    pub fn percentile(&self, p: f64) -> Option<u64> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        let rank = ((p.clamp(0.0, 1.0) * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (v, n) in &self.counts {
            seen += n;
            if seen >= rank {
                return Some(*v);
            }
        }
        self.max()
    }

    /// The median.
    pub fn p50(&self) -> Option<u64> {
        self.percentile(0.5)
    }

    /// The 99th percentile.
    pub fn p99(&self) -> Option<u64> {
        self.percentile(0.99)
    }

    /// Parents with a count above `limit`.
    pub fn above(&self, limit: u64) -> u64 {
        self.counts
            .range(limit.saturating_add(1)..)
            .map(|(_, n)| n)
            .sum()
    }

    /// The sum of all counts (children in all).
    pub fn sum(&self) -> u64 {
        self.counts
            .iter()
            .map(|(v, n)| v.saturating_mul(*n))
            .fold(0u64, u64::saturating_add)
    }

    /// `(count, parents)` pairs in ascending order of count.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.counts.iter().map(|(v, n)| (*v, *n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Percentiles agree with sorting every count (the reference model).
        #[test]
        fn percentiles_agree_with_a_sorted_list(values in proptest::collection::vec(0u64..500, 1..300), p in 0.0f64..=1.0) {
            let h = Histogram::from_pairs(values.iter().map(|v| (*v, 1)));
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let rank = ((p * sorted.len() as f64).ceil() as usize).max(1);
            prop_assert_eq!(h.percentile(p), Some(sorted[rank - 1]));
            prop_assert_eq!(h.max(), sorted.last().copied());
            prop_assert_eq!(h.total(), values.len() as u64);
            prop_assert_eq!(h.sum(), values.iter().sum::<u64>());
            prop_assert_eq!(h.above(100), values.iter().filter(|v| **v > 100).count() as u64);
        }
    }

    #[test]
    fn an_empty_histogram_has_no_percentiles() {
        let h = Histogram::default();
        assert_eq!((h.p50(), h.max(), h.total()), (None, None, 0));
    }
}
