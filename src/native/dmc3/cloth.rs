//! DMC3 cloth (`.clt`; a player archive's slot 13, beside the coat in slot 12): the text the
//! game's cloth parser reads (EXE parser, CORPUS of nine retail files; `docs/formats.md`,
//! "Cloth").
//!
//! Plain text, CRLF line ends in retail: a first line `;NAME.clt`, `ClothNum n`, then per block
//! `ClothNo i`, its parameters (`Gravity x y z`, `SpringForce f`, ...), one `Bone NODE AXIS` row
//! per simulated node of the coat, and `End`; the text ends at `$`, followed by NUL bytes (and in
//! retail more after them). Lines whose first character is `;` are comments.
//!
//! [`Clt`] keeps every byte: the lines before the terminator exactly as read (line ends, tabs,
//! spacing, comments, keys outside the vocabulary, lines outside any block), and the terminator
//! with everything after it as bytes. [`Clt::grammar`] reads the lines as the parser's grammar
//! (blocks, parameters, rows) without changing them; the edits ([`Clt::set_value`],
//! [`Clt::set_rows`]) rewrite only the lines they touch. A member is read as cloth by its
//! content ([`Clt::read`]: text up to the terminator whose first statement is `ClothNum`),
//! never by its slot.

use serde::{Deserialize, Serialize};

/// The cloth text's section of `docs/formats.md`.
pub const FORMAT_DOC: &str = "\n### Cloth text (`.clt`), EXE (the parser) and CORPUS\n\n\
Read as cloth where a member is text up to its terminator whose first statement is \
`ClothNum`, else kept opaque; the slot is never the evidence. Plain ASCII, CRLF line ends in \
retail; a line whose first character is `;` is a comment (retail's first line is \
`;NAME.clt`). `ClothNum n`, then per block `ClothNo i`, its parameters, one `Bone NODE AXIS` \
row per simulated node and `End`; the text ends at the first line starting with `$`, followed \
by NUL bytes to a 16-byte boundary (retail pads further). The parser's vocabulary: \
`ClothNum`, `ClothNo`, `ClothId` (not used), `Gravity x y z`, `SpringForce f`, `MaxSpeed f`, \
`Stiffness f`, `Wind x y z`, `WindLocal i`, `WindParent i` (a node of the body), `WindType i`, \
`LimitLength i`, `ClothSim1D`, `Damping`, `FloorLevel`, `Cut`, `Bone`, `End`; a block without \
a key uses Stiffness 0.3, MaxSpeed 50, SpringForce 0.05, Gravity (0, -0.2, 0), LimitLength 1. \
Retail writes a tab after each key and floats with six decimals. AXIS is one of X Y Z NX NY \
NZ. A row names a node of the model in the slot before the cloth's (the coat in 12 for the \
cloth in 13). Every line is kept as read (spacing, tabs, line ends, keys outside the \
vocabulary, statements outside the blocks) and every byte from `$` on; an edit rewrites only \
the lines it touches. What the game holds (EXE): a coat of at most 39 nodes, its node 0 local \
forced to the identity and following body joint 3; one cloth block for Dante's actor (pl000, \
pl011, pl013, pl015, pl016, pl018; Vergil's holds two); every row's node in the coat with a \
non-zero local translation (the solver divides by it). Retail's simulated nodes point their \
rest local +Y at their parent; a row rigtrip adds gets the axis of the node's rest frame that \
points at its parent (ASSUMED: what the axis means is not known).\n";

/// The key of the block count, the text's first statement.
pub const CLOTH_NUM: &str = "ClothNum";
/// The key that opens a block.
pub const CLOTH_NO: &str = "ClothNo";
/// The key of a simulated-node row.
pub const BONE: &str = "Bone";
/// The key that closes a block.
pub const END: &str = "End";
/// The terminator: the parser stops here; what follows is padding.
pub const TERMINATOR: u8 = b'$';
/// The axes a `Bone` row may name.
pub const AXES: [&str; 6] = ["X", "Y", "Z", "NX", "NY", "NZ"];

/// How a key's values are typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// Integers (counts, node indices, switches).
    Int,
    /// Floats, written with six decimals.
    Float,
    /// Not known: typed by their text (an integer when it reads as one).
    Text,
}

