use serde::{Deserialize, Serialize};
use squillion::bson::oid::ObjectId;

#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "feeds")]
pub struct Feed {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    #[squillion(maintained)]
    pub posts_count: i32,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Post {
    pub likes: i32,
}

/// A summary with no path, one with no function, one with an unknown option.
#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "feed_posts")]
pub struct FeedPosts {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub feed: ObjectId,
    #[squillion(bucket(
        size = 5,
        key = feed,
        owner = Feed,
        summary(count),
        summary(path = "posts_total"),
        summary(path = "posts_avg", avg = "likes")
    ))]
    pub posts: Vec<Post>,
    pub count: i32,
}

/// Summaries on the owner need the owner.
#[derive(Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "feed_posts_2")]
pub struct Ownerless {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub feed: ObjectId,
    #[squillion(bucket(size = 5, key = feed, summary(path = "posts_count", count)))]
    pub posts: Vec<Post>,
    pub count: i32,
}

fn main() {}
