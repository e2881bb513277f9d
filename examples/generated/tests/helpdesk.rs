//! A day of the helpdesk (`examples/generated/schemas/helpdesk.sqn`, written from the docs alone)
//! against the server, through the generated repositories only: every answer is compared with a
//! model kept in memory by the test.
//!
//! - an agent's queue (`my_queue`: assigned, status in a set, most recently updated first) and
//!   the triage list (`triage`, `limit 50`, priority as the server sorts the texts: W0501);
//! - renaming an agent or a customer reaches every copy in the tickets (fan-out);
//! - a ticket's thread: messages with and without an author, embedded up to 200, the rest in
//!   overflow documents, read back whole and in order;
//! - the audit trail appended into buckets while the ticket keeps its latest 5 events;
//! - a customer found by e-mail whatever its case; an optional rating set later.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test helpdesk`.

use squillion::bson::oid::ObjectId;
use squillion::bson::DateTime;
use squillion_examples_generated::helpdesk::{
    Agent, AgentFollowing, AgentRef, AgentRepo, AgentRole, Customer, CustomerRef, CustomerRepo,
    Event, Message, Organization, OrganizationPlan, OrganizationRepo, Rating, Ticket,
    TicketEventsBucketRepo, TicketPriority, TicketRepo, TicketStatus,
};
use squillion_testkit::TestDb;

const STATUSES: [TicketStatus; 5] = [
    TicketStatus::New,
    TicketStatus::Open,
    TicketStatus::Pending,
    TicketStatus::Solved,
    TicketStatus::Closed,
];
const PRIORITIES: [TicketPriority; 4] = [
    TicketPriority::Low,
    TicketPriority::Normal,
    TicketPriority::High,
    TicketPriority::Urgent,
];

/// A small deterministic generator (the test's data varies with the seed, not with the clock).
struct Draw(u64);

