//! Bounded embedding read whole (seed 003's one-to-few, rule 1): `Product.variants`, `few(20)`,
//! and `variants_in_stock on Product.variants` at 300/s. 200 products of 10 variants; the hot
//! read is a product's variants in stock (all of them).

use squillion::__private::bson::oid::ObjectId;
use squillion::__private::mongodb::{Client, Database};
use squillion::BoundedVec;

use crate::common::{h, Mix, Op, Variant};
use crate::measure::{workload, Outcome};
use crate::{db, products_child_ref, products_chosen, products_parent_refs};

const PRODUCTS: usize = 200;
const VARIANTS: usize = 10;

macro_rules! variant_of {
    ($m:ident, $k:expr $(, $f:ident: $v:expr)*) => {
        $m::Variant {
            color: ["red", "green", "blue", "black", "white"][$k % 5].into(),
            size: ["S", "M", "L", "XL"][$k % 4].into(),
            price: 10.0 + ($k % 7) as f64,
            stock: 1 + ($k % 9) as i32,
            $($f: $v,)*
        }
    };
}

macro_rules! product {
    ($m:ident, $id:expr, $p:expr $(, $f:ident: $v:expr)*) => {
        $m::Product {
            id: $id,
            sku: format!("SKU-{:06}", $p),
            name: format!("Organic cotton t-shirt {}", $p),
            description: "A soft, breathable shirt in organic cotton, cut for every day. ".repeat(5),
            $($f: $v,)*
        }
    };
}

fn which(i: usize, salt: u64) -> usize {
    h(i, salt) % PRODUCTS
}

struct Chosen {
    ids: Vec<ObjectId>,
    repo: products_chosen::ProductRepo,
}

impl Variant for Chosen {
    fn name(&self) -> &'static str {
        "embed (chosen)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/products_chosen.sqn")
    }
    async fn seed(&self) {
        self.repo.ensure_indexes().await.unwrap();
        let docs: Vec<_> = self
            .ids
            .iter()
            .enumerate()
            .map(|(p, id)| {
                let vs: Vec<_> = (0..VARIANTS)
                    .map(|k| variant_of!(products_chosen, k))
                    .collect();
                product!(products_chosen, *id, p, variants: BoundedVec::try_from(vs).unwrap())
            })
            .collect();
        self.repo.insert_many(&docs).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        if op == Op::Write {
            let id = self.ids[which(i, 21)];
            let v = variant_of!(products_chosen, i);
            self.repo.push_variants(&id, &v).await.unwrap();
            return 0;
        }
        let id = self.ids[which(i, 22)];
        self.repo.variants_in_stock(&id, &0).await.unwrap().len()
    }
}

struct ChildRef {
    ids: Vec<ObjectId>,
    repo: products_child_ref::ProductRepo,
    variants: products_child_ref::VariantRepo,
}

impl Variant for ChildRef {
    fn name(&self) -> &'static str {
        "child_ref (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/products_child_ref.sqn")
    }
    async fn seed(&self) {
        self.repo.ensure_indexes().await.unwrap();
        self.variants.ensure_indexes().await.unwrap();
        let mut docs = Vec::new();
        let mut vs = Vec::new();
        for (p, id) in self.ids.iter().enumerate() {
            docs.push(product!(products_child_ref, *id, p));
            vs.extend(
                (0..VARIANTS)
                    .map(|k| variant_of!(products_child_ref, k, id: ObjectId::new(), product: *id)),
            );
        }
        self.repo.insert_many(&docs).await.unwrap();
        self.variants.insert_many(&vs).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        if op == Op::Write {
            let id = self.ids[which(i, 21)];
            let v = variant_of!(products_child_ref, i, id: ObjectId::new(), product: id);
            self.variants.insert(&v).await.unwrap();
            return 0;
        }
        let id = self.ids[which(i, 22)];
        self.variants
            .variants_in_stock(&id, &0)
            .await
            .unwrap()
            .len()
    }
}

struct ParentRefs {
    ids: Vec<ObjectId>,
    repo: products_parent_refs::ProductRepo,
    variants: products_parent_refs::VariantRepo,
}

impl Variant for ParentRefs {
    fn name(&self) -> &'static str {
        "parent_refs (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/products_parent_refs.sqn")
    }
    async fn seed(&self) {
        self.repo.ensure_indexes().await.unwrap();
        let mut docs = Vec::new();
        let mut vs = Vec::new();
        for (p, id) in self.ids.iter().enumerate() {
            let these: Vec<_> = (0..VARIANTS)
                .map(|k| variant_of!(products_parent_refs, k, id: ObjectId::new()))
                .collect();
            let refs: Vec<ObjectId> = these.iter().map(|v| v.id).collect();
            docs.push(product!(products_parent_refs, *id, p, variants: BoundedVec::try_from(refs).unwrap()));
            vs.extend(these);
        }
        self.repo.insert_many(&docs).await.unwrap();
        self.variants.insert_many(&vs).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        if op == Op::Write {
            let id = self.ids[which(i, 21)];
            let v = variant_of!(products_parent_refs, i, id: ObjectId::new());
            self.variants.insert(&v).await.unwrap();
            self.repo.add_variants(&id, &v.id).await.unwrap();
            return 0;
        }
        // No generated query (W119): the product, then its variants by id (`load_variants`).
        let id = self.ids[which(i, 22)];
        let p = self.repo.get(&id).await.unwrap().unwrap();
        let vs = self.repo.load_variants(&p).await.unwrap();
        vs.iter().filter(|v| v.stock >= 0).count()
    }
}

pub async fn run(client: &Client, ops: usize, rounds: usize, dbs: &mut Vec<Database>) -> Outcome {
    let ids: Vec<ObjectId> = (0..PRODUCTS).map(|_| ObjectId::new()).collect();
    let d: Vec<Database> = (0..3)
        .map(|k| db(client, &format!("products{k}")))
        .collect();
    dbs.extend(d.iter().cloned());
    let chosen = Chosen {
        ids: ids.clone(),
        repo: products_chosen::ProductRepo::new(&d[0]),
    };
    let child_ref = ChildRef {
        ids: ids.clone(),
        repo: products_child_ref::ProductRepo::new(&d[1]),
        variants: products_child_ref::VariantRepo::new(&d[1]),
    };
    let parent_refs = ParentRefs {
        ids: ids.clone(),
        repo: products_parent_refs::ProductRepo::new(&d[2]),
        variants: products_parent_refs::VariantRepo::new(&d[2]),
    };
    // The Plan's workload: `variants_in_stock` 300/s, a variant added per ten reads.
    let w = workload(chosen.schema(), "Product.variants");
    let mix = Mix::new(&[(Op::Hot, w.list_reads), (Op::Write, w.appends)]);
    let rows = crate::drive!(&mix, ops, rounds; chosen, child_ref, parent_refs);
    Outcome {
        schema: rows[0].schema.clone(),
        title: "Products (seed 003): Product.variants, few(20), read whole 300/s".into(),
        relation: "Product.variants",
        mix: mix.describe(&|op| {
            if op == Op::Hot {
                "variants read"
            } else {
                "variant added"
            }
        }),
        rows,
    }
}