/// A key of the parser's vocabulary: its value kind, value count (`None`: not known) and its
/// default when a block lacks it (documented defaults only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Word {
    /// The key.
    pub key: &'static str,
    /// How its values are typed.
    pub kind: ValueKind,
    /// How many values it takes, when known.
    pub arity: Option<usize>,
    /// The parser's value when a block lacks the key.
    pub default: Option<&'static [f64]>,
}

/// The parser's vocabulary (EXE): the keys it knows, in the order retail files write them.
pub const VOCABULARY: [Word; 18] = {
    const fn w(
        key: &'static str,
        kind: ValueKind,
        arity: Option<usize>,
        default: Option<&'static [f64]>,
    ) -> Word {
        Word {
            key,
            kind,
            arity,
            default,
        }
    }
    use ValueKind::{Float, Int, Text};
    [
        w(CLOTH_NUM, Int, Some(1), None),
        w(CLOTH_NO, Int, Some(1), None),
        w("ClothId", Int, Some(1), None),
        w("Gravity", Float, Some(3), Some(&[0.0, -0.2, 0.0])),
        w("SpringForce", Float, Some(1), Some(&[0.05])),
        w("MaxSpeed", Float, Some(1), Some(&[50.0])),
        w("Stiffness", Float, Some(1), Some(&[0.3])),
        w("Wind", Float, Some(3), None),
        w("WindLocal", Int, Some(1), None),
        w("WindParent", Int, Some(1), None),
        w("WindType", Int, Some(1), None),
        w("LimitLength", Int, Some(1), Some(&[1.0])),
        w("ClothSim1D", Text, None, None),
        w("Damping", Text, None, None),
        w("FloorLevel", Text, None, None),
        w("Cut", Text, None, None),
        w(BONE, Text, Some(2), None),
        w(END, Text, Some(0), None),
    ]
};

/// The vocabulary entry of `key`.
pub fn word(key: &str) -> Option<&'static Word> {
    VOCABULARY.iter().find(|w| w.key == key)
}

/// A cloth member: its lines and what follows the terminator. Serialised (for `dump`) with its
/// [`Clt::grammar`] beside the lines, for reading only: the lines are what is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "CltJson", from = "CltJson")]
pub struct Clt {
    /// The text before the terminator, one entry per line with its line end as read (`\r\n` or
    /// `\n`; the last line may have none).
    pub lines: Vec<String>,
    /// The terminator `$` and every byte after it (its line end, the NUL padding, anything
    /// else); empty when the text has no terminator.
    #[serde(with = "crate::bytes::base64_bytes")]
    pub tail: Vec<u8>,
}

/// [`Clt`] as serialised: its fields, and its grammar (shown; not read back).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CltJson {
    lines: Vec<String>,
    #[serde(with = "crate::bytes::base64_bytes")]
    tail: Vec<u8>,
    #[serde(default, skip_deserializing)]
    grammar: Option<Grammar>,
}

impl From<Clt> for CltJson {
    fn from(c: Clt) -> CltJson {
        let grammar = Some(c.grammar());
        CltJson {
            lines: c.lines,
            tail: c.tail,
            grammar,
        }
    }
}

impl From<CltJson> for Clt {
    fn from(j: CltJson) -> Clt {
        Clt {
            lines: j.lines,
            tail: j.tail,
        }
    }
}

/// One statement: a line's key and values, and where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statement {
    /// Its line (index into [`Clt::lines`]).
    pub line: usize,
    /// The first token.
    pub key: String,
    /// The other tokens, as written.
    pub values: Vec<String>,
}

impl Statement {
    /// A `Bone` row's node, when its first value is a node index.
    pub fn node(&self) -> Option<usize> {
        self.values.first()?.parse::<u16>().ok().map(usize::from)
    }

    /// A `Bone` row's axis, as written.
    pub fn axis(&self) -> Option<&str> {
        self.values.get(1).map(String::as_str)
    }

    /// The values as numbers, when every one reads as a number of the key's kind.
    pub fn numbers(&self) -> Option<Vec<Number>> {
        let kind = word(&self.key).map_or(ValueKind::Text, |w| w.kind);
        self.values.iter().map(|v| Number::parse(v, kind)).collect()
    }
}

