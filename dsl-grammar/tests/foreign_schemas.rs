//! A file, or a declaration in it, written in another schema language: SQL DDL, a Mongoose
//! schema in JavaScript, TypeORM decorators, JSON or JSON Schema, protobuf, TypeScript or
//! GraphQL. The help said only "a file holds `settings`, `value`, `entity`, `relation` and
//! `query` declarations" (newcomer round 22); it now names the language and shows what an
//! entity and a relation look like. Each at the start of the file and after a valid declaration.

mod support;
use support::first_error;

const FOREIGN: [(&str, &str); 16] = [
    ("CREATE TABLE users (id INT PRIMARY KEY, name TEXT);", "SQL"),
    ("create table users (id int);", "SQL"),
    ("ALTER TABLE users ADD COLUMN age INT;", "SQL"),
    (
        "const UserSchema = new Schema({ name: String });",
        "JavaScript",
    ),
    (
        "let s = new mongoose.Schema({ name: String })",
        "JavaScript",
    ),
    ("var s = {}", "JavaScript"),
    ("import mongoose from 'mongoose'", "JavaScript"),
    (
        "module.exports = mongoose.model('User', UserSchema)",
        "JavaScript",
    ),
    (
        "@Entity()\nclass User { @Column() name: string }",
        "decorators",
    ),
    ("@Schema() export class Cat {}", "decorators"),
    (
        "{ \"entity\": \"A\", \"fields\": { \"x\": \"string\" } }",
        "JSON",
    ),
    ("[{ \"name\": \"users\" }]", "JSON"),
    ("message User { string name = 1; }", "protobuf"),
    ("syntax = \"proto3\";", "protobuf"),
    ("interface User { name: string }", "TypeScript or GraphQL"),
    ("enum Status { NEW, PAID }", "one_of"),
];

#[test]
fn another_schema_language_is_named_with_what_to_write() {
    for (text, says) in FOREIGN {
        for after in [false, true] {
            let src = if after {
                format!("entity A {{ x: string }}\n{text}\n")
            } else {
                format!("{text}\n")
            };
            let d = first_error(&src);
            let help = d.help.clone().unwrap_or_default();
            assert!(help.contains(says), "{text}: {help}");
            if says != "one_of" {
                assert!(help.contains("`entity User {"), "{text}: {help}");
                assert!(help.contains("relation User.orders"), "{text}: {help}");
            }
            // The error is at the first line of the foreign text.
            let line = src[..d.span.start].matches('\n').count();
            assert_eq!(line, usize::from(after), "{text}: at {:?}", d.span);
        }
    }
}

/// A stray `{` that is not JSON keeps the plain help.
#[test]
fn a_stray_brace_is_not_called_json() {
    let d = first_error("entity A { x: string }\n{ y: int32 }\n");
    let help = d.help.clone().unwrap_or_default();
    assert!(!help.contains("JSON"), "{help}");
}
