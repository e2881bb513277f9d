//! Blog (seed 003, `examples/blog.sqn`): `BlogPost.comments`, `page 50 by created_on asc`,
//! `growth append_heavy`. 20 posts of 200 comments; the hot read is one page of 50 comments.

use squillion::__private::bson::{doc, oid::ObjectId, DateTime, Document as BsonDocument};
use squillion::__private::mongodb::{Client, Collection, Database};
use squillion::BoundedVec;

use crate::common::{h, old_id, Mix, Op, Variant};
use crate::measure::{workload, Outcome};
use crate::{blog_all_refs, blog_chosen, blog_embed, blog_parent_refs, db};

const POSTS: usize = 20;
const COMMENTS_PER_POST: usize = 200;
const COMMENT_PAGE: usize = 50;

fn post_ids() -> Vec<ObjectId> {
    (0..POSTS).map(|_| ObjectId::new()).collect()
}

fn comment_time(k: usize) -> DateTime {
    DateTime::from_millis(1_700_000_000_000 + k as i64 * 1_000)
}

/// The post and page read by operation `i`: pages of the seeded comments.
fn blog_target(i: usize) -> (usize, usize) {
    (
        h(i, 1) % POSTS,
        h(i, 2) % (COMMENTS_PER_POST / COMMENT_PAGE),
    )
}

macro_rules! blog_post {
    ($m:ident, $id:expr $(, $f:ident: $v:expr)*) => {
        $m::BlogPost {
            id: $id,
            title: "An awesome blog".into(),
            url: "http://awesomeblog.com".into(),
            text: "This is an awesome blog we have just started".into(),
            $($f: $v,)*
        }
    };
}

macro_rules! comment {
    ($m:ident, $k:expr $(, $f:ident: $v:expr)*) => {
        $m::Comment {
            name: format!("Peter Critic {}", $k),
            created_on: comment_time($k),
            comment: "Awesome blog post, with a few more words to make it a realistic comment.".into(),
            $($f: $v,)*
        }
    };
}

struct BlogChosen {
    posts: Vec<ObjectId>,
    post_repo: blog_chosen::BlogPostRepo,
    buckets: blog_chosen::BlogPostCommentsBucketRepo,
}

impl Variant for BlogChosen {
    fn name(&self) -> &'static str {
        // The harness marks whichever variant the Plan chooses under each mix.
        "bucket(50)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/blog_chosen.sqn")
    }
    async fn seed(&self) {
        self.buckets.ensure_indexes().await.unwrap();
        let posts: Vec<_> = self
            .posts
            .iter()
            .map(|id| blog_post!(blog_chosen, *id))
            .collect();
        self.post_repo.insert_many(&posts).await.unwrap();
        let mut buckets = Vec::new();
        for p in &self.posts {
            for b in 0..COMMENTS_PER_POST / COMMENT_PAGE {
                let comments: Vec<_> = (0..COMMENT_PAGE)
                    .map(|k| comment!(blog_chosen, b * COMMENT_PAGE + k))
                    .collect();
                buckets.push(blog_chosen::BlogPostCommentsBucket {
                    id: old_id(),
                    blog_entry_id: *p,
                    comments: BoundedVec::try_from(comments).unwrap(),
                    count: COMMENT_PAGE as i32,
                });
            }
        }
        self.buckets.insert_many(&buckets).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let (p, page) = blog_target(i);
        if op == Op::Write {
            let c = comment!(blog_chosen, COMMENTS_PER_POST + i);
            self.buckets
                .append_comments(&self.posts[p], &c)
                .await
                .unwrap();
            return 0;
        }
        let bucket = self
            .buckets
            .comments_bucket(&self.posts[p], page as u64)
            .await
            .unwrap()
            .unwrap();
        bucket.comments.len()
    }
}

struct BlogAllRefs {
    posts: Vec<ObjectId>,
    post_repo: blog_all_refs::BlogPostRepo,
    comments: blog_all_refs::CommentRepo,
}