/// One block: `ClothNo` to `End`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Its statements but the rows and `End`, in order (`ClothNo` first).
    pub params: Vec<Statement>,
    /// Its `Bone` rows, in order.
    pub bones: Vec<Statement>,
    /// The line of its `End`, when it has one.
    pub end: Option<usize>,
}

impl Block {
    /// The line of its `ClothNo`.
    pub fn line(&self) -> usize {
        self.params.first().map_or(0, |p| p.line)
    }

    /// The statement of `key` (the first, when written twice).
    pub fn param(&self, key: &str) -> Option<&Statement> {
        self.params.iter().find(|p| p.key == key)
    }

    /// Its last line.
    fn last_line(&self) -> usize {
        let last = |s: &[Statement]| s.last().map_or(0, |x| x.line);
        self.end
            .unwrap_or(0)
            .max(last(&self.params))
            .max(last(&self.bones))
    }
}

/// The lines read as the parser's grammar.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grammar {
    /// The `ClothNum` statement (the first statement, outside any block).
    pub count: Option<Statement>,
    /// The blocks, in order.
    pub blocks: Vec<Block>,
    /// Statements outside any block but `ClothNum` (an `End` without a block, keys before the
    /// first `ClothNo` or between blocks).
    pub stray: Vec<Statement>,
}

/// A parameter value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
}

impl Number {
    /// `text` as a number of `kind` (text of an unknown kind is an integer when it reads as one).
    pub fn parse(text: &str, kind: ValueKind) -> Option<Number> {
        let int = || text.parse::<i64>().ok().map(Number::Int);
        let float = || {
            text.parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(Number::Float)
        };
        match kind {
            ValueKind::Int => int(),
            ValueKind::Float => float(),
            ValueKind::Text => int().or_else(float),
        }
    }

    /// As a float.
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    /// As the parser's text: an integer as such, a float with six decimals (as retail writes).
    pub fn text(self) -> String {
        match self {
            Number::Int(i) => i.to_string(),
            Number::Float(f) => format!("{f:.6}"),
        }
    }
}

/// Why an edit cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClothError {
    /// No such block.
    #[error("block {block}: the text has {blocks} block(s)")]
    NoBlock {
        /// The block asked for.
        block: usize,
        /// How many there are.
        blocks: usize,
    },
    /// A value that is no finite number of the key's kind, or the wrong count.
    #[error("{key}: {problem}")]
    Value {
        /// The key.
        key: String,
        /// What is wrong.
        problem: String,
    },
    /// A key outside the parser's vocabulary, or one that is no parameter.
    #[error("{key}: not a parameter of the cloth parser's vocabulary")]
    Key {
        /// The key.
        key: String,
    },
    /// An axis outside X Y Z NX NY NZ.
    #[error("node {node}: axis {axis:?} is none of X Y Z NX NY NZ")]
    Axis {
        /// The row's node.
        node: usize,
        /// The axis asked for.
        axis: String,
    },
}

/// One row as an edit wants it: the node, its axis, and the line it came from (`None`: new).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowEdit {
    /// The row's line in the text edited (`None` for a new row).
    pub line: Option<usize>,
    /// The node it names; `None` keeps the row's line as written (a row naming no node).
    pub node: Option<usize>,
    /// Its axis.
    pub axis: String,
}

/// Whether `data` holds cloth text: its first statement is `ClothNum`.
pub fn looks_like_cloth(data: &[u8]) -> bool {
    Clt::read(data).is_some()
}

impl Clt {
    /// Reads `data` as cloth text: everything before the terminator (a `$` that starts a line,
    /// after spaces or tabs) is UTF-8 text without NUL or control characters other than tab,
    /// CR and LF, and its first statement is `ClothNum`. `None` otherwise.
    pub fn read(data: &[u8]) -> Option<Clt> {
        let at = terminator(data).unwrap_or(data.len());
        let text = data.get(..at)?;
        if text
            .iter()
            .any(|&b| (b < 0x20 && !matches!(b, b'\t' | b'\r' | b'\n')) || b == 0x7F)
        {
            return None;
        }
        let text = std::str::from_utf8(text).ok()?;
        let clt = Clt {
            lines: text.split_inclusive('\n').map(str::to_string).collect(),
            tail: data.get(at..)?.to_vec(),
        };
        let first = (0..clt.lines.len()).find_map(|i| statement(&clt.lines, i));
        (first?.key == CLOTH_NUM).then_some(clt)
    }

