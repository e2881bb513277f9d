//! `squillion::Error`'s `Display` on real server errors (issue 11, defect 8): one readable line
//! naming the operation, the collection, the server's code with its name and the server's
//! message; never the driver's Debug tree or the hex of the server's reply.

mod derive_support;

use derive_support::database;
use serde::{Deserialize, Serialize};
use squillion::__private::bson::{self, doc, oid::ObjectId};
use squillion::Error;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "things", index(keys(name), unique))]
pub struct Thing {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(min_length = 3)]
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthorRef {
    pub id: ObjectId,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "books", validator = false)]
pub struct Book {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    pub author: AuthorRef,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "authors", validator = false)]
pub struct Author {
    #[serde(rename = "_id")]
    #[squillion(id)]
    pub id: ObjectId,
    #[squillion(fan_out(to = Book, by = "author.id", copy = "author.name"))]
    pub name: String,
}

/// What every rendering of a server error must be: one line, no Debug tree, no hex dump.
fn assert_readable(text: &str) {
    assert!(!text.contains('\n'), "more than one line: {text}");
    for debug in [
        "Kind:",
        "RawDocumentBuf",
        "WriteError {",
        "code_name:",
        "labels:",
        "Some(",
        "Document({",
    ] {
        assert!(!text.contains(debug), "Debug text `{debug}` in: {text}");
    }
    let longest_hex = text
        .split(|c: char| !c.is_ascii_hexdigit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(longest_hex < 32, "a hex dump in: {text}");
    assert!(
        text.len() < 400,
        "not one readable line ({} bytes): {text}",
        text.len()
    );
}

#[tokio::test]
async fn server_errors_read_as_one_line_with_operation_collection_code_and_message() {
    let db = database("error_display").await;
    let things = ThingRepo::new(&db);
    things.ensure_indexes().await.unwrap();
    things.ensure_validator().await.unwrap();
    things
        .insert(&Thing {
            id: ObjectId::new(),
            name: "abcd".into(),
        })
        .await
        .unwrap();

    // A unique index refuses a duplicate.
    let dup = things
        .insert(&Thing {
            id: ObjectId::new(),
            name: "abcd".into(),
        })
        .await
        .unwrap_err();
    assert!(dup.is_duplicate_key());
    let text = dup.to_string();
    assert_readable(&text);
    assert!(text.starts_with("insert on `things` failed: "), "{text}");
    assert!(text.contains("in unique index `name_1`"), "{text}");
    assert!(text.contains("abcd"), "the value, readable: {text}");
    assert!(text.contains("server code 11000 DuplicateKey"), "{text}");

    // The validator refuses a document: the rule and the field are named.
    for failure in [
        things
            .insert(&Thing {
                id: ObjectId::new(),
                name: "a".into(),
            })
            .await
            .unwrap_err(),
        things
            .insert_many(&[Thing {
                id: ObjectId::new(),
                name: "b".into(),
            }])
            .await
            .unwrap_err(),
    ] {
        assert!(failure.is_validation_failure());
        let text = failure.to_string();
        assert_readable(&text);
        assert!(text.starts_with("insert on `things` failed: "), "{text}");
        assert!(
            text.contains("server code 121 DocumentValidationFailure"),
            "{text}"
        );
        assert!(text.contains("`name` minLength"), "{text}");
    }

    // A copy whose path the stored document cannot hold (an array where the derive expects a
    // subdocument): the fan-out's update fails, and with it the transaction it shares with the
    // source's update.
    let authors = AuthorRepo::new(&db);
    let author = Author {
        id: ObjectId::new(),
        name: "Scott".into(),
    };
    authors.insert(&author).await.unwrap();
    db.collection::<bson::Document>("books")
        .insert_one(
            doc! { "_id": ObjectId::new(), "author": [ { "id": author.id, "name": "Scott" } ] },
        )
        .await
        .unwrap();
    let path = authors.set_name(&author.id, "F. Scott").await.unwrap_err();
    assert_eq!(path.server_code(), Some(28));
    let text = path.to_string();
    assert_readable(&text);
    assert!(text.starts_with("update on `books` failed: "), "{text}");
    assert!(text.contains("server code 28 PathNotViable"), "{text}");
    assert!(
        text.ends_with("the transaction was aborted, nothing of it was written"),
        "{text}"
    );
    assert_eq!(
        authors.get(&author.id).await.unwrap().unwrap().name,
        "Scott",
        "the aborted transaction wrote the source"
    );
    match &path {
        Error::Driver(d) => {
            assert_eq!(d.operation(), Some("update"));
            assert_eq!(d.collection(), Some("books"));
            assert!(d.aborted_transaction());
            assert_eq!(d.code(), Some(28));
        }
        other => panic!("expected a driver error, got {other:?}"),
    }

    // A driver error converted outside the repositories has no context, and still reads well.
    let raw: Error = db
        .collection::<bson::Document>("things")
        .update_many(doc! {}, doc! { "$set": { "lines.$[e].x": 1 } })
        .await
        .unwrap_err()
        .into();
    let text = raw.to_string();
    assert_readable(&text);
    assert!(text.starts_with("MongoDB operation failed: "), "{text}");
    assert!(text.contains("array filter"), "{text}");
    assert!(text.contains("server code 2 BadValue"), "{text}");
    db.drop().await.unwrap();
}

/// A server nobody answers at, as the driver reports it: in words, each address with what it
/// met, never the driver's description of the topology (`Topology: { Type: Unknown, Servers:
/// [ { Address: ...`), which the CLI printed as it was.
#[tokio::test]
async fn an_unreachable_server_is_said_in_words() {
    for (uri, addresses) in [
        (
            "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300",
            &["127.0.0.1:1"][..],
        ),
        (
            "mongodb://127.0.0.1:1,127.0.0.1:2/?serverSelectionTimeoutMS=300",
            &["127.0.0.1:1", "127.0.0.1:2"][..],
        ),
        (
            "mongodb://127.0.0.1:1/?directConnection=true&serverSelectionTimeoutMS=300",
            &["127.0.0.1:1"][..],
        ),
    ] {
        let client = squillion::__private::mongodb::Client::with_uri_str(uri)
            .await
            .expect("a valid uri");
        let error = client
            .database("x")
            .run_command(doc! { "ping": 1 })
            .await
            .expect_err("nobody listens on ports 1 and 2");
        let said = squillion::DriverError::new(error).reason();
        assert!(
            !said.contains(['{', '}', '[', ']']) && !said.contains("Topology"),
            "{uri}: {said}"
        );
        assert!(said.starts_with("no server answered"), "{uri}: {said}");
        for a in addresses {
            assert!(said.contains(&format!("{a}: ")), "{uri}: {said}");
        }
        assert!(said.contains("refused"), "{uri}: {said}");
    }
}
