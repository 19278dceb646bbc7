//! Partition assignors, exactly as Kafka's client implements them.

/// Kafka's `RangeAssignor` for one topic: members sorted by member id as
/// plain strings; each gets `P / C` consecutive partitions and the first
/// `P % C` members one more. Members beyond the partition count get none.
///
/// `members` must be sorted and distinct. Returns every member, in order, with
/// its partitions ascending.
#[must_use]
pub fn range<'a>(members: &[&'a str], partitions: u32) -> Vec<(&'a str, Vec<u32>)> {
    assert!(members.windows(2).all(|w| w[0] < w[1]), "members sorted and distinct");
    let count = members.len() as u32;
    if count == 0 {
        return Vec::new();
    }
    let per_member = partitions / count;
    let extra = partitions % count;
    members
        .iter()
        .enumerate()
        .map(|(i, &member)| {
            let i = i as u32;
            let start = per_member * i + i.min(extra);
            let length = per_member + u32::from(i < extra);
            (member, (start..start + length).collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn kafka_range_example() {
        // Kafka's RangeAssignor javadoc: C0, C1; t0 with 3 partitions → C0: [0, 1], C1: [2].
        assert_eq!(range(&["C0", "C1"], 3), vec![("C0", vec![0, 1]), ("C1", vec![2])]);
    }

    #[test]
    fn spares_get_nothing() {
        let got = range(&["a", "b", "c", "d"], 2);
        assert_eq!(got, vec![("a", vec![0]), ("b", vec![1]), ("c", vec![]), ("d", vec![])]);
    }

    #[test]
    fn every_partition_exactly_once() {
        for members in 1..=9u32 {
            let names: Vec<String> = (0..members).map(|i| format!("m{i}")).collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            for partitions in 0..=13 {
                let mut all: Vec<u32> = range(&refs, partitions).into_iter().flat_map(|(_, p)| p).collect();
                all.sort_unstable();
                assert_eq!(all, (0..partitions).collect::<Vec<_>>());
            }
        }
    }
}
