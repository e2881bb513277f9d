//! A small deterministic sequence of numbers for tests that must draw the same data on every
//! run (a linear congruential generator, Knuth's MMIX constants).

/// The generator; its seed is the state.
pub struct Lcg(pub u64);

impl Lcg {
    /// The next number below `n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }

    /// Shuffles `items` in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}