    /// The member's bytes: the lines, then the tail.
    pub fn write(&self) -> Vec<u8> {
        let len = self.lines.iter().map(String::len).sum::<usize>() + self.tail.len();
        let mut out = Vec::with_capacity(len);
        for l in &self.lines {
            out.extend_from_slice(l.as_bytes());
        }
        out.extend_from_slice(&self.tail);
        out
    }

    /// The first line when it is a comment (`;NAME.clt` in retail), without `;` and line end.
    pub fn title(&self) -> Option<&str> {
        let first = self.lines.first()?;
        let t = first.trim_end_matches(['\r', '\n']);
        t.strip_prefix(';')
    }

    /// Whether the text ends at a terminator.
    pub fn terminated(&self) -> bool {
        self.tail.first() == Some(&TERMINATOR)
    }

    /// The lines read as the parser's grammar.
    pub fn grammar(&self) -> Grammar {
        let mut g = Grammar::default();
        let mut open: Option<Block> = None;
        for i in 0..self.lines.len() {
            let Some(s) = statement(&self.lines, i) else {
                continue;
            };
            match (s.key.as_str(), open.as_mut()) {
                (CLOTH_NO, _) => {
                    g.blocks.extend(open.take());
                    open = Some(Block {
                        params: vec![s],
                        bones: Vec::new(),
                        end: None,
                    });
                }
                (END, Some(b)) => {
                    b.end = Some(i);
                    g.blocks.extend(open.take());
                }
                (BONE, Some(b)) => b.bones.push(s),
                (_, Some(b)) => b.params.push(s),
                (CLOTH_NUM, None) if g.count.is_none() && g.blocks.is_empty() => g.count = Some(s),
                (_, None) => g.stray.push(s),
            }
        }
        g.blocks.extend(open);
        g
    }

    /// The line end the text uses: its first line's (`\r\n` in retail).
    fn line_end(&self) -> &str {
        let first = self.lines.first().map_or("", String::as_str);
        match first.ends_with("\r\n") || !first.ends_with('\n') {
            true => "\r\n",
            false => "\n",
        }
    }

    /// Block `block`.
    fn block(&self, block: usize) -> Result<Block, ClothError> {
        let mut blocks = self.grammar().blocks;
        let n = blocks.len();
        match block < n {
            true => Ok(blocks.swap_remove(block)),
            false => Err(ClothError::NoBlock { block, blocks: n }),
        }
    }

    /// A copy with `key` of block `block` set to `values`: its line rewritten (a tab after the
    /// key, the values as the parser's text, the line's other spacing and end kept), or, for a
    /// key the block lacks, a new line before its first row (else before its `End`).
    pub fn set_value(&self, block: usize, key: &str, values: &[Number]) -> Result<Clt, ClothError> {
        let w = word(key).filter(|w| ![BONE, END, CLOTH_NUM, CLOTH_NO].contains(&w.key));
        let w = w.ok_or_else(|| ClothError::Key { key: key.into() })?;
        if w.arity.is_some_and(|a| a != values.len()) || values.is_empty() {
            return Err(ClothError::Value {
                key: key.into(),
                problem: format!(
                    "{} value(s) given, the parser reads {}",
                    values.len(),
                    w.arity.unwrap_or(1)
                ),
            });
        }
        let texts = values
            .iter()
            .map(|&v| typed_text(w, v))
            .collect::<Result<Vec<String>, ClothError>>()?;
        let b = self.block(block)?;
        let mut lines = self.lines.clone();
        match b.param(key) {
            Some(s) => lines[s.line] = rewrite(&lines[s.line], &texts),
            None => {
                let at = b.bones.first().map(|r| r.line).or(b.end);
                let at = at.unwrap_or(b.last_line() + 1);
                let line = format!("{key}\t{}{}", texts.join(" "), self.line_end());
                insert_line(&mut lines, at, line);
            }
        }
        Ok(Clt {
            lines,
            tail: self.tail.clone(),
        })
    }

