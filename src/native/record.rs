//! Fixed-size records declared once: the [`record!`](crate::record) macro turns one declaration
//! (offset, type, codec, coverage name, kind, evidence class, meaning) into the struct, its
//! decode and encode, the field table `inspect --coverage` reads and the record's fragment of the
//! dump schema.
//!
//! A declaration is checked at compile time: each field starts where the previous one ends and
//! the last ends at the record's size, so decode and encode cannot disagree with the layout and
//! their constant-offset slices cannot fail.

use serde::Serialize;
use serde_json::{json, Value};

use crate::native::dmc3::ContainerKind;

/// How a byte range is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A field whose meaning is known and decoded.
    Decoded,
    /// A known field (place and size) whose meaning is not: kept bit for bit.
    Preserved,
    /// Bytes outside every known structure: gaps, padding, trailing data.
    Undecoded,
}

impl Kind {
    /// The name used in JSON and text.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Decoded => "decoded",
            Kind::Preserved => "preserved",
            Kind::Undecoded => "undecoded",
        }
    }
}

/// The evidence classes of FORMATS.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Evidence {
    /// The game executable was seen to read it this way.
    ExeConfirmed,
    /// Layout proven (size, stride, offset), meaning partly known.
    StructuralConfirmed,
    /// Every file seen so far has this value.
    CorpusConfirmed,
    /// Documented by public modding tools, not by the executable.
    Community,
    /// Bytes we carry but do not understand.
    PreservedUndecoded,
}

impl Evidence {
    /// The class name as FORMATS.md writes it.
    pub fn name(self) -> &'static str {
        match self {
            Evidence::ExeConfirmed => "EXE_CONFIRMED",
            Evidence::StructuralConfirmed => "STRUCTURAL_CONFIRMED",
            Evidence::CorpusConfirmed => "CORPUS_CONFIRMED",
            Evidence::Community => "COMMUNITY",
            Evidence::PreservedUndecoded => "PRESERVED_UNDECODED",
        }
    }
}

/// One field of a fixed record, as declared.
#[derive(Debug, Clone, Copy)]
pub struct FieldDef {
    /// Offset inside the record.
    pub offset: u64,
    /// Size in bytes.
    pub len: u64,
    /// The struct field, which is also the dump's JSON key.
    pub key: &'static str,
    /// The name coverage shows; a name ending in `[]` is listed per element (`offset[0]`...).
    pub name: &'static str,
    /// Decoded or preserved.
    pub kind: Kind,
    /// Evidence class.
    pub evidence: Evidence,
    /// What the field means.
    pub doc: &'static str,
    /// Number of equal elements the field holds (1 for a scalar).
    pub elements: u64,
    /// The JSON Schema of the field's dump value.
    pub schema: fn() -> Value,
    /// For a field that is itself a record (or one of several): each record's name and fields.
    pub variants: &'static [(&'static str, &'static [FieldDef])],
}

impl FieldDef {
    /// The field's dump schema with its description (`+0x04 COMMUNITY: ...`).
    pub fn schema_with_description(&self) -> Value {
        let mut s = (self.schema)();
        if let Value::Object(m) = &mut s {
            m.insert(
                "description".into(),
                Value::from(format!(
                    "+0x{:02X} {}: {}.",
                    self.offset,
                    self.evidence.name(),
                    self.doc
                )),
            );
        }
        s
    }
}

/// What a decode may need beyond the record's bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ctx {
    /// The container kind, which picks a DMC3 mesh record's variant.
    pub container: Option<ContainerKind>,
}

/// Bytes a field's type cannot hold (a magic that is no known one, a variant without its kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadValue {
    /// The field.
    pub key: &'static str,
}

/// How one field's value goes to and from its bytes, and what it looks like in the dump.
pub trait Codec {
    /// The Rust type of the field.
    type Value;
    /// Size on disk.
    const LEN: usize;
    /// Number of equal elements (coverage may list them one by one).
    const ELEMENTS: u64 = 1;
    /// Sub-records, for a field that is a record.
    const VARIANTS: &'static [(&'static str, &'static [FieldDef])] = &[];
    /// Decodes from exactly `LEN` bytes.
    fn get(b: &[u8], ctx: Ctx) -> Option<Self::Value>;
    /// Encodes into exactly `LEN` bytes.
    fn put(v: &Self::Value, b: &mut [u8]);
    /// The JSON Schema of the dump value.
    fn schema() -> Value;
}

