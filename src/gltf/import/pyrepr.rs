//! Blender's fallback for custom properties it cannot store: `str(value)`, a Python literal.
//!
//! Blender's ID properties hold no list that mixes `None` with numbers (a HIE file's slot table
//! is such a list) and no integer beyond 32 bits; the glTF importer then stores the whole value
//! as its Python `repr`, and the exporter writes that string back as the extras value. This
//! parses such a literal (dicts, lists, tuples, strings, numbers, `None`, `True`, `False`) back
//! into JSON, so those files still import.

use serde_json::{Map, Number, Value};

/// Deepest nesting accepted (our extras are a few levels deep).
const MAX_DEPTH: usize = 64;

/// Parses a Python literal as produced by `repr`; `None` when it is not one.
pub(crate) fn parse(s: &str) -> Option<Value> {
    let mut p = Parser {
        b: s.as_bytes(),
        at: 0,
    };
    let v = p.value(0)?;
    p.ws();
    (p.at == p.b.len()).then_some(v)
}

struct Parser<'a> {
    b: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.b.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match self.peek()? {
            b'{' => {
                self.at += 1;
                let mut m = Map::new();
                if self.eat(b'}') {
                    return Some(Value::Object(m));
                }
                loop {
                    self.ws();
                    let key = match self.value(depth + 1)? {
                        Value::String(s) => s,
                        Value::Number(n) => n.to_string(),
                        _ => return None,
                    };
                    if !self.eat(b':') {
                        return None;
                    }
                    let v = self.value(depth + 1)?;
                    m.insert(key, v);
                    if self.eat(b',') {
                        if self.eat(b'}') {
                            return Some(Value::Object(m));
                        }
                        continue;
                    }
                    return self.eat(b'}').then_some(Value::Object(m));
                }
            }
            open @ (b'[' | b'(') => {
                let close = if open == b'[' { b']' } else { b')' };
                self.at += 1;
                let mut a = Vec::new();
                if self.eat(close) {
                    return Some(Value::Array(a));
                }
                loop {
                    a.push(self.value(depth + 1)?);
                    if self.eat(b',') {
                        if self.eat(close) {
                            return Some(Value::Array(a));
                        }
                        continue;
                    }
                    return self.eat(close).then_some(Value::Array(a));
                }
            }
            b'\'' | b'"' => self.string().map(Value::String),
            c if c == b'-' || c == b'+' || c == b'.' || c.is_ascii_digit() => self.number(),
            _ => self.word(),
        }
    }

    fn word(&mut self) -> Option<Value> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.at += 1;
        }
        match self.b.get(start..self.at)? {
            b"None" => Some(Value::Null),
            b"True" => Some(Value::Bool(true)),
            b"False" => Some(Value::Bool(false)),
            _ => None,
        }
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.' | b'_'))
        {
            self.at += 1;
        }
        let text = std::str::from_utf8(self.b.get(start..self.at)?).ok()?;
        let text = text.replace('_', "");
        if let Ok(i) = text.parse::<i64>() {
            return Some(Value::Number(i.into()));
        }
        if let Ok(u) = text.parse::<u64>() {
            return Some(Value::Number(u.into()));
        }
        // A float; `inf`/`nan` have no JSON form and are refused.
        let f = text.parse::<f64>().ok().filter(|f| f.is_finite())?;
        Number::from_f64(f).map(Value::Number)
    }

    fn hex(&mut self, n: usize) -> Option<u32> {
        let s = std::str::from_utf8(self.b.get(self.at..self.at + n)?).ok()?;
        let v = u32::from_str_radix(s, 16).ok()?;
        self.at += n;
        Some(v)
    }

    fn string(&mut self) -> Option<String> {
        let quote = self.peek()?;
        self.at += 1;
        let mut out = String::new();
        loop {
            // Copy the run of plain bytes (valid UTF-8 since the input is a &str).
            let start = self.at;
            while self.peek().is_some_and(|c| c != quote && c != b'\\') {
                self.at += 1;
            }
            out.push_str(std::str::from_utf8(self.b.get(start..self.at)?).ok()?);
            match self.peek()? {
                c if c == quote => {
                    self.at += 1;
                    return Some(out);
                }
                _ => {
                    self.at += 1;
                    let e = self.peek()?;
                    self.at += 1;
                    let ch = match e {
                        b'\\' => '\\',
                        b'\'' => '\'',
                        b'"' => '"',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'0' => '\0',
                        b'a' => '\x07',
                        b'b' => '\x08',
                        b'f' => '\x0C',
                        b'v' => '\x0B',
                        b'x' => char::from_u32(self.hex(2)?)?,
                        b'u' => char::from_u32(self.hex(4)?)?,
                        b'U' => char::from_u32(self.hex(8)?)?,
                        _ => return None,
                    };
                    out.push(ch);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_reprs_become_json() {
        let s = r#"{'format': 'hie', 'schema': 1, 'slots': [None, 1, 2, 0, None], 'space': {'rotation': 'x180', 'scale': 0.001}, 'x': (1, -2.5e-05), 'ok': True, 'no': False, "it's": 'a\'b\\c\x41\u00e9', 'big': 18446744073709551615, 'e': {}, 'l': []}"#;
        assert_eq!(
            parse(s).unwrap(),
            json!({"format": "hie", "schema": 1, "slots": [null, 1, 2, 0, null],
                   "space": {"rotation": "x180", "scale": 0.001}, "x": [1, -2.5e-05],
                   "ok": true, "no": false, "it's": "a'b\\cAé", "big": 18446744073709551615u64,
                   "e": {}, "l": []})
        );
    }

    #[test]
    fn garbage_is_refused_without_panicking() {
        for s in [
            "",
            "{",
            "{'a' 1}",
            "[1,",
            "'abc",
            "inf",
            "nan",
            "{'a': inf}",
            "foo",
            "[1] x",
            "'\\x4'",
            "'\\u12'",
            "'\\q'",
            "{[1]: 2}",
            "\u{e9}",
        ] {
            assert_eq!(parse(s), None, "{s:?}");
        }
        let deep = "[".repeat(10_000);
        assert_eq!(parse(&deep), None);
    }
}
