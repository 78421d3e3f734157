//! File names from caller-given keys. A model key may hold anything (`models/lift.pml`,
//! `Lift`), so it is escaped into a name that is safe on every file system, reversibly (so
//! that `ls` can name the model) and injectively, also where case does not count: only
//! `a-z 0-9 _ -` and a `.` that does not start the name are kept; every other byte is `%XX`.
//! Hashes and commit ids are checked to be lowercase hex, never escaped into a path.

/// The directory name of a model key.
pub(super) fn encode(key: &str) -> String {
    if key.is_empty() {
        // A lone '%' is never produced otherwise: every other '%' has two digits after it.
        return "%".into();
    }
    let mut out = String::with_capacity(key.len());
    for (i, b) in key.bytes().enumerate() {
        let kept = b.is_ascii_lowercase()
            || b.is_ascii_digit()
            || b == b'_'
            || b == b'-'
            || (b == b'.' && i > 0);
        if kept {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The model key of a directory name, or `None` for a name `encode` cannot produce.
pub(super) fn decode(name: &str) -> Option<String> {
    if name == "%" {
        return Some(String::new());
    }
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = name.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let key = String::from_utf8(out).ok()?;
    // Only the canonical spelling counts, so that one key has one directory.
    (encode(&key) == name).then_some(key)
}

fn is_lower_hex(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A content hash: lowercase hex digits (16 from the record's `content_hash`; up to 64
/// accepted so that a longer hash needs no new layout).
pub(super) fn is_hash(s: &str) -> bool {
    (1..=64).contains(&s.len()) && is_lower_hex(s)
}

/// A commit id: 40 lowercase hex digits (SHA-1), or 64 (SHA-256 repositories).
pub(super) fn is_commit(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && is_lower_hex(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_keys_round_trip_through_safe_names() {
        for (key, name) in [
            ("elevator", "elevator"),
            ("models/lift.pml", "models%2Flift.pml"),
            ("Lift", "%4Cift"),
            ("..", "%2E."),
            (".hidden", "%2Ehidden"),
            ("a%b", "a%25b"),
            ("caf\u{e9}", "caf%C3%A9"),
            ("", "%"),
        ] {
            assert_eq!(encode(key), name);
            assert_eq!(decode(name).as_deref(), Some(key));
        }
        // Names encode never makes.
        for name in ["A", "%4c", "%zz", "%4", "a/b", "%FF"] {
            assert_eq!(decode(name), None, "{name}");
        }
    }

    #[test]
    fn hashes_and_commits_are_lowercase_hex() {
        assert!(is_hash("0123456789abcdef"));
        assert!(!is_hash("0123456789ABCDEF"));
        assert!(!is_hash("../../etc"));
        assert!(!is_hash(""));
        assert!(is_commit(&"a".repeat(40)));
        assert!(is_commit(&"b".repeat(64)));
        assert!(!is_commit(&"a".repeat(39)));
        assert!(!is_commit(&"g".repeat(40)));
    }
}
