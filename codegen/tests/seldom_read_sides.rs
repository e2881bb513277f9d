//! W109's help, followed (round 19): "move it to a one-to-one entity of its own (the engine keeps
//! large seldom-read sides out of the hot document)". A newcomer with `steps: [string; 40]
//! @size(300B) @seldom_read` on a Recipe got W109 ("holds up to 47.2 KB"), moved the steps into a
//! one-to-one entity, and the engine embedded them right back (it measured 300 B: one element)
//! with W109 still there. For every shape of seldom-read field (scalars with and without sizes,
//! arrays and maps of them, bounded or not, value types, several fields together): where W109
//! fires on the field in the hot document, the same field in a one-to-one entity is kept out of
//! it (not embedded) and draws no W109 there; and the side kept out still says how much it holds.

use squillion_codegen::model::Layout;
use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

fn plan_of(src: &str) -> Plan {
    let source = SourceFile::new("t.sqn", src);
    let checked = squillion_codegen::load(&source)
        .unwrap_or_else(|d| panic!("{}\n{src}", source.render(&d, false)));
    squillion_codegen::engine::plan(&checked.model, &source)
}

fn w109(plan: &Plan) -> Vec<String> {
    plan.warnings
        .iter()
        .filter(|w| w.code == "W109")
        .map(|w| w.message.clone())
        .collect()
}

const SHAPES: &[&str] = &[
    "string",
    "string @size(300B)",
    "string @size(5KB)",
    "string @large(20KB)",
    "binary",
    "binary @large(2MB)",
    "[string; 4]",
    "[string; 10]",
    "[string; 40] @size(300B)",
    "[string; 3] @size(100B)",
    "[binary; 5] @large(1KB)",
    "[int64; 600]",
    "[int32; 20]",
    "[string]",
    "map<string; 8>",
    "map<string>",
    "map<[string; 5]; 10>",
    "Step",
    "[Step; 12]",
    "[Step]",
];

#[test]
fn a_side_w109_calls_large_is_kept_out_when_moved_to_its_own_entity() {
    let value = "value Step { text: string @size(200B)  minutes: int32 }\n";
    let mut failures = Vec::new();
    let mut warned = 0;
    for shape in SHAPES {
        for extra in ["", "  note: string @seldom_read"] {
            let hot = format!(
                "{value}entity Recipe {{ title: string  minutes: int32  detail: {shape} @seldom_read{extra} }}\n"
            );
            if w109(&plan_of(&hot)).is_empty() {
                continue;
            }
            warned += 1;
            let moved = format!(
                "{value}entity Recipe {{ title: string  minutes: int32 }}\n\
                 entity RecipeDetail {{ detail: {shape} @seldom_read{extra} }}\n\
                 relation Recipe.detail: one <-> RecipeDetail.recipe: one\n"
            );
            let plan = plan_of(&moved);
            let Some(d) = plan.relationships.first() else {
                failures.push(format!("{shape}: no decision"));
                continue;
            };
            if d.strategy == Layout::Embed {
                failures.push(format!("{shape}{extra}: embedded again: {}", d.because));
            }
            if !w109(&plan).is_empty() {
                failures.push(format!("{shape}{extra}: W109 again: {:?}", w109(&plan)));
            }
            // What the decision says the side holds is at least one element's worth.
            if let Some(f) = d.facts.iter().find(|f| f.contains("of seldom-read data")) {
                if f.contains(" 0 B") {
                    failures.push(format!("{shape}{extra}: `{f}`"));
                }
            }
        }
    }
    assert!(warned >= 12, "only {warned} shapes drew W109");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_hot_document_still_warns_and_small_sides_still_embed() {
    // Beside fields read often, W109 stands.
    let hot = "entity Recipe { title: string  steps: [string; 40] @size(300B) @seldom_read }\n";
    assert_eq!(w109(&plan_of(hot)).len(), 1, "W109 on the hot document");
    // A one-to-one side small enough to travel with its owner is still embedded (rule 1).
    let small = "entity User { name: string }\nentity Address { street: string  note: string @size(100B) @seldom_read }\nrelation User.address: one <-> Address.user: one\n";
    let plan = plan_of(small);
    assert_eq!(
        plan.relationships[0].strategy,
        Layout::Embed,
        "{}",
        plan.relationships[0].because
    );
}
