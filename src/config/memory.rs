//! Memory sizes as users write them (`512M`, `4G`, `auto`): one parser for the
//! `--memory-limit` flag, `GIT_RMC_MEMORY_LIMIT` and `memory` in `.rmc.toml`. Parsing only;
//! what `auto` amounts to on this machine is the command line's business (`cli::memory`).

/// What the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryLimit {
    /// A share of what the machine, its cgroup and `ulimit -v` allow.
    #[default]
    Auto,
    Bytes(u64),
}

/// A size as the user wrote it (`"2G"`), and its bytes: shown as written, so that a budget
/// of 2G is not told back as 2.15 GB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Size {
    pub bytes: u64,
    pub text: String,
}

impl Size {
    /// Parses a size such as `"2G"` or `"1000"` (bytes).
    pub fn parse(s: &str) -> Result<Size, SizeError> {
        Ok(Size {
            bytes: parse_size(s)?,
            text: s.trim().to_string(),
        })
    }
}

/// A size that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("unknown size unit '{0}' (use K, M, G or T)")]
    UnknownUnit(char),
    #[error("'{0}' is not a size (e.g. 512M, 4G, or auto)")]
    NotASize(String),
}

/// Parses `auto` or a size such as `512M`, `4G`, `1000`.
pub fn parse_limit(s: &str) -> Result<MemoryLimit, SizeError> {
    if s.trim().eq_ignore_ascii_case("auto") {
        return Ok(MemoryLimit::Auto);
    }
    parse_size(s).map(MemoryLimit::Bytes)
}

/// A size in bytes with an optional K, M, G or T suffix (powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, SizeError> {
    let s = s.trim();
    let (num, unit) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&s[..i], Some(c)),
        _ => (s, None),
    };
    // The number first, so that a word ("lots") is "not a size" rather than a bad unit.
    let n = num
        .trim()
        .parse::<u64>()
        .map_err(|_| SizeError::NotASize(s.to_string()))?;
    let mult = match unit {
        None => 1,
        Some(c) => match c.to_ascii_uppercase() {
            'B' => 1,
            'K' => 1u64 << 10,
            'M' => 1 << 20,
            'G' => 1 << 30,
            'T' => 1 << 40,
            _ => return Err(SizeError::UnknownUnit(c)),
        },
    };
    Ok(n.saturating_mul(mult))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_auto() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4g"), Ok(4 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("12Q"), Err(SizeError::UnknownUnit('Q')));
        assert!(parse_size("M").is_err());
        assert_eq!(parse_size("lots"), Err(SizeError::NotASize("lots".into())));
        assert_eq!(parse_limit("auto"), Ok(MemoryLimit::Auto));
        assert_eq!(parse_limit("2K"), Ok(MemoryLimit::Bytes(2048)));
    }
}
