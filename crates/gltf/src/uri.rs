//! URIs in a glTF: percent-decoding of relative file references.

/// Decodes `%XX` escapes; `None` for a malformed escape or a result that is not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    decode(s, false)
}

/// Decodes `%XX` escapes, keeping a malformed escape as it is, and the whole text as it is when
/// the result is not UTF-8.
pub fn percent_decode_lossy(s: &str) -> String {
    decode(s, true).unwrap_or_else(|| s.to_string())
}

fn decode(s: &str, keep_malformed: bool) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let hex = |k: usize| b.get(k).and_then(|&h| (h as char).to_digit(16));
        match (c, hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b'%', _, _) if !keep_malformed => return None,
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_decoding_refuses_what_lossy_decoding_keeps() {
        assert_eq!(
            percent_decode("a%20b%2Fc.bin").as_deref(),
            Some("a b/c.bin")
        );
        assert_eq!(percent_decode_lossy("a%20b%2Fc.bin"), "a b/c.bin");
        for bad in ["a%2", "100%", "%zz", "%+a"] {
            assert_eq!(percent_decode(bad), None, "{bad}");
            assert_eq!(percent_decode_lossy(bad), bad);
        }
        // Escapes that decode to bytes that are not UTF-8.
        assert_eq!(percent_decode("%FF"), None);
        assert_eq!(percent_decode_lossy("x%FF"), "x%FF");
        assert_eq!(percent_decode_lossy("%C3%A9"), "é");
    }
}
