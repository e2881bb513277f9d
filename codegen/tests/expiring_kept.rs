//! W125: a parent that keeps copies or summaries of children whose documents expire. Every
//! combination of what the parent keeps (`latest`, `top`, `summary`) with and without `@expires`
//! on the child, under the layouts that keep the children apart: the warning exactly when both
//! hold, naming every kept field and the refill of every list.

mod planned;

use planned::plan;

const KEPT: [&str; 3] = [
    "latest 5 by raised desc keep code",
    "top 3 by level desc",
    "summary count, max(level)",
];

#[test]
fn a_parent_keeping_children_that_expire_is_warned_about() {
    let mut warned = 0;
    for bound in ["squillions", "many(3000)", "few(40)"] {
        for mask in 0u8..8 {
            for expires in [false, true] {
                let kept: Vec<&str> = (0..3)
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| KEPT[i])
                    .collect();
                let attr = if expires { " @expires(30d)" } else { "" };
                let src = format!(
                    "entity Vehicle {{ plate: string }}\n\
                     entity Alert {{ raised: date{attr}  code: string  level: int32 }}\n\
                     relation Vehicle.alerts: {bound} <-> Alert.vehicle: one {{\n  standalone Alert\n  {}\n}}\n",
                    kept.join("\n  ")
                );
                let p = plan(&src);
                let w: Vec<_> = p.warnings.iter().filter(|w| w.code == "W125").collect();
                let d = p.relationship("Vehicle.alerts").unwrap();
                let lists: Vec<&str> = d
                    .subset
                    .iter()
                    .map(|s| s.path.as_str())
                    .chain(d.computed.iter().map(|c| c.path.as_str()))
                    .collect();
                if expires && !lists.is_empty() {
                    warned += 1;
                    assert_eq!(w.len(), 1, "{src}\n{:#?}", p.warnings);
                    for l in &lists {
                        assert!(
                            w[0].message.contains(&format!("`{l}`")),
                            "{l}: {}",
                            w[0].message
                        );
                    }
                    let help = w[0].help.as_deref().unwrap_or_default();
                    if let Some(s) = &d.subset {
                        assert!(help.contains(&format!("`refill_{}`", s.path)), "{help}");
                    }
                    assert!(help.contains("@expires"), "{help}");
                } else {
                    assert!(w.is_empty(), "{src}\n{:#?}", w);
                }
            }
        }
    }
    assert!(warned >= 18, "{warned}");
}
