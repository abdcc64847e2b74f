//! Virtual router IDs: upstream's Fletcher-8 variant, so every node (and every upstream node in a
//! mixed cluster) derives the same IDs from the cluster name.

/// Two 8-bit accumulators, each kept mod 15: result `B * 16 + A` (0..=238).
pub fn fletcher8(s: &str) -> u8 {
    let (mut a, mut b) = (0u8, 0u8);
    for c in s.bytes() {
        a = (a.wrapping_add(c)) % 15;
        b = (b.wrapping_add(a)) % 15;
    }
    b * 16 + a
}

/// (API, ingress) VRIDs for `cluster`; `None` for an empty name.
pub fn vr_ids(cluster: &str) -> Option<(u8, u8)> {
    if cluster.is_empty() {
        return None;
    }
    let api = fletcher8(&format!("{cluster}-api")) + 1;
    let mut ingress = fletcher8(&format!("{cluster}-ingress")) + 1;
    // Upstream's guard; the two suffixes never collide, but the rule is part of the contract.
    if ingress == api {
        ingress += 1;
    }
    Some((api, ingress))
}

#[cfg(test)]
mod tests {
    #[test]
    fn reference_vectors() {
        for (name, api, ingress) in [
            ("ostest", 14, 93),
            ("test", 13, 28),
            ("piyushv6", 214, 21),
            ("mycluster", 74, 137),
            ("ocp", 23, 134),
            ("cluster", 5, 228),
            ("a", 167, 38),
            ("sno", 6, 53),
            ("kni", 71, 182),
            ("ostest-dev", 35, 130),
            ("clusté", 228, 147),
        ] {
            assert_eq!(super::vr_ids(name), Some((api, ingress)), "{name}");
        }
        assert_eq!(super::vr_ids(""), None);
    }
}
