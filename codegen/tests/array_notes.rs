//! W101's help fits the array it is about. Over generated arrays beyond `embed_array_max`
//! (static children embedded on purpose, `latest`/`top` copies kept on purpose, plain bounded
//! array fields) and thresholds: a note about an array the engine chose never tells to keep
//! arrays small or to bucket them (that contradicts the decision it annotates), and a warning's
//! help names the threshold in force, not the default.

use proptest::prelude::*;

mod planned;
use planned::plan;

#[derive(Debug, Clone, Copy)]
enum Kind {
    Static,
    Latest,
    Top,
    Field,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn the_help_of_w101_fits_the_array(
        max in prop::sample::select(vec![10u64, 50, 200]),
        over in 1u64..300,
        kind in prop::sample::select(vec![Kind::Static, Kind::Latest, Kind::Top, Kind::Field]),
    ) {
        let n = max + over;
        let settings = format!("settings {{ embed_array_max = {max} }}\n");
        let body = match kind {
            Kind::Static => format!(
                "entity Album {{ title: string }}\nentity Track {{ title: string  at: date }}\n\
                 relation Album.tracks: many({n}) <-> Track.album: one {{ growth static }}\n"
            ),
            Kind::Latest | Kind::Top => format!(
                "entity Album {{ title: string }}\nentity Track {{ title: string  at: date }}\n\
                 relation Album.tracks: squillions <-> Track.album: one {{\n  standalone Track\n  {} {n} by at desc keep title\n}}\n",
                if matches!(kind, Kind::Latest) { "latest" } else { "top" }
            ),
            Kind::Field => format!("entity Album {{ title: string  tags: [string; {n}] }}\n"),
        };
        let src = format!("{settings}{body}");
        let p = plan(&src);
        let notes: Vec<_> = p.warnings.iter().filter(|w| w.code == "W101").collect();
        prop_assert!(!notes.is_empty(), "no W101 for an array of {n} over {max}\n{src}");
        for w in notes {
            let help = w.help.clone().unwrap_or_default();
            let info = matches!(w.severity, squillion_codegen::plan::Severity::Info);
            let chosen = !matches!(kind, Kind::Field);
            prop_assert_eq!(info, chosen, "severity {:?}\n{}", w.severity, src);
            if info {
                prop_assert!(
                    !help.contains("keep arrays under") && !help.contains("bucket"),
                    "a note on a chosen array says: {help}\n{src}"
                );
            } else {
                prop_assert!(
                    help.contains(&format!("about {max} elements")),
                    "the help does not name embed_array_max = {max}: {help}\n{src}"
                );
            }
        }
    }
}