/// A record declared with [`record!`](crate::record).
pub trait Record: Sized {
    /// Size on disk.
    const LEN: usize;
    /// The fields in offset order.
    const FIELDS: &'static [FieldDef];
    /// The record's name in the dump schema's `$defs`.
    const SCHEMA_NAME: &'static str;
    /// Decodes from exactly `LEN` bytes.
    fn decode_slice(b: &[u8], ctx: Ctx) -> Result<Self, BadValue>;
    /// Encodes into exactly `LEN` bytes.
    fn encode_slice(&self, out: &mut [u8]);
    /// The record's dump schema: an object with every field, in declaration order.
    fn schema() -> Value {
        schema_of(Self::FIELDS)
    }
}

/// The dump schema of an object holding `fields`.
pub fn schema_of(fields: &[FieldDef]) -> Value {
    let mut props = serde_json::Map::new();
    for f in fields {
        props.insert(f.key.into(), f.schema_with_description());
    }
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": fields.iter().map(|f| f.key).collect::<Vec<_>>(),
        "properties": props,
    })
}

fn def(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(b);
    a
}

/// An unsigned integer written as a JSON number.
pub struct Int<T>(std::marker::PhantomData<T>);
/// A u32 or u64 written as `0x` hex.
pub struct Hex<T>(std::marker::PhantomData<T>);

macro_rules! codecs {
    ($wrap:ident: $($t:ty, $schema:literal;)*) => {$(
        impl Codec for $wrap<$t> {
            type Value = $t;
            const LEN: usize = std::mem::size_of::<$t>();
            #[inline]
            fn get(b: &[u8], _: Ctx) -> Option<$t> {
                Some(<$t>::from_le_bytes(array(b)))
            }
            #[inline]
            fn put(v: &$t, b: &mut [u8]) {
                b.copy_from_slice(&v.to_le_bytes());
            }
            fn schema() -> Value {
                def($schema)
            }
        }
    )*};
}
codecs!(Int: u8, "u8"; u16, "u16";);
codecs!(Hex: u32, "hex32"; u64, "hex64";);

/// Fixed bytes written as a hex string.
pub struct HexArray<const N: usize>;

impl<const N: usize> Codec for HexArray<N> {
    type Value = [u8; N];
    const LEN: usize = N;
    #[inline]
    fn get(b: &[u8], _: Ctx) -> Option<[u8; N]> {
        Some(array(b))
    }
    #[inline]
    fn put(v: &[u8; N], b: &mut [u8]) {
        b.copy_from_slice(v);
    }
    fn schema() -> Value {
        json!({ "type": "string", "pattern": format!("^([0-9a-fA-F]{{2}}){{{N}}}$") })
    }
}

/// `N` u32 (f32 bit patterns) written as an array of `0x` hex strings.
pub struct Hex32s<const N: usize>;

impl<const N: usize> Codec for Hex32s<N> {
    type Value = [u32; N];
    const LEN: usize = 4 * N;
    const ELEMENTS: u64 = N as u64;
    #[inline]
    fn get(b: &[u8], _: Ctx) -> Option<[u32; N]> {
        let mut a = [0u32; N];
        for (v, c) in a.iter_mut().zip(b.chunks_exact(4)) {
            *v = u32::from_le_bytes(array(c));
        }
        Some(a)
    }
    #[inline]
    fn put(v: &[u32; N], b: &mut [u8]) {
        for (x, c) in v.iter().zip(b.chunks_exact_mut(4)) {
            c.copy_from_slice(&x.to_le_bytes());
        }
    }
    fn schema() -> Value {
        json!({ "type": "array", "minItems": N, "maxItems": N, "items": def("hex32") })
    }
}

/// `N` i32 written as an array of JSON numbers.
pub struct I32s<const N: usize>;

impl<const N: usize> Codec for I32s<N> {
    type Value = [i32; N];
    const LEN: usize = 4 * N;
    const ELEMENTS: u64 = N as u64;
    #[inline]
    fn get(b: &[u8], _: Ctx) -> Option<[i32; N]> {
        let mut a = [0i32; N];
        for (v, c) in a.iter_mut().zip(b.chunks_exact(4)) {
            *v = i32::from_le_bytes(array(c));
        }
        Some(a)
    }
    #[inline]
    fn put(v: &[i32; N], b: &mut [u8]) {
        for (x, c) in v.iter().zip(b.chunks_exact_mut(4)) {
            c.copy_from_slice(&x.to_le_bytes());
        }
    }
    fn schema() -> Value {
        json!({ "type": "array", "minItems": N, "maxItems": N, "items": def("i32") })
    }
}

/// A record inside a record.
pub struct Nested<R>(std::marker::PhantomData<R>);

/// The one variant of a [`Nested`] field, for coverage: a record with no name of its own.
pub const NESTED: &str = "";

