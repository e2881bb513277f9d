#!/usr/bin/env bash
# Cold build of a small application using squillion (runtime + derive) against the same
# application written with serde + mongodb only (issue 12: at most 1.2x).
#   scripts/cold-build.sh [reps]     (default 1 rep each, alternating; results on stdout)
# Each build runs in a fresh temporary crate with its own empty target directory, `nice`d, offline
# against the registry cache, with the workspace's Cargo.lock (the same dependency versions).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
reps="${1:-1}"
work="$(mktemp -d "${TMPDIR:-/tmp}/squillion-cold.XXXXXX")"
trap 'rm -rf "$work"' EXIT

model='#[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    pub price: i64,
    pub tags: Vec<String>,'

mkcrate() { # name deps body
  mkdir -p "$work/$1/src"
  printf '[package]\nname = "%s"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n%s\n\n[workspace]\n' "$1" "$2" >"$work/$1/Cargo.toml"
  printf '%s\n' "$3" >"$work/$1/src/lib.rs"
  cp "$root/Cargo.lock" "$work/$1/Cargo.lock"
}

mkcrate with_squillion "squillion = { path = \"$root\" }
serde = { version = \"1\", features = [\"derive\"] }" "//! A book shop using squillion's derived repository.
use squillion::bson::oid::ObjectId;

#[derive(serde::Serialize, serde::Deserialize, squillion::Document)]
#[squillion(collection = \"books\")]
pub struct Book {
    #[squillion(id)]
    $model
}

pub async fn add(db: &squillion::mongodb::Database, book: &Book) -> squillion::Result<Option<Book>> {
    let books = BookRepo::new(db);
    books.insert(book).await?;
    books.get(&book.id).await
}"

mkcrate serde_mongodb "mongodb = \"3\"
serde = { version = \"1\", features = [\"derive\"] }" "//! The same book shop with the driver only.
use mongodb::bson::{doc, oid::ObjectId};

#[derive(serde::Serialize, serde::Deserialize)]
pub struct Book {
    $model
}

pub async fn add(db: &mongodb::Database, book: &Book) -> mongodb::error::Result<Option<Book>> {
    let books = db.collection::<Book>(\"books\");
    books.insert_one(book).await?;
    books.find_one(doc! { \"_id\": book.id }).await
}"

build() { # crate -> "wall cpu" seconds; cpu is user + system time of cargo and every rustc
  local dir="$work/$1"
  rm -rf "$dir/target"
  local start end
  start=$(date +%s.%N)
  (cd "$dir" && nice -n 10 /usr/bin/time -f "%U %S" -o "$dir/cpu" \
    cargo build --offline --quiet --target-dir "$dir/target")
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc) $(awk '{print $1 + $2}' "$dir/cpu")"
}

# On a shared machine the wall times swing with the load; the CPU times (what the compilers
# did, summed over processes) hardly do, so the ratio of CPU times is the one to report.
for i in $(seq 1 "$reps"); do
  read -r wa ca <<<"$(build serde_mongodb)"
  read -r wb cb <<<"$(build with_squillion)"
  crates_a=$(cd "$work/serde_mongodb" && cargo tree --offline -e normal,build --prefix none | sort -u | wc -l)
  crates_b=$(cd "$work/with_squillion" && cargo tree --offline -e normal,build --prefix none | sort -u | wc -l)
  echo "rep $i: serde+mongodb wall ${wa}s cpu ${ca}s ($crates_a crates); squillion wall ${wb}s cpu ${cb}s ($crates_b crates); cpu ratio $(echo "scale=2; $cb / $ca" | bc), wall ratio $(echo "scale=2; $wb / $wa" | bc), load $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "not in squillion's graph:"
(cd "$work/with_squillion" && cargo tree --offline -e normal,build --prefix none | grep -E '^(minijinja|layout-rs|schemars|squillion-codegen|squillion-grammar|pest) ' | sort -u || true)
