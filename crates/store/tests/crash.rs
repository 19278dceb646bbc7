//! Stop the writer at every step, as a crash would, and read what is left.

use offsetlab_store::{
    FileOffsetStore, InPlaceOffsetStore, StoreError, WriteStep, decode, encode, naive_read,
};
use std::ops::ControlFlow;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("offsetlab-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Every step a write passes through, with every partial byte count.
fn all_steps(position: u64) -> Vec<WriteStep> {
    let mut steps = vec![WriteStep::Created];
    steps.extend((1..encode(position).len()).map(WriteStep::PartiallyWritten));
    steps.extend([
        WriteStep::Written,
        WriteStep::Synced,
        WriteStep::BeforeRename,
        WriteStep::Renamed,
        WriteStep::Done,
    ]);
    steps
}

fn crash_at(target: WriteStep) -> impl FnMut(WriteStep) -> ControlFlow<()> {
    move |step| if step == target { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
}

#[test]
fn round_trip_and_absent() {
    let dir = scratch("round-trip");
    let store = FileOffsetStore::open(&dir).unwrap();
    assert_eq!(store.read("c1-orders-0").unwrap(), None);
    store.write("c1-orders-0", 1234).unwrap();
    assert_eq!(store.read("c1-orders-0").unwrap(), Some(1234));
    store.write("c1-orders-0", u64::MAX).unwrap();
    assert_eq!(store.read("c1-orders-0").unwrap(), Some(u64::MAX));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_atomic_store_is_never_torn() {
    let old = 1234;
    let new = 98_765;
    let steps = all_steps(new);
    assert!(steps.len() > 20);
    for step in steps {
        let dir = scratch("atomic");
        let store = FileOffsetStore::open(&dir).unwrap();
        store.write("p", old).unwrap();
        let result = store.write_with("p", new, &mut crash_at(step));
        if step != WriteStep::Done {
            assert!(matches!(result, Err(StoreError::Interrupted(s)) if s == step), "{step:?}: {result:?}");
        }
        let read =
            store.read("p").unwrap_or_else(|e| panic!("crash at {step:?} left an unreadable file: {e}"));
        let expected = if matches!(step, WriteStep::Renamed | WriteStep::Done) { new } else { old };
        assert_eq!(read, Some(expected), "crash at {step:?}");
        // A later write goes through despite the temp file left behind.
        store.write("p", 7).unwrap();
        assert_eq!(store.read("p").unwrap(), Some(7));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_first_write_crashing_leaves_nothing_rather_than_garbage() {
    for step in all_steps(55) {
        let dir = scratch("first");
        let store = FileOffsetStore::open(&dir).unwrap();
        let _ = store.write_with("p", 55, &mut crash_at(step));
        let read = store.read("p").unwrap();
        assert!(read.is_none() || read == Some(55), "crash at {step:?}: {read:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn the_in_place_writer_tears_and_the_validating_reader_says_so() {
    let old = 1234;
    let new = 5678;
    let mut torn_seen = 0;
    let mut silently_smaller = 0;
    for step in all_steps(new) {
        let dir = scratch("in-place");
        let store = InPlaceOffsetStore::open(&dir).unwrap();
        store.write_with("p", old, &mut offsetlab_store::NoFaults).unwrap();
        let _ = store.write_with("p", new, &mut crash_at(step));
        let bytes = store.raw("p").unwrap().expect("the file exists");
        let path = store.path("p").unwrap();
        match decode(&path, &bytes) {
            Ok(position) => assert_eq!(position, new, "crash at {step:?}"),
            Err(StoreError::Torn { .. }) => {
                torn_seen += 1;
                // The naive reader takes a torn file for the new position or a smaller one, silently.
                let naive = naive_read(&bytes);
                assert!(naive <= new, "crash at {step:?}");
                silently_smaller += u32::from(naive < new);
            }
            Err(e) => panic!("crash at {step:?}: {e}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(torn_seen > 20, "most crash points tear an in-place write: {torn_seen}");
    assert!(silently_smaller > 20, "and most of those read naively as an older position: {silently_smaller}");
}

#[test]
fn half_saved_digits_read_as_a_smaller_position_only_naively() {
    let full = encode(1234);
    let cut = full.iter().position(|&b| b == b'3').unwrap();
    let torn = &full[..cut];
    assert_eq!(naive_read(torn), 12, "1234 cut to 12");
    let err = decode(std::path::Path::new("p.pos"), torn).unwrap_err();
    assert!(err.to_string().contains("torn position file"), "{err}");
}

#[test]
fn foreign_and_torn_files_get_clear_errors_not_zero() {
    let dir = scratch("foreign");
    let store = FileOffsetStore::open(&dir).unwrap();
    let path = store.path("p").unwrap();
    let cases: [(&[u8], &str); 7] = [
        (b"", "torn position file (empty"),
        (b"1234\n", "not an offsetlab position file (no offsetlab-position header)"),
        (b"offsetlab-posi", "torn position file (it ends inside the header)"),
        (b"offsetlab-position v1 12", "torn position file (no final newline)"),
        (b"offsetlab-position v1 1234 00000000\n", "torn position file (the checksum does not match"),
        (
            b"offsetlab-position v1 12x4 00000000\n",
            "not an offsetlab position file (the position is not a decimal",
        ),
        (&[0xff, 0xfe, 0x00], "not an offsetlab position file (not UTF-8"),
    ];
    for (bytes, message) in cases {
        std::fs::write(&path, bytes).unwrap();
        let err = store.read("p").unwrap_err().to_string();
        assert!(err.contains(message), "{bytes:?}: {err}");
        assert!(err.contains("p.pos"), "names the file: {err}");
    }
    std::fs::write(&path, vec![b'x'; 4096]).unwrap();
    assert!(store.read("p").unwrap_err().to_string().contains("longer than 128 bytes"));
    assert!(matches!(store.read("../escape"), Err(StoreError::BadName(_))));
    std::fs::remove_dir_all(&dir).unwrap();
}