impl Variant for BlogAllRefs {
    fn name(&self) -> &'static str {
        "child_ref (all references)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/blog_all_refs.sqn")
    }
    async fn seed(&self) {
        self.comments.ensure_indexes().await.unwrap();
        let posts: Vec<_> = self
            .posts
            .iter()
            .map(|id| blog_post!(blog_all_refs, *id))
            .collect();
        self.post_repo.insert_many(&posts).await.unwrap();
        let mut all = Vec::new();
        for p in &self.posts {
            for k in 0..COMMENTS_PER_POST {
                all.push(comment!(blog_all_refs, k, id: old_id(), blog_entry_id: *p));
            }
        }
        self.comments.insert_many(&all).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        // The first page: the keyset `find_by_` starts from a cursor, not a page number.
        let (p, _) = blog_target(i);
        if op == Op::Write {
            let c = comment!(blog_all_refs, COMMENTS_PER_POST + i,
                id: ObjectId::new(), blog_entry_id: self.posts[p]);
            self.comments.insert(&c).await.unwrap();
            return 0;
        }
        let page = self
            .comments
            .find_by_blog_entry_id(&self.posts[p], None, COMMENT_PAGE as u32)
            .await
            .unwrap();
        page.items.len()
    }
}

struct BlogEmbed {
    posts: Vec<ObjectId>,
    post_repo: blog_embed::BlogPostRepo,
    raw: Collection<BsonDocument>,
}

impl Variant for BlogEmbed {
    fn name(&self) -> &'static str {
        "embed (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/blog_embed.sqn")
    }
    async fn seed(&self) {
        let posts: Vec<_> = self
            .posts
            .iter()
            .map(|id| {
                blog_post!(blog_embed, *id, comments:
                    (0..COMMENTS_PER_POST).map(|k| comment!(blog_embed, k)).collect())
            })
            .collect();
        self.post_repo.insert_many(&posts).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let (p, page) = blog_target(i);
        if op == Op::Write {
            // No repository method: the forced embed of an unbounded relation is a plain `Vec`
            // without a layout attribute. Plain driver `$push`.
            let c =
                squillion::__private::bson::to_bson(&comment!(blog_embed, COMMENTS_PER_POST + i))
                    .unwrap();
            self.raw
                .update_one(
                    doc! { "_id": self.posts[p] },
                    doc! { "$push": { "comments": c } },
                )
                .await
                .unwrap();
            return 0;
        }
        // The whole post through the repository; the page is cut out in the application.
        let post = self.post_repo.get(&self.posts[p]).await.unwrap().unwrap();
        post.comments
            .iter()
            .skip(page * COMMENT_PAGE)
            .take(COMMENT_PAGE)
            .count()
    }
}

struct BlogParentRefs {
    posts: Vec<ObjectId>,
    post_repo: blog_parent_refs::BlogPostRepo,
    comments: blog_parent_refs::CommentRepo,
    raw_posts: Collection<BsonDocument>,
}

impl Variant for BlogParentRefs {
    fn name(&self) -> &'static str {
        "parent_refs (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/blog_parent_refs.sqn")
    }
    async fn seed(&self) {
        let mut posts = Vec::new();
        let mut all = Vec::new();
        for p in &self.posts {
            let cs: Vec<_> = (0..COMMENTS_PER_POST)
                .map(|k| comment!(blog_parent_refs, k, id: ObjectId::new()))
                .collect();
            posts.push(
                blog_post!(blog_parent_refs, *p, comments: cs.iter().map(|c| c.id).collect()),
            );
            all.extend(cs);
        }
        self.post_repo.insert_many(&posts).await.unwrap();
        self.comments.insert_many(&all).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let (p, page) = blog_target(i);
        if op == Op::Write {
            // The comment through the repository; the id is added with a plain driver `$push`
            // (the forced, unbounded id array has no layout attribute, so no `add_comments`).
            let c = comment!(blog_parent_refs, COMMENTS_PER_POST + i, id: ObjectId::new());
            self.comments.insert(&c).await.unwrap();
            self.raw_posts
                .update_one(
                    doc! { "_id": self.posts[p] },
                    doc! { "$push": { "comments": c.id } },
                )
                .await
                .unwrap();
            return 0;
        }
        // The post, then the page's ids with `find({_id: {$in: ..}})`, both through repositories.
        let post = self.post_repo.get(&self.posts[p]).await.unwrap().unwrap();
        let ids: Vec<ObjectId> = post
            .comments
            .iter()
            .skip(page * COMMENT_PAGE)
            .take(COMMENT_PAGE)
            .copied()
            .collect();
        let mut cs = self
            .comments
            .find(doc! { "_id": { "$in": ids } })
            .await
            .unwrap();
        cs.sort_by_key(|c| c.created_on);
        cs.len()
    }
}

/// The mixes: the schema's own (no rates declared: the rules decide, and the Plan's defaults
/// are one page read to ten comments added), then two declared workloads (`with_rates`), under
/// which the cost model decides: pages read 100 a second and comments added 2 a second, and
/// the reverse proportion, 2 page reads to 30 comments a second.
const MIXES: [Option<(u32, u32)>; 3] = [None, Some((100, 2)), Some((2, 30))];