impl<R: Record> Codec for Nested<R> {
    type Value = R;
    const LEN: usize = R::LEN;
    const VARIANTS: &'static [(&'static str, &'static [FieldDef])] = &[(NESTED, R::FIELDS)];
    #[inline]
    fn get(b: &[u8], ctx: Ctx) -> Option<R> {
        R::decode_slice(b, ctx).ok()
    }
    #[inline]
    fn put(v: &R, b: &mut [u8]) {
        v.encode_slice(b)
    }
    fn schema() -> Value {
        def(R::SCHEMA_NAME)
    }
}

/// Declares a fixed-size record once. Each field line gives its offset, name, type, codec
/// ([`Codec`]), the coverage name, kind, evidence class and meaning (the records in
/// `native::dmc3` and `native::hie` are the compiled examples):
///
/// ```text
/// record! {
///     /// Doc.
///     #[derive(Debug)]
///     pub struct Rec [0x08] "rec" {
///         #[serde(with = "crate::bytes::hex_u32")]
///         0x00 a: u32 = Hex<u32>, "a", Decoded ExeConfirmed, "what a is";
///         0x04 b: u32 = Int<u32>, "b", Preserved PreservedUndecoded, "what b is";
///     }
/// }
/// ```
///
/// It defines the struct (fields documented `+0xNN meaning`), `LEN`, `FIELDS`,
/// `decode(&[u8; LEN], Ctx)`, `encode() -> [u8; LEN]`, and implements [`Record`].
#[macro_export]
macro_rules! record {
    (
        $(#[$m:meta])*
        pub struct $name:ident [$len:expr] $schema:literal {
            $(
                $(#[$fm:meta])*
                $off:literal $field:ident : $ty:ty = $codec:ty,
                    $cov:literal, $kind:ident $ev:ident, $doc:literal;
            )*
        }
    ) => {
        $(#[$m])*
        pub struct $name {
            $(
                #[doc = concat!("+", stringify!($off), " ", $doc, ".")]
                $(#[$fm])*
                pub $field: $ty,
            )*
        }

        // The layout is contiguous and fills the record: decode and encode slice at these
        // constant offsets only.
        const _: () = {
            let mut at = 0usize;
            $(
                assert!(
                    $off == at,
                    concat!(stringify!($name), ".", stringify!($field), " does not start where the previous field ends")
                );
                at += <$codec as $crate::native::record::Codec>::LEN;
            )*
            assert!(at == $len, concat!(stringify!($name), ": the fields do not fill the record"));
        };

        impl $name {
            /// Size on disk.
            pub const LEN: usize = $len;
            /// The fields in offset order, as declared.
            pub const FIELDS: &'static [$crate::native::record::FieldDef] = &[
                $(
                    $crate::native::record::FieldDef {
                        offset: $off,
                        len: <$codec as $crate::native::record::Codec>::LEN as u64,
                        key: stringify!($field),
                        name: $cov,
                        kind: $crate::native::record::Kind::$kind,
                        evidence: $crate::native::record::Evidence::$ev,
                        doc: $doc,
                        elements: <$codec as $crate::native::record::Codec>::ELEMENTS,
                        schema: <$codec as $crate::native::record::Codec>::schema,
                        variants: <$codec as $crate::native::record::Codec>::VARIANTS,
                    },
                )*
            ];

            /// Decodes the record from its bytes; fails only for a value its type cannot hold.
            #[inline]
            pub fn decode(
                b: &[u8; $len],
                ctx: $crate::native::record::Ctx,
            ) -> Result<Self, $crate::native::record::BadValue> {
                Ok($name {
                    $(
                        $field: <$codec as $crate::native::record::Codec>::get(
                            &b[$off..$off + <$codec as $crate::native::record::Codec>::LEN],
                            ctx,
                        )
                        .ok_or($crate::native::record::BadValue { key: stringify!($field) })?,
                    )*
                })
            }

            /// The record's bytes.
            #[inline]
            pub fn encode(&self) -> [u8; $len] {
                let mut b = [0u8; $len];
                $(
                    <$codec as $crate::native::record::Codec>::put(
                        &self.$field,
                        &mut b[$off..$off + <$codec as $crate::native::record::Codec>::LEN],
                    );
                )*
                b
            }
        }

        impl $crate::native::record::Record for $name {
            const LEN: usize = $len;
            const FIELDS: &'static [$crate::native::record::FieldDef] = $name::FIELDS;
            const SCHEMA_NAME: &'static str = $schema;
            #[inline]
            fn decode_slice(
                b: &[u8],
                ctx: $crate::native::record::Ctx,
            ) -> Result<Self, $crate::native::record::BadValue> {
                let mut a = [0u8; $len];
                a.copy_from_slice(b);
                $name::decode(&a, ctx)
            }
            #[inline]
            fn encode_slice(&self, out: &mut [u8]) {
                out.copy_from_slice(&self.encode());
            }
        }
    };
}
