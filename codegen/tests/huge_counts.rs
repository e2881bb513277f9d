//! A count beyond what any document can hold (`many(99999999999999999999999)`, `page 1e30`-like
//! digits, `limit 99999999999999999999`): the help said only "write a smaller number" (newcomer
//! round 22). It now says the largest count, and for a relation end's bound that children
//! without one are `squillions`. Over every place a count is written.

mod planned;
use planned::first_error;

const HUGE: [&str; 3] = [
    "99999999999999999999999",
    "18446744073709551616",
    "1_000_000_000_000_000_000_000",
];

#[test]
fn a_count_too_large_says_the_largest_and_what_to_write() {
    let head = "entity A { x: string  at: date }\nentity B { y: string  at: date }\n";
    for n in HUGE {
        let places = [
            (format!("relation A.bs: many({n}) <-> B.a: one\n"), true),
            (format!("relation A.bs: few({n}) <-> B.a: one\n"), true),
            (format!("relation A.bs: many <-> B.as: many({n})\n"), true),
            (
                format!("relation A.bs: squillions <-> B.a: one {{ page {n} by at }}\n"),
                false,
            ),
            (
                format!("relation A.bs: squillions <-> B.a: one {{ latest {n} by at }}\n"),
                false,
            ),
            (
                format!("query q on A {{ where x == ? limit {n} }}\n"),
                false,
            ),
        ];
        for (tail, bound) in places {
            let src = format!("{head}{tail}");
            let d = first_error(&src);
            assert!(d.message.contains("too large"), "{}\n{src}", d.message);
            let at = src.find(n).unwrap_or_default();
            assert_eq!(d.span.start, at, "{src}");
            let help = d.help.clone().unwrap_or_default();
            assert!(
                help.contains("at most 18,446,744,073,709,551,615"),
                "{help}\n{src}"
            );
            assert_eq!(help.contains("`squillions`"), bound, "{help}\n{src}");
        }
    }
}