impl Draw {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn at(minutes: i64) -> DateTime {
    DateTime::from_millis(1_790_000_000_000 + minutes * 60_000)
}

#[tokio::test]
async fn a_day_at_the_helpdesk() {
    let t = TestDb::new("helpdesk").await;
    let orgs = OrganizationRepo::new(&t.db);
    let agents = AgentRepo::new(&t.db);
    let customers = CustomerRepo::new(&t.db);
    let tickets = TicketRepo::new(&t.db);
    let events = TicketEventsBucketRepo::new(&t.db);
    for result in [
        orgs.ensure_indexes().await,
        agents.ensure_indexes().await,
        customers.ensure_indexes().await,
        tickets.ensure_indexes().await,
        events.ensure_indexes().await,
    ] {
        result.unwrap();
    }
    tickets.ensure_validator().await.unwrap();
    customers.ensure_validator().await.unwrap();

    let org = Organization {
        id: ObjectId::new(),
        name: "Acme".into(),
        subdomain: "acme".into(),
        plan: OrganizationPlan::Team,
        agents: Default::default(),
        macros: Vec::new().try_into().unwrap(),
    };
    orgs.insert(&org).await.unwrap();
    let mut staff = Vec::new();
    for i in 0..4 {
        let a = Agent {
            id: ObjectId::new(),
            email: format!("Agent{i}@Acme.test"),
            name: format!("Agent {i}"),
            role: if i == 0 {
                AgentRole::Admin
            } else {
                AgentRole::Agent
            },
            active: true,
            following: Default::default(),
        };
        agents.insert(&a).await.unwrap();
        orgs.add_agents(&org.id, &a.id).await.unwrap();
        staff.push(a);
    }
    let org = orgs.get(&org.id).await.unwrap().unwrap();
    let listed = orgs.load_agents(&org).await.unwrap();
    assert_eq!(listed.len(), staff.len());

    let mut people = Vec::new();
    for i in 0..6 {
        let c = Customer {
            id: ObjectId::new(),
            email: format!("Customer{i}@Example.test"),
            name: format!("Customer {i}"),
            phone: (i % 2 == 0).then(|| format!("+1 555 010{i}")),
            org: org.id,
        };
        customers.insert(&c).await.unwrap();
        people.push(c);
    }
    // Found whatever the case of the address in the e-mail that arrives.
    let found = customers
        .customer_by_email(&org.id, "customer3@EXAMPLE.TEST")
        .await
        .unwrap()
        .expect("customer 3 by a differently cased e-mail");
    assert_eq!(found.id, people[3].id);

    // 60 tickets over the day, drawn.
    let mut draw = Draw(7);
    let mut model: Vec<Ticket> = Vec::new();
    for i in 0..60 {
        let requester = &people[draw.next(people.len())];
        let assignee = (draw.next(4) != 0).then(|| &staff[draw.next(staff.len())]);
        let ticket = Ticket {
            id: ObjectId::new(),
            subject: format!("ticket {i}"),
            status: STATUSES[draw.next(STATUSES.len())],
            priority: PRIORITIES[draw.next(PRIORITIES.len())],
            tags: vec![format!("t{}", draw.next(3))].try_into().unwrap(),
            created_at: at(i),
            updated_at: at(i + draw.next(500) as i64),
            requester: CustomerRef {
                id: requester.id,
                name: requester.name.clone(),
                email: requester.email.clone(),
            },
            org: org.id,
            assignee: assignee.map(|a| AgentRef {
                id: a.id,
                name: a.name.clone(),
            }),
            messages: Vec::new(),
            messages_overflow: None,
            events: Default::default(),
            rating: None,
        };
        tickets.insert(&ticket).await.unwrap();
        model.push(ticket);
    }

    // Each agent's queue: open or pending, assigned to them, most recently updated first.
    let wanted = [TicketStatus::Open, TicketStatus::Pending];
    for a in &staff {
        let mut expected: Vec<&Ticket> = model
            .iter()
            .filter(|t| t.assignee.as_ref().is_some_and(|r| r.id == a.id))
            .filter(|t| wanted.contains(&t.status))
            .collect();
        expected.sort_by(|x, y| y.updated_at.cmp(&x.updated_at).then(x.id.cmp(&y.id)));
        let got = tickets.my_queue(&a.id, &wanted).await.unwrap();
        let ids = |v: &[&Ticket]| v.iter().map(|t| t.id).collect::<Vec<_>>();
        assert_eq!(got.iter().map(|t| t.id).collect::<Vec<_>>(), ids(&expected));
        assert_eq!(
            tickets.count_my_queue(&a.id, &wanted).await.unwrap(),
            expected.len() as u64
        );
    }

    // Triage: the server orders the priorities by their text (W0501 says so).
    for status in &STATUSES {
        let mut expected: Vec<&Ticket> = model.iter().filter(|t| &t.status == status).collect();
        expected.sort_by(|x, y| {
            y.priority
                .as_str()
                .cmp(x.priority.as_str())
                .then(x.created_at.cmp(&y.created_at))
                .then(x.id.cmp(&y.id))
        });
        expected.truncate(50);
        let got = tickets.triage(&org.id, status).await.unwrap();
        assert_eq!(
            got.iter().map(|t| t.id).collect::<Vec<_>>(),
            expected.iter().map(|t| t.id).collect::<Vec<_>>()
        );
    }

    // Renames reach every copy.
    agents.set_name(&staff[1].id, "Agent One").await.unwrap();
    customers
        .set_name(&people[2].id, "Customer Two")
        .await
        .unwrap();
    for t in tickets.find(squillion::bson::doc! {}).await.unwrap() {
        let before = model.iter().find(|m| m.id == t.id).unwrap();
        if let Some(a) = &t.assignee {
            let name = if a.id == staff[1].id {
                "Agent One".to_owned()
            } else {
                before.assignee.as_ref().unwrap().name.clone()
            };
            assert_eq!(a.name, name, "ticket {}", t.subject);
        }
        let name = if t.requester.id == people[2].id {
            "Customer Two"
        } else {
            before.requester.name.as_str()
        };
        assert_eq!(t.requester.name, name, "ticket {}", t.subject);
    }

    // A long thread: 230 messages, every third without an author; 200 stay in the ticket.
    let thread = &model[0];
    let mut written = Vec::new();
    for i in 0..230 {
        let m = Message {
            body: format!("message {i}"),
            sent_at: at(1_000 + i),
            public: i % 4 != 0,
            author: (i % 3 != 0).then(|| staff[i as usize % staff.len()].id),
        };
        tickets.push_messages(&thread.id, &m).await.unwrap();
        written.push(m);
    }
    let stored = tickets.get(&thread.id).await.unwrap().unwrap();
    assert_eq!(stored.messages.len(), 200);
    assert_eq!(stored.messages_overflow, Some(true));
    assert_eq!(tickets.all_messages(&thread.id).await.unwrap(), written);
    let whole = tickets
        .get_with_messages(&thread.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(whole.messages, written);
    // A short thread stays whole in its ticket, with no flag.
    let short = &model[1];
    let reply = Message {
        body: "thanks".into(),
        sent_at: at(2_000),
        public: true,
        author: None,
    };
    tickets.push_messages(&short.id, &reply).await.unwrap();
    let stored = tickets.get(&short.id).await.unwrap().unwrap();
    assert_eq!(stored.messages, vec![reply]);
    assert_eq!(stored.messages_overflow, None);

    // The audit trail: 12 events in buckets; the ticket keeps the latest 5, newest first.
    let mut trail = Vec::new();
    for i in 0..12 {
        let e = Event {
            at: at(3_000 + (i * 7) % 12),
            kind: format!("kind {i}"),
            detail: format!("detail {i}"),
        };
        events.append_events(&thread.id, &e).await.unwrap();
        trail.push(e);
    }
    let kept = tickets.get(&thread.id).await.unwrap().unwrap().events;
    let mut newest: Vec<&Event> = trail.iter().collect();
    newest.sort_by_key(|e| std::cmp::Reverse(e.at));
    assert_eq!(
        kept.iter()
            .map(|e| (e.at, e.kind.clone()))
            .collect::<Vec<_>>(),
        newest[..5]
            .iter()
            .map(|e| (e.at, e.kind.clone()))
            .collect::<Vec<_>>()
    );
    // The buckets overlapping a range hold every event in it.
    let between: Vec<Event> = events
        .events_between(&thread.id, &at(3_000), &at(3_005))
        .await
        .unwrap()
        .into_iter()
        .flat_map(|b| b.events.into_iter())
        .filter(|e| e.at >= at(3_000) && e.at <= at(3_005))
        .collect();
    let expected = trail
        .iter()
        .filter(|e| e.at >= at(3_000) && e.at <= at(3_005))
        .count();
    assert_eq!(between.len(), expected);
    assert!(expected > 0);

    // Following tickets: a ticket once per agent (a relationship is a set of pairs), found
    // back from the ticket's side through the multikey index.
    let follow = |t: &Ticket, minutes: i64| AgentFollowing {
        id: t.id,
        since: at(minutes),
    };
    agents
        .push_following(&staff[2].id, &follow(&model[3], 10))
        .await
        .unwrap();
    agents
        .push_following(&staff[2].id, &follow(&model[4], 11))
        .await
        .unwrap();
    let again = agents
        .push_following(&staff[2].id, &follow(&model[3], 12))
        .await
        .unwrap_err();
    assert!(again.is_duplicate_key(), "{again}");
    agents
        .push_following(&staff[3].id, &follow(&model[3], 13))
        .await
        .unwrap();
    let followed = agents.get(&staff[2].id).await.unwrap().unwrap().following;
    assert_eq!(
        followed.iter().map(|f| (f.id, f.since)).collect::<Vec<_>>(),
        vec![(model[3].id, at(10)), (model[4].id, at(11))]
    );
    let followers = agents
        .find(squillion::bson::doc! { "following.id": model[3].id })
        .await
        .unwrap();
    let mut names: Vec<String> = followers.into_iter().map(|a| a.name).collect();
    names.sort();
    assert_eq!(names, vec!["Agent 2".to_owned(), "Agent 3".to_owned()]);

    // A rating, later.
    let rating = Rating {
        score: 4,
        comment: Some("quick".into()),
    };
    let rating = Some(rating);
    tickets.set_rating(&thread.id, &rating).await.unwrap();
    assert_eq!(
        tickets.get(&thread.id).await.unwrap().unwrap().rating,
        rating
    );
}
