//! A query path naming a summary (`sort goals_count desc`, `where reviews_avg >= ?`): summaries
//! are written by the repositories, not fields a query reads. The error said "entity `Player`
//! has no field `goals_count`" with the help "did you mean `goals`?", a relation end no sort can
//! use (newcomer round 22). It now says the name is a summary's and what to do instead. Over
//! every summary function, where and sort, declared summaries or not, parent on either end.

use squillion_grammar::SourceFile;

mod planned;
use planned::first_error;

#[test]
fn a_query_on_a_summary_name_says_it_is_a_summary() {
    let mut cases = 0;
    for (parent, end, child, back) in [
        ("Player", "goals", "Goal", "scorer"),
        ("Hotel", "reviews", "Review", "hotel"),
    ] {
        for function in ["count", "total", "max", "min", "avg"] {
            for clause in ["sort {} desc", "where {} >= ?", "where team == ? sort {}"] {
                for declared in [false, true] {
                    for left in [true, false] {
                        let summary = match (declared, function) {
                            (false, _) => String::new(),
                            (true, "count") => "{ standalone C  summary count }".to_owned(),
                            (true, f) => format!("{{ standalone C  summary {f}(n) }}"),
                        }
                        .replace('C', child);
                        let relation = if left {
                            format!("relation {parent}.{end}: many(1000) <-> {child}.{back}: one {summary}")
                        } else {
                            format!("relation {child}.{back}: one <-> {parent}.{end}: many(1000) {summary}")
                        };
                        let name = format!("{end}_{function}");
                        let src = format!(
                            "entity Team {{ name: string }}\nentity {parent} {{ name: string }}\nentity {child} {{ n: int32 }}\n{relation}\nrelation Team.members: few(40) <-> {parent}.team: one\nquery q on {parent} {{ {} }}\n",
                            clause.replace("{}", &name)
                        );
                        let d = first_error(&src);
                        assert_eq!(d.code, "E0501", "{src}");
                        assert!(
                            d.message
                                .contains(&format!("summary `{function}` of {parent}.{end}")),
                            "{}\n{src}",
                            d.message
                        );
                        let at = src.rfind(&name).unwrap_or_default();
                        assert_eq!((d.span.start, d.span.end), (at, at + name.len()), "{src}");
                        let help = d.help.clone().unwrap_or_default();
                        assert!(!help.contains("did you mean"), "{help}\n{src}");
                        assert!(help.contains(&format!("`{name}_kept:")), "{help}\n{src}");
                        // What the help says to do checks.
                        let ty = if function == "count" {
                            "int32 @counter"
                        } else {
                            "double"
                        };
                        let fixed = src
                            .replace(
                                &format!("entity {parent} {{ name: string }}"),
                                &format!("entity {parent} {{ name: string  {name}_kept: {ty} }}"),
                            )
                            .replace(&format!("{name} "), &format!("{name}_kept "))
                            .replace(&format!("{name} }}"), &format!("{name}_kept }}"));
                        let source = SourceFile::new("q.sqn", &fixed);
                        assert!(squillion_codegen::load(&source).is_ok(), "{fixed}");
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 120);
}