    /// A copy with the rows of block `block` made `rows`: a row whose line is given keeps it
    /// (its node and axis tokens rewritten only when they differ); a row of the block no edit
    /// names is removed; a new row is inserted before the first kept row naming a larger node
    /// (else after the last row, else before `End`), written `Bone`, a tab, node, a space and
    /// axis unless the block's first row shows another spacing.
    pub fn set_rows(&self, block: usize, rows: &[RowEdit]) -> Result<Clt, ClothError> {
        let bad_axis = |r: &&RowEdit| r.node.is_some() && !AXES.contains(&r.axis.as_str());
        if let Some(r) = rows.iter().find(bad_axis) {
            return Err(ClothError::Axis {
                node: r.node.unwrap_or_default(),
                axis: r.axis.clone(),
            });
        }
        let b = self.block(block)?;
        // Per line: its new text, or None to drop it; then the new lines before each line.
        let mut lines: Vec<Option<String>> = self.lines.iter().cloned().map(Some).collect();
        for r in &b.bones {
            if !rows.iter().any(|e| e.line == Some(r.line)) {
                lines[r.line] = None;
            }
        }
        for e in rows.iter().filter(|e| e.line.is_some()) {
            let (Some(node), Some(Some(text))) = (e.node, e.line.and_then(|l| lines.get_mut(l)))
            else {
                continue;
            };
            let c = cut(text);
            let node = node.to_string();
            let same = |k: usize, v: &str| c.tokens.get(k).map(|t| t.0) == Some(v);
            if !(same(1, &node) && same(2, &e.axis) && c.tokens.len() == 3) {
                *text = retoken(text, &[(1, node), (2, e.axis.clone())]);
            }
        }
        let mut inserted: Vec<(usize, String)> = Vec::new();
        let template = b.bones.first().map(|r| self.lines[r.line].as_str());
        for e in rows.iter().filter(|e| e.line.is_none()) {
            let kept = rows.iter().filter_map(|k| Some((k.line?, k.node?)));
            let before = kept
                .filter(|&(_, n)| Some(n) > e.node)
                .map(|(l, _)| l)
                .min();
            let after_rows = b.bones.last().map(|r| r.line + 1);
            let at = before.or(after_rows).or(b.end).unwrap_or(b.last_line() + 1);
            inserted.push((at, self.new_row(template, e)));
        }
        inserted.sort_by_key(|(at, _)| *at);
        let mut out = Vec::with_capacity(lines.len() + inserted.len());
        let mut next = inserted.into_iter().peekable();
        for (i, l) in lines.into_iter().enumerate() {
            while let Some((_, new)) = next.next_if(|(at, _)| *at == i) {
                out.push(new);
            }
            out.extend(l);
        }
        out.extend(next.map(|(_, new)| new));
        let mut clt = Clt {
            lines: out,
            tail: self.tail.clone(),
        };
        clt.end_last_line();
        Ok(clt)
    }

    /// A new row in the spacing of `template` (a row of the block), else `Bone\tN AXIS`.
    fn new_row(&self, template: Option<&str>, e: &RowEdit) -> String {
        let node = e.node.unwrap_or_default().to_string();
        let fresh = format!("{BONE}\t{node} {}{}", e.axis, self.line_end());
        match template {
            Some(t) if cut(t).tokens.len() == 3 => retoken(t, &[(1, node), (2, e.axis.clone())]),
            _ => fresh,
        }
    }

    /// Gives every line but the last a line end (a line inserted after a last line that had
    /// none must not run into it).
    fn end_last_line(&mut self) {
        let end = self.line_end().to_string();
        let n = self.lines.len();
        for l in self.lines.iter_mut().take(n.saturating_sub(1)) {
            if !l.ends_with('\n') {
                l.push_str(&end);
            }
        }
    }

    /// A copy whose NUL padding after the terminator ends the member on a 16-byte boundary
    /// again, when `original`'s did and its tail is the terminator, an optional line end and
    /// NULs only (retail pads so; an edit that changed the text's length keeps the padding
    /// rule instead of the byte count).
    pub fn padded_like(&self, original: &Clt) -> Clt {
        let nul_tail = |c: &Clt| {
            let t = c.tail.strip_prefix(b"$")?;
            let t = t.strip_prefix(b"\r\n").unwrap_or(t);
            t.iter().all(|&b| b == 0).then_some(t.len())
        };
        let (Some(was), Some(nuls)) = (nul_tail(original), nul_tail(self)) else {
            return self.clone();
        };
        let len = |c: &Clt| c.write().len() as u64;
        if len(original) % 16 != 0 {
            return self.clone();
        }
        let text = len(self) - nuls as u64;
        let want = (crate::bytes::align(text + u64::from(was > 0), 16) - text) as usize;
        let mut out = self.clone();
        out.tail.resize(out.tail.len() - nuls + want, 0);
        out
    }

