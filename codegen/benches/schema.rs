//! The generated schemas the benchmarks run on.

/// A schema of `n` entities: 8 fields each, a relation to the next entity with facts that
/// exercise every layout family, and a query on every tenth entity.
pub fn schema(n: usize) -> String {
    let mut s = String::with_capacity(n * 600);
    s.push_str("value Address { street: string city: string zip: string }\n");
    for i in 0..n {
        s.push_str(&format!(
            "/// Entity {i}.\nentity E{i} {{\n  name: string @index\n  code: string @unique\n  at: date\n  n: int32\n  price: decimal128\n  tags: [string; 10]\n  address: Address?\n  note: string? @size(200B)\n}}\n"
        ));
    }
    let classes = [
        ("few(5)", "one", ""),
        (
            "many(1000)",
            "one",
            "standalone {C}\n  show {P}.name on {C} ratio 1000:1",
        ),
        ("squillions", "one", "latest 20 by at desc keep at, n"),
        ("squillions", "one", "page 50 by at"),
        (
            "squillions",
            "one",
            "time_range by at\n  summary count, total(n), max(n)\n  growth append_heavy",
        ),
        ("few(3)", "many(500000)", ""),
        ("many(300)", "one", "standalone {C}\n  navigate both"),
    ];
    for i in 0..n.saturating_sub(1) {
        let (a, b, facts) = classes[i % classes.len()];
        let (p, c) = (format!("E{i}"), format!("E{}", i + 1));
        let facts = facts.replace("{P}", &p).replace("{C}", &c);
        s.push_str(&format!(
            "relation {p}.r{i}: {a} <-> {c}.back{i}: {b} {{\n  {facts}\n}}\n"
        ));
    }
    for i in (0..n).step_by(10) {
        s.push_str(&format!(
            "query q{i} on E{i} {{ where code == ? and at > ? sort n desc rate 10/s }}\n"
        ));
    }
    s
}
