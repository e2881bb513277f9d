use super::format;

fn fmt(source: &str) -> String {
    match format(source) {
        Ok(text) => text,
        Err(errors) => panic!("{source}\ndid not format: {errors:?}"),
    }
}

#[test]
fn one_statement_per_line_and_canonical_spacing() {
    let source = "entity Book{title:string @index,pages : int32 ? @range( 1 ,5, ),tags:[ string;10 ] , m : map < int32 >}";
    assert_eq!(
        fmt(source),
        "entity Book {\n  title: string @index\n  pages: int32? @range(1, 5)\n  tags:  [string; 10]\n  m:     map<int32>\n}\n"
    );
}

#[test]
fn bounded_maps_print_like_bounded_arrays() {
    let source = "entity S{a:map < int32 ;20 >,b : map<string ? ;  3>, c:map<[ double;4 ];2>}";
    let once = fmt(source);
    assert_eq!(
        once,
        "entity S {\n  a: map<int32; 20>\n  b: map<string?; 3>\n  c: map<[double; 4]; 2>\n}\n"
    );
    assert_eq!(fmt(&once), once);
}

#[test]
fn relations_and_queries() {
    let source = "relation Author.books:many( 300 )<->Book.author:one{standalone Book show Author.name on Book ratio 1000:1 page 50 by at desc}\nquery q on Book{where title==? and year between ? sort title asc,year limit 1 rate 100/s returns title ,year}";
    assert_eq!(
        fmt(source),
        "relation Author.books: many(300) <-> Book.author: one {\n  standalone Book\n  show Author.name on Book ratio 1000:1\n  page 50 by at desc\n}\n\nquery q on Book {\n  where title == ? and year between ?\n  sort title asc, year\n  limit 1\n  rate 100/s\n  returns title, year\n}\n"
    );
}

#[test]
fn comments_stay_where_they_were() {
    let source = "// head\n\n\n/// Doc.\nentity A { // after brace\n  a: int32 // trailing\n\n\n  // own line\n  bb: string\n  // last\n}\n// tail\n";
    assert_eq!(
        fmt(source),
        "// head\n\n/// Doc.\nentity A { // after brace\n  a: int32 // trailing\n\n  // own line\n  bb: string\n  // last\n}\n\n// tail\n"
    );
}

#[test]
fn a_comment_inside_a_statement_continues_it_on_the_next_line() {
    let source = "entity A {\n  a: int32 // why\n    @index\n}\n";
    let once = fmt(source);
    assert_eq!(once, "entity A {\n  a: int32 // why\n    @index\n}\n");
    assert_eq!(fmt(&once), once);
}

#[test]
fn empty_blocks_and_nested_blocks() {
    let source = "value V{}\nrelation A.b:few<->B.a:few{fields{role:string since:date}}\nentity S{variant a{x:int32}}";
    assert_eq!(
        fmt(source),
        "value V {}\n\nrelation A.b: few <-> B.a: few {\n  fields {\n    role:  string\n    since: date\n  }\n}\n\nentity S {\n  variant a {\n    x: int32\n  }\n}\n"
    );
}

#[test]
fn invalid_files_are_not_formatted() {
    let errors = format("entity {").unwrap_err();
    assert!(errors.iter().all(|d| d.code.starts_with("E01")));
}

#[test]
fn alignment_groups_break_at_empty_lines() {
    let source =
        "entity A {\n  a: int32\n  long_name: string\n\n  b: bool\n  /// doc\n  cc: bool\n}\n";
    assert_eq!(
        fmt(source),
        "entity A {\n  a:         int32\n  long_name: string\n\n  b:  bool\n  /// doc\n  cc: bool\n}\n"
    );
}

#[test]
fn queries_on_a_parents_children() {
    let source = "query q on Post . comments{where votes>? sort votes desc}";
    assert_eq!(
        fmt(source),
        "query q on Post.comments {\n  where votes > ?\n  sort votes desc\n}\n"
    );
}

#[test]
fn attribute_conditions_get_canonical_spacing() {
    let source = "query q on P{where attrs  has( k==? ,v between ? ,)and x==?}";
    let once = fmt(source);
    assert_eq!(
        once,
        "query q on P {\n  where attrs has (k == ?, v between ?) and x == ?\n}\n"
    );
    assert_eq!(fmt(&once), once);
}