    /// Where each line lies in the member: (offset, length) per line, then the tail's.
    pub fn spans(&self) -> (Vec<(u64, u64)>, (u64, u64)) {
        let mut at = 0u64;
        let lines = self
            .lines
            .iter()
            .map(|l| {
                let s = (at, l.len() as u64);
                at += l.len() as u64;
                s
            })
            .collect();
        (lines, (at, self.tail.len() as u64))
    }
}

/// `v` as the text of a value of `w`: a float with six decimals, an integer as such (a float
/// given for an integer key must be whole).
fn typed_text(w: &Word, v: Number) -> Result<String, ClothError> {
    let text = match (w.kind, v) {
        (ValueKind::Float, v) => Number::Float(v.as_f64()).text(),
        (ValueKind::Int, Number::Float(f)) => {
            if f.fract() != 0.0 || f.abs() > 1e15 {
                return Err(ClothError::Value {
                    key: w.key.into(),
                    problem: format!("{f} is not a whole number: the parser reads an integer"),
                });
            }
            (f as i64).to_string()
        }
        (_, v) => v.text(),
    };
    match v.as_f64().is_finite() {
        true => Ok(text),
        false => Err(ClothError::Value {
            key: w.key.into(),
            problem: "not a finite number".into(),
        }),
    }
}

/// Inserts `line` before line `at` (at the end when past it).
fn insert_line(lines: &mut Vec<String>, at: usize, line: String) {
    let at = at.min(lines.len());
    if at == lines.len() {
        if let Some(last) = lines.last_mut().filter(|l| !l.ends_with('\n')) {
            let end = if line.ends_with("\r\n") { "\r\n" } else { "\n" };
            last.push_str(end);
        }
    }
    lines.insert(at, line);
}

/// Where the terminator is: the first `$` that starts a line (after spaces or tabs).
fn terminator(data: &[u8]) -> Option<usize> {
    let mut start = 0;
    loop {
        let body = data.get(start..)?;
        let lead = body
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        if body.get(lead) == Some(&TERMINATOR) {
            return Some(start + lead);
        }
        start += body.iter().position(|&b| b == b'\n')? + 1;
    }
}

/// The statement of line `i`: `None` for a blank line or a comment (`;` first).
fn statement(lines: &[String], i: usize) -> Option<Statement> {
    let mut tokens = lines.get(i)?.split_ascii_whitespace();
    let key = tokens.next()?;
    if key.starts_with(';') {
        return None;
    }
    Some(Statement {
        line: i,
        key: key.to_string(),
        values: tokens.map(str::to_string).collect(),
    })
}

/// A line cut into its pieces: leading whitespace, each token with the whitespace after it,
/// and the line end.
struct Cut<'a> {
    lead: &'a str,
    tokens: Vec<(&'a str, &'a str)>,
    end: &'a str,
}

/// Cuts `line` (see [`Cut`]).
fn cut(line: &str) -> Cut<'_> {
    let body = line.trim_end_matches(['\n']);
    let body = match body.len() < line.len() {
        true => body.strip_suffix('\r').unwrap_or(body),
        false => body,
    };
    let end = &line[body.len()..];
    let ws = |c: char| c.is_ascii_whitespace();
    let rest = body.trim_start_matches(ws);
    let lead = &body[..body.len() - rest.len()];
    let mut tokens = Vec::new();
    let mut rest = rest;
    while !rest.is_empty() {
        let t = rest.find(ws).unwrap_or(rest.len());
        let after = &rest[t..];
        let s = after.len() - after.trim_start_matches(ws).len();
        tokens.push((&rest[..t], &after[..s]));
        rest = &after[s..];
    }
    Cut { lead, tokens, end }
}