/// A variant's schema with a declared workload: page reads `reads`/s (a query on the post's
/// comments), comments added `adds`/s (`growth ... rate`) and the comments a post has, as the
/// benchmark seeds them (`typical 200`). The generated code is the same (no rate or typical
/// count changes an operation the workload calls); only the Plan's costs and choice differ.
fn with_rates(schema: &str, rates: Option<(u32, u32)>) -> String {
    let Some((reads, adds)) = rates else {
        return schema.to_owned();
    };
    let mut s = schema
        .replacen(
            "growth append_heavy, unbounded\n",
            &format!("growth append_heavy, unbounded rate {adds}/s\n"),
            1,
        )
        .replacen(
            "squillions <->",
            &format!("squillions(typical {COMMENTS_PER_POST}) <->"),
            1,
        );
    assert!(
        s.contains(" rate ") && s.contains("typical"),
        "the blog schemas declare `squillions` and `growth append_heavy, unbounded`"
    );
    s.push_str(&format!(
        "\n/// A page of comments, {reads} a second.\nquery comment_page on BlogPost.comments {{\n  rate {reads}/s\n}}\n"
    ));
    s
}

/// A variant's schema with its layout forced: the buckets' schema leaves the choice to the
/// engine, which under a declared workload may choose otherwise, and the row measures buckets.
fn forced(schema: &str) -> String {
    if schema.contains("  force ") {
        return schema.to_owned();
    }
    let page = format!("page {COMMENT_PAGE} by created_on asc\n");
    let s = schema.replacen(&page, &format!("{page}  force bucket({COMMENT_PAGE})\n"), 1);
    assert_ne!(s, schema, "the blog schemas page by created_on");
    s
}

pub async fn run(
    client: &Client,
    ops: usize,
    rounds: usize,
    dbs: &mut Vec<Database>,
) -> Vec<Outcome> {
    let posts = post_ids();
    let d: Vec<Database> = (0..4).map(|k| db(client, &format!("blog{k}"))).collect();
    dbs.extend(d.iter().cloned());
    let chosen = BlogChosen {
        posts: posts.clone(),
        post_repo: blog_chosen::BlogPostRepo::new(&d[0]),
        buckets: blog_chosen::BlogPostCommentsBucketRepo::new(&d[0]),
    };
    let embed = BlogEmbed {
        posts: posts.clone(),
        post_repo: blog_embed::BlogPostRepo::new(&d[1]),
        raw: d[1].collection("blog_posts"),
    };
    let parent_refs = BlogParentRefs {
        posts: posts.clone(),
        post_repo: blog_parent_refs::BlogPostRepo::new(&d[2]),
        comments: blog_parent_refs::CommentRepo::new(&d[2]),
        raw_posts: d[2].collection("blog_posts"),
    };
    let all_refs = BlogAllRefs {
        posts: posts.clone(),
        post_repo: blog_all_refs::BlogPostRepo::new(&d[3]),
        comments: blog_all_refs::CommentRepo::new(&d[3]),
    };
    chosen.seed().await;
    embed.seed().await;
    parent_refs.seed().await;
    all_refs.seed().await;
    let mut out = Vec::new();
    for (k, rates) in MIXES.into_iter().enumerate() {
        let schema = with_rates(chosen.schema(), rates);
        let w = workload(&schema, "BlogPost.comments");
        let mix = Mix::new(&[(Op::Hot, w.list_reads), (Op::Write, w.appends)]);
        // Later mixes continue the write sequence: appends never collide.
        let mut rows =
            crate::measure!(&mix, ops, rounds, k * rounds; chosen, embed, parent_refs, all_refs);
        for r in &mut rows {
            r.schema = with_rates(&forced(&r.schema), rates);
        }
        let title = match rates {
            None => "Blog (seed 003): BlogPost.comments, pages of 50, append-heavy, no rates declared".to_owned(),
            Some((reads, adds)) => format!(
                "Blog, declared: BlogPost.comments, pages of 50, {reads} page reads and {adds} comments added a second"
            ),
        };
        out.push(Outcome {
            schema,
            title,
            relation: "BlogPost.comments",
            mix: mix.describe(&|op| {
                if op == Op::Hot {
                    "page read"
                } else {
                    "comment added"
                }
            }),
            rows,
        });
    }
    out
}
