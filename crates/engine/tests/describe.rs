//! `kafka-consumer-groups --describe --group demo` snapshots.
#![cfg(not(target_arch = "wasm32"))]

use expect_test::expect;
use offsetlab_engine::GroupConfig;
use offsetlab_engine::{Config, ConsumerId, Input, Sim, describe};

fn sim(config: Config) -> Sim {
    Sim::new(Config { seed: 11, ..config }).expect("valid")
}

#[test]
fn before_the_first_rebalance_the_group_is_rebalancing_with_no_rows() {
    let s = sim(Config::default());
    expect![[r#"
        Warning: Consumer group 'demo' is rebalancing.

    "#]]
    .assert_eq(&describe(&s));
}

#[test]
fn stable_group_before_any_commit_shows_dashes() {
    let mut s = sim(Config::default());
    s.handle_tick(1);
    expect![[r#"
        GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID                             HOST            CLIENT-ID
        demo            orders          0          -               0               -               c1-5d0325ef-59eb-4d3a-9f0d-81e2ed60b9ce /10.0.0.11      c1
        demo            orders          1          -               0               -               c1-5d0325ef-59eb-4d3a-9f0d-81e2ed60b9ce /10.0.0.11      c1
        demo            orders          2          -               0               -               c2-9a47871d-e169-4818-9aa2-c7d270d7eb80 /10.0.0.12      c2
    "#]]
    .assert_eq(&describe(&s));
}

#[test]
fn stable_group_mid_batch_lags_behind_the_cursor() {
    let mut s = sim(Config {
        groups: vec![GroupConfig { records_per_poll: 5, ..GroupConfig::default() }],
        ..Config::default()
    });
    s.handle_tick(1);
    s.handle_input(Input::Send { count: 12 }).unwrap();
    s.handle_tick(3);
    expect![[r#"
        GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID                             HOST            CLIENT-ID
        demo            orders          0          -               0               -               c1-5d0325ef-59eb-4d3a-9f0d-81e2ed60b9ce /10.0.0.11      c1
        demo            orders          1          -               6               -               c1-5d0325ef-59eb-4d3a-9f0d-81e2ed60b9ce /10.0.0.11      c1
        demo            orders          2          -               6               -               c2-9a47871d-e169-4818-9aa2-c7d270d7eb80 /10.0.0.12      c2
    "#]].assert_eq(&describe(&s));
}

#[test]
fn crashed_member_keeps_rows_and_spares_get_none() {
    let mut s = sim(Config {
        partitions: 2,
        groups: vec![GroupConfig { consumers: 3, ..GroupConfig::default() }],
        ..Config::default()
    });
    s.handle_tick(1);
    s.handle_input(Input::Send { count: 6 }).unwrap();
    s.handle_tick(10);
    s.handle_input(Input::Crash { consumer: ConsumerId(2) }).unwrap();
    s.handle_tick(12);
    expect![[r#"
        GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID                             HOST            CLIENT-ID
        demo            orders          0          4               4               0               c1-5d0325ef-59eb-4d3a-9f0d-81e2ed60b9ce /10.0.0.11      c1
        demo            orders          1          2               2               0               c2-9a47871d-e169-4818-9aa2-c7d270d7eb80 /10.0.0.12      c2
    "#]].assert_eq(&describe(&s));
}

#[test]
fn empty_group_shows_committed_offsets_without_owners() {
    let mut s = sim(Config {
        partitions: 2,
        groups: vec![GroupConfig { consumers: 1, ..GroupConfig::default() }],
        ..Config::default()
    });
    s.handle_tick(1);
    s.handle_input(Input::Send { count: 6 }).unwrap();
    s.handle_tick(20);
    s.handle_input(Input::Stop { consumer: ConsumerId(1) }).unwrap();
    s.handle_tick(22);
    s.handle_input(Input::Send { count: 4 }).unwrap();
    expect![[r#"
        Consumer group 'demo' has no active members.

        GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID
        demo            orders          0          4               7               3               -               -               -
        demo            orders          1          2               3               1               -               -               -
    "#]].assert_eq(&describe(&s));
}

/// `kafka-share-groups --describe`: a share group of two on three partitions.
fn share_sim() -> Sim {
    sim(Config {
        groups: vec![GroupConfig {
            protocol: offsetlab_engine::GroupProtocol::Share,
            share_auto_offset_reset: offsetlab_engine::ShareAutoOffsetReset::Earliest,
            ..GroupConfig::default()
        }],
        ..Config::default()
    })
}

#[test]
fn share_group_offsets_trail_by_one_write_and_show_dashes_before_any() {
    let never = sim(Config {
        groups: vec![GroupConfig {
            consumers: 0,
            protocol: offsetlab_engine::GroupProtocol::Share,
            ..GroupConfig::default()
        }],
        ..Config::default()
    });
    assert_eq!(
        offsetlab_engine::describe_offsets(&never, 0, false),
        "Share group 'demo' has no offset information.\n",
        "a group that never had a member"
    );
    let mut s = share_sim();
    s.handle_input(Input::Send { count: 9 }).expect("accepted");
    s.handle_tick(3);
    expect![[r#"
        GROUP           TOPIC           PARTITION  START-OFFSET  LAG
        demo            orders          0          -             -
        demo            orders          1          -             -
        demo            orders          2          -             -
    "#]]
    .assert_eq(&offsetlab_engine::describe_offsets(&s, 0, false));
    s.handle_tick(30);
    expect![[r#"
        GROUP           TOPIC           PARTITION  LEADER-EPOCH  START-OFFSET  LAG
        demo            orders          0          -             -             -
        demo            orders          1          0             3             0
        demo            orders          2          0             4             0
    "#]]
    .assert_eq(&offsetlab_engine::describe_offsets(&s, 0, true));
}

#[test]
fn share_group_members_and_state() {
    let mut s = share_sim();
    s.handle_tick(2);
    expect![[r#"
        GROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS  ASSIGNMENT
        demo            XQMl71nrTTqfDYHi7WC5zg /10.0.0.11      c1              1            orders:1
        demo            mkeHHeFpSBiaosfScNfrgA /10.0.0.12      c2              2            orders:0,2
    "#]]
    .assert_eq(&offsetlab_engine::describe_members(&s, 0, false));
    expect![[r#"
        GROUP           COORDINATOR (ID)          STATE           GROUP-EPOCH  ASSIGNMENT-EPOCH  #MEMBERS
        demo            localhost:9092  (1)       Stable          4            4                 2
    "#]]
    .assert_eq(&offsetlab_engine::describe_state(&s, 0, true));
    s.handle_input(Input::Stop { consumer: ConsumerId(1) }).expect("running");
    s.handle_input(Input::Stop { consumer: ConsumerId(2) }).expect("running");
    s.handle_tick(10);
    expect![[r#"
        Share group 'demo' has no active members.

    "#]]
    .assert_eq(&offsetlab_engine::describe_members(&s, 0, true));
    expect![[r#"
        Share group 'demo' has no active members.

        GROUP           COORDINATOR (ID)          STATE           #MEMBERS
        demo            localhost:9092  (1)       Empty           0
    "#]]
    .assert_eq(&offsetlab_engine::describe_state(&s, 0, false));
}

/// `kafka-topics --describe --topic orders`: one broker and replication
/// factor 1 without a cluster; with one, the leaders, replicas and ISR after
/// a leader crash (broker 1 fenced, P0 led by broker 2).
#[test]
fn the_topic_description_follows_the_cluster() {
    let s = sim(Config { partitions: 2, ..Config::default() });
    expect![[r#"
        Topic: orders	TopicId: oV1MInhzQ_KK7PysN189dA	PartitionCount: 2	ReplicationFactor: 1	Configs: 
        	Topic: orders	Partition: 0	Leader: 1	Replicas: 1	Isr: 1	Elr: 	LastKnownElr: 
        	Topic: orders	Partition: 1	Leader: 1	Replicas: 1	Isr: 1	Elr: 	LastKnownElr: 
    "#]]
    .assert_eq(&s.describe_topic());
    let config: Config = serde_json::from_str(
        r#"{"seed": 11, "partitions": 2, "cluster": {"brokers": 3, "replication_factor": 3,
            "min_insync_replicas": 2, "broker_session_timeout_ticks": 2}}"#,
    )
    .unwrap();
    let mut s = Sim::new(config).unwrap();
    s.handle_tick(1);
    s.handle_input(Input::CrashBroker { broker: 1 }).unwrap();
    s.handle_tick(5);
    expect![[r#"
        Topic: orders	TopicId: oV1MInhzQ_KK7PysN189dA	PartitionCount: 2	ReplicationFactor: 3	Configs: min.insync.replicas=2
        	Topic: orders	Partition: 0	Leader: 2	Replicas: 1,2,3	Isr: 2,3	Elr: 	LastKnownElr: 
        	Topic: orders	Partition: 1	Leader: 2	Replicas: 2,3,1	Isr: 2,3	Elr: 	LastKnownElr: 
    "#]]
    .assert_eq(&s.describe_topic());
}