/// `line` with token `k` replaced for each `(k, text)` (tokens past the line's are appended
/// after a space); all spacing kept.
fn retoken(line: &str, with: &[(usize, String)]) -> String {
    let c = cut(line);
    let mut tokens: Vec<(String, String)> = c
        .tokens
        .iter()
        .map(|(t, s)| (t.to_string(), s.to_string()))
        .collect();
    for (k, text) in with {
        while tokens.len() <= *k {
            if let Some(last) = tokens.last_mut().filter(|t| t.1.is_empty()) {
                last.1 = " ".into();
            }
            tokens.push((String::new(), String::new()));
        }
        tokens[*k].0 = text.clone();
    }
    let mut out = c.lead.to_string();
    for (t, s) in tokens {
        out.push_str(&t);
        out.push_str(&s);
    }
    out.push_str(c.end);
    out
}

/// `line` (a statement) with its values made `values`: a tab after the key, the spacing between
/// the values kept when their count is unchanged (else one space), the whitespace after the
/// last value and the line end kept.
fn rewrite(line: &str, values: &[String]) -> String {
    let c = cut(line);
    let Some(&(key, _)) = c.tokens.first() else {
        return line.to_string();
    };
    let old: Vec<&str> = c.tokens.iter().skip(1).map(|t| t.1).collect();
    let trailing = c.tokens.last().map_or("", |t| t.1);
    let mut out = format!("{}{key}\t", c.lead);
    for (k, v) in values.iter().enumerate() {
        out.push_str(v);
        if k + 1 < values.len() {
            let same = old.len() == values.len();
            out.push_str(if same { old[k] } else { " " });
        }
    }
    out.push_str(trailing);
    out.push_str(c.end);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const RETAIL_LIKE: &[u8] = b";pl000_02.clt\r\nClothNum\t1\r\nClothNo\t0\r\nClothId\t0\r\nGravity\t0.000000 -0.200000 0.000000\r\nSpringForce\t0.050000\r\nWindParent\t3\r\nBone\t2 NY\r\nBone\t3 NY\r\nBone\t5 NY\r\nEnd\r\n$\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";

    #[test]
    fn retail_like_text_reads_as_its_grammar_and_writes_back() {
        let c = Clt::read(RETAIL_LIKE).unwrap();
        assert_eq!(c.write(), RETAIL_LIKE);
        assert_eq!(c.title(), Some("pl000_02.clt"));
        assert!(c.terminated());
        let g = c.grammar();
        assert_eq!(g.count.as_ref().unwrap().values, ["1"]);
        assert_eq!(g.blocks.len(), 1);
        let b = &g.blocks[0];
        let nodes: Vec<_> = b.bones.iter().map(|r| r.node().unwrap()).collect();
        assert_eq!(nodes, [2, 3, 5]);
        assert_eq!(b.end, Some(10));
        assert_eq!(
            b.param("Gravity").unwrap().numbers().unwrap(),
            [Number::Float(0.0), Number::Float(-0.2), Number::Float(0.0)]
        );
        assert!(g.stray.is_empty());
    }

    #[test]
    fn text_without_cloth_num_first_or_with_binary_is_not_cloth() {
        assert!(Clt::read(b"Gravity 0 0 0\r\nClothNum 1\r\n$").is_none());
        assert!(Clt::read(b"ClothNum\t1\0\r\n$").is_none());
        assert!(Clt::read(b"\x06\0\0\0abcd").is_none());
        // Comments and blank lines may come first; no terminator is still cloth text.
        let c = Clt::read(b"; x\r\n\r\n  ClothNum 0\r\n").unwrap();
        assert!(!c.terminated());
        assert_eq!(c.write(), b"; x\r\n\r\n  ClothNum 0\r\n");
    }

    #[test]
    fn a_value_is_rewritten_with_six_decimals_and_a_tab_the_rest_byte_for_byte() {
        let c = Clt::read(RETAIL_LIKE).unwrap();
        let e = c
            .set_value(0, "SpringForce", &[Number::Float(0.125)])
            .unwrap();
        let want = String::from_utf8_lossy(RETAIL_LIKE).replace("0.050000", "0.125000");
        assert_eq!(e.write(), want.as_bytes());
        // Odd spacing between values is kept; the key gets its tab.
        let odd = b"ClothNum 1\nClothNo 0\nGravity   1.0  2.0\t3.0  \nEnd\n$".to_vec();
        let g = Clt::read(&odd).unwrap();
        let e = g
            .set_value(0, "Gravity", &[0.5, -1.0, 2.0].map(Number::Float))
            .unwrap();
        assert_eq!(e.lines[2], "Gravity\t0.500000  -1.000000\t2.000000  \n");
        // A key the block lacks goes before its first row, else its End.
        let e = c.set_value(0, "MaxSpeed", &[Number::Float(40.0)]).unwrap();
        assert_eq!(e.lines[7], "MaxSpeed\t40.000000\r\n");
        assert_eq!(e.lines[8], "Bone\t2 NY\r\n");
        let e = g.set_value(0, "LimitLength", &[Number::Int(2)]).unwrap();
        assert_eq!(e.lines[3], "LimitLength\t2\n");
        assert!(matches!(
            c.set_value(0, "Bone", &[Number::Int(1)]),
            Err(ClothError::Key { .. })
        ));
        assert!(matches!(
            c.set_value(0, "Gravity", &[Number::Int(1)]),
            Err(ClothError::Value { .. })
        ));
        assert!(matches!(
            c.set_value(1, "Stiffness", &[Number::Float(1.0)]),
            Err(ClothError::NoBlock { blocks: 1, .. })
        ));
    }

    #[test]
    fn rows_are_kept_dropped_renumbered_and_added_in_node_order() {
        let c = Clt::read(RETAIL_LIKE).unwrap();
        let g = c.grammar();
        let line = |n: usize| {
            g.blocks[0]
                .bones
                .iter()
                .find(|r| r.node() == Some(n))
                .unwrap()
                .line
        };
        let row = |l: Option<usize>, node: usize, axis: &str| RowEdit {
            line: l,
            node: Some(node),
            axis: axis.into(),
        };
        // Unchanged rows: the same bytes.
        let same: Vec<RowEdit> = [2, 3, 5].map(|n| row(Some(line(n)), n, "NY")).to_vec();
        assert_eq!(c.set_rows(0, &same).unwrap().write(), RETAIL_LIKE);
        // Drop 3, renumber 5 to 4, add 4 (between 2 and the old 5) and 9 (after the last).
        let e = c
            .set_rows(
                0,
                &[
                    row(Some(line(2)), 2, "NY"),
                    row(Some(line(5)), 6, "X"),
                    row(None, 4, "NZ"),
                    row(None, 9, "Y"),
                ],
            )
            .unwrap();
        let text = String::from_utf8(e.write()).unwrap();
        assert!(
            text.contains("Bone\t2 NY\r\nBone\t4 NZ\r\nBone\t6 X\r\nBone\t9 Y\r\nEnd\r\n$"),
            "{text}"
        );
        assert!(matches!(
            c.set_rows(0, &[row(None, 1, "W")]),
            Err(ClothError::Axis { .. })
        ));
    }

    #[test]
    fn an_edited_text_is_padded_to_16_bytes_again_when_the_original_was() {
        let c = Clt::read(RETAIL_LIKE).unwrap();
        assert_eq!(RETAIL_LIKE.len() % 16, 0);
        let e = c.set_value(0, "MaxSpeed", &[Number::Float(1.0)]).unwrap();
        let p = e.padded_like(&c);
        assert_eq!(p.write().len() % 16, 0);
        assert_eq!(p.lines, e.lines);
        assert!(p.tail.len() > 1 && p.tail[1..].iter().all(|&b| b == 0));
        // Unpadded originals, and tails holding other bytes, are left as they are.
        let odd = Clt::read(b"ClothNum 0\n$x\0").unwrap();
        assert_eq!(odd.padded_like(&odd), odd);
    }

    #[test]
    fn lines_outside_blocks_and_unclosed_blocks_are_reported_as_read() {
        let t = b"ClothNum 2\nGravity 0 0 0\nClothNo 0\nBone 1 X\nClothNo 1\nEnd\nEnd\n$x";
        let c = Clt::read(t).unwrap();
        let g = c.grammar();
        assert_eq!(g.blocks.len(), 2);
        assert_eq!(g.blocks[0].end, None);
        assert_eq!(g.blocks[1].end, Some(5));
        let stray: Vec<_> = g.stray.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(stray, ["Gravity", "End"]);
        assert_eq!(c.tail, b"$x");
        assert_eq!(c.write(), t);
    }
}
