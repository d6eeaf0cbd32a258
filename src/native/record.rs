//! Fixed-size records declared once: the [`record!`](crate::record) macro turns one declaration
//! (offset, type, codec, coverage name, kind, evidence class, meaning) into the struct, its
//! decode and encode, its dump form (serde, each field as its codec writes it), the field table
//! `inspect --coverage` reads and the record's fragment of the dump schema.
//!
//! A field marked `#[derived]` counts a list that lives outside the record (the objects of a
//! container header, the keys of a motion track head): it is declared like any field (offset,
//! evidence, coverage row, schema fragment) but the struct does not hold it. Its value goes
//! beside the record, in a counts struct: decode hands it to the reader, which needs it to find
//! the list; encode takes it from the writer, which derives it from the list; the dump form
//! ([`Counted`]) prints it in its place and [`CountsOf`] reads it back for the dump's check.
//!
//! A declaration is checked at compile time: each field starts where the previous one ends and
//! the last ends at the record's size, so decode and encode cannot disagree with the layout and
//! their constant-offset slices cannot fail.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{json, Value};

use crate::native::container_kind::ContainerKind;

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

/// How sure we are of a field (the classes `docs/formats.md` lists).
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
    /// The class name as `docs/formats.md` and the dump schema write it.
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
    /// Writes the dump value.
    fn ser<S: Serializer>(v: &Self::Value, s: S) -> Result<S::Ok, S::Error>;
    /// Reads the dump value.
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Self::Value, D::Error>;
}

/// The two serde methods of a [`Codec`] whose value's own `Serialize`/`Deserialize` is its dump
/// form (an enum such as the container magic): `plain_serde!(Type);` inside the impl.
#[macro_export]
macro_rules! plain_serde {
    ($t:ty) => {
        #[inline]
        fn ser<S: ::serde::Serializer>(v: &$t, s: S) -> Result<S::Ok, S::Error> {
            ::serde::Serialize::serialize(v, s)
        }
        #[inline]
        fn de<'de, D: ::serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
            <$t as ::serde::Deserialize<'de>>::deserialize(d)
        }
    };
}

/// A field's value serialised as its codec `C` writes it (what a record's `Serialize` writes
/// for each field).
pub struct Ser<'a, C: Codec>(&'a C::Value, PhantomData<C>);

impl<'a, C: Codec> Ser<'a, C> {
    /// Wraps a field's value.
    #[inline]
    pub fn new(v: &'a C::Value) -> Self {
        Ser(v, PhantomData)
    }
}

impl<C: Codec> Serialize for Ser<'_, C> {
    #[inline]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        C::ser(self.0, s)
    }
}

/// Reads a field's value as its codec `C` reads it (what a record's `Deserialize` reads for
/// each field).
pub struct De<C>(PhantomData<C>);

impl<C> De<C> {
    /// The seed for one field.
    #[inline]
    pub fn new() -> Self {
        De(PhantomData)
    }
}

impl<C> Default for De<C> {
    fn default() -> Self {
        De::new()
    }
}

impl<'de, C: Codec> DeserializeSeed<'de> for De<C> {
    type Value = C::Value;
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<C::Value, D::Error> {
        C::de(d)
    }
}

/// A record's key in its dump form: the declared name it is (`None` for a key the record does
/// not have, which the record skips as serde's derive does), read as an identifier the way the
/// derive reads one (a string, bytes, or a field index).
pub struct Key(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Option<&'static str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Option<&'static str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(usize::try_from(v).ok().and_then(|i| self.0.get(i)).copied())
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().find(|k| **k == v).copied())
    }
    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(self.0.iter().find(|k| k.as_bytes() == v).copied())
    }
}

/// What a record read from a JSON array expects, as serde's derive says it:
/// `struct Name with N elements`.
pub struct Elements(pub &'static str, pub usize);

impl serde::de::Expected for Elements {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.1 == 1 { "" } else { "s" };
        write!(f, "struct {} with {} element{s}", self.0, self.1)
    }
}

/// A record declared with [`record!`](crate::record).
pub trait Record: Sized + DeserializeOwned {
    /// Size on disk.
    const LEN: usize;
    /// The fields in offset order.
    const FIELDS: &'static [FieldDef];
    /// The record's name in the dump schema's `$defs`.
    const SCHEMA_NAME: &'static str;
    /// The record's derived fields (counts of lists held elsewhere): not part of the record's
    /// value, handed out by decode and taken by encode. `()` for a record without any.
    type Counts: Copy + Default + fmt::Debug + PartialEq;
    /// Decodes from exactly `LEN` bytes: the record and its derived fields.
    fn decode_slice(b: &[u8], ctx: Ctx) -> Result<(Self, Self::Counts), BadValue>;
    /// Encodes into exactly `LEN` bytes, the derived fields from `counts`.
    fn encode_slice(&self, counts: &Self::Counts, out: &mut [u8]);
    /// Writes the dump form: every field in declaration order, the derived ones from `counts`.
    fn serialize_counted<S: Serializer>(
        &self,
        counts: &Self::Counts,
        s: S,
    ) -> Result<S::Ok, S::Error>;
    /// Reads the dump form: the record and its derived fields (the record's `Deserialize`
    /// keeps the record only).
    fn deserialize_counted<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<(Self, Self::Counts), D::Error>;
    /// The record's dump schema: an object with every field, in declaration order.
    fn schema() -> Value {
        schema_of(Self::FIELDS)
    }
}

/// A record with the values of its derived fields, serialised as the record's dump form (the
/// derived fields in their places). The reader of that form checks them against the lists
/// they count: the record's `Deserialize` reads them (so a missing or ill-typed one is refused
/// as any field is) and keeps none; [`CountsOf`] keeps them.
pub struct Counted<'a, R: Record>(pub &'a R, pub R::Counts);

impl<R: Record> Serialize for Counted<'_, R> {
    #[inline]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_counted(&self.1, s)
    }
}

/// The derived fields of a record read from its dump form (every field read and checked as
/// the record's own `Deserialize` does), for the reader that checks them against their lists.
pub struct CountsOf<R: Record>(pub R::Counts);

impl<'de, R: Record> Deserialize<'de> for CountsOf<R> {
    #[inline]
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        R::deserialize_counted(d).map(|(_, c)| CountsOf(c))
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

/// An integer written as a JSON number.
pub struct Int<T>(std::marker::PhantomData<T>);
/// A u32 or u64 written as `0x` hex.
pub struct Hex<T>(std::marker::PhantomData<T>);

macro_rules! codecs {
    ($wrap:ident, $ser:path, $de:path: $($t:ty, $schema:literal;)*) => {$(
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
            #[inline]
            fn ser<S: Serializer>(v: &$t, s: S) -> Result<S::Ok, S::Error> {
                $ser(v, s)
            }
            #[inline]
            fn de<'de, D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                $de(d)
            }
        }
    )*};
}
codecs!(Int, Serialize::serialize, Deserialize::deserialize: u8, "u8"; u16, "u16"; i16, "i16";);
codecs!(Hex, crate::bytes::hex_u32::serialize, crate::bytes::hex_u32::deserialize: u32, "hex32";);
codecs!(Hex, crate::bytes::hex_u64::serialize, crate::bytes::hex_u64::deserialize: u64, "hex64";);

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
    #[inline]
    fn ser<S: Serializer>(v: &[u8; N], s: S) -> Result<S::Ok, S::Error> {
        crate::bytes::hex_array::serialize(v, s)
    }
    #[inline]
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<[u8; N], D::Error> {
        crate::bytes::hex_array::deserialize(d)
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
    #[inline]
    fn ser<S: Serializer>(v: &[u32; N], s: S) -> Result<S::Ok, S::Error> {
        crate::bytes::hex_u32s::serialize(v, s)
    }
    #[inline]
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<[u32; N], D::Error> {
        crate::bytes::hex_u32s::deserialize(d)
    }
}

/// `N` i32 written as an array of JSON numbers (serde's own arrays: `N` up to 32).
pub struct I32s<const N: usize>;

impl<const N: usize> Codec for I32s<N>
where
    [i32; N]: Serialize + DeserializeOwned,
{
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
    #[inline]
    fn ser<S: Serializer>(v: &[i32; N], s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
    #[inline]
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<[i32; N], D::Error> {
        <[i32; N]>::deserialize(d)
    }
}

/// A record inside a record.
pub struct Nested<R>(std::marker::PhantomData<R>);

/// The one variant of a [`Nested`] field, for coverage: a record with no name of its own.
pub const NESTED: &str = "";

impl<R: Record<Counts = ()>> Codec for Nested<R> {
    type Value = R;
    const LEN: usize = R::LEN;
    const VARIANTS: &'static [(&'static str, &'static [FieldDef])] = &[(NESTED, R::FIELDS)];
    #[inline]
    fn get(b: &[u8], ctx: Ctx) -> Option<R> {
        R::decode_slice(b, ctx).ok().map(|(r, ())| r)
    }
    #[inline]
    fn put(v: &R, b: &mut [u8]) {
        v.encode_slice(&(), b)
    }
    fn schema() -> Value {
        def(R::SCHEMA_NAME)
    }
    #[inline]
    fn ser<S: Serializer>(v: &R, s: S) -> Result<S::Ok, S::Error> {
        v.serialize_counted(&(), s)
    }
    #[inline]
    fn de<'de, D: Deserializer<'de>>(d: D) -> Result<R, D::Error> {
        R::deserialize(d)
    }
}

/// Declares a fixed-size record once. Each field line gives its offset, name, type, codec
/// ([`Codec`]), the coverage name, kind, evidence class and meaning (the records in
/// `native::dmc3` and `native::hie` are the compiled examples):
///
/// ```text
/// record! {
///     /// Doc.
///     #[derive(Copy)]
///     pub struct Rec [0x08] "rec" counts RecCounts {
///         0x00 a: u32 = Hex<u32>, "a", Decoded ExeConfirmed, "what a is";
///         0x04 #[derived] n: u16 = Int<u16>, "n", Decoded Community, "how many things";
///         0x06 c: [u8; 2] = HexArray<2>, "c", Preserved PreservedUndecoded, "what c is";
///     }
/// }
/// ```
///
/// It defines the struct (fields documented `+0xNN meaning`; every record derives `Debug`,
/// `Clone`, `PartialEq`, `Eq` and `Default`, a declaration may add `Copy`), `LEN`, `FIELDS`,
/// `decode(&[u8; LEN], Ctx)`, `encode`, and implements [`Record`] and `Deserialize`. The dump
/// form is an object of the fields in declaration order, each as its codec writes it
/// ([`Codec::ser`], [`Codec::de`]); it is what `#[derive]` with a `#[serde(with = ...)]` per
/// field made, errors included (`missing field`, `duplicate field`, unknown keys skipped, an
/// array of the fields accepted), so the codec is said once.
///
/// A field marked `#[derived]` is a count of a list the record does not hold: it keeps its
/// offset, coverage row and schema fragment, but the struct does not hold it, so a value in
/// memory cannot disagree with its list. Its values live in the `counts` struct the
/// declaration names (`Copy`, `Default`, one field per derived field): `decode` returns
/// `(record, counts)` (the reader needs the count to find the list), `encode(&counts)` takes
/// them from the writer (which derives them from the lists), and the dump form is
/// [`Counted`]`(&record, counts)`; `Deserialize` reads a derived field like any other and
/// keeps none (the reader of a dump checks it against its list). A record without derived
/// fields has `decode -> record`, `encode()` and its own `Serialize`.
#[macro_export]
macro_rules! record {
    (
        $(#[$m:meta])*
        pub struct $name:ident [$len:expr] $schema:literal $(counts $counts:ident)? {
            $(
                $off:literal $(#[$derived:ident])? $field:ident : $ty:ty = $codec:ty,
                    $cov:literal, $kind:ident $ev:ident, $doc:literal;
            )*
        }
    ) => {
        $crate::record!(@structs [$(#[$m])*] $name [$($counts)?] {} {}
            $($off $(#[$derived])? $field : $ty, $doc;)*);

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
        }

        $crate::record!(@api $name [$len] [$($counts)?]);

        impl $crate::native::record::Record for $name {
            const LEN: usize = $len;
            const FIELDS: &'static [$crate::native::record::FieldDef] = $name::FIELDS;
            const SCHEMA_NAME: &'static str = $schema;
            type Counts = $crate::record!(@counts_ty [$($counts)?]);

            #[inline]
            fn decode_slice(
                b: &[u8],
                ctx: $crate::native::record::Ctx,
            ) -> Result<(Self, Self::Counts), $crate::native::record::BadValue> {
                #[allow(unused_mut)]
                let mut record = $name::default();
                #[allow(unused_mut)]
                let mut counts = <Self::Counts as Default>::default();
                $(
                    let value = <$codec as $crate::native::record::Codec>::get(
                        &b[$off..$off + <$codec as $crate::native::record::Codec>::LEN],
                        ctx,
                    )
                    .ok_or($crate::native::record::BadValue { key: stringify!($field) })?;
                    $crate::record!(@pick [$($derived)?]
                        { counts.$field = value; }
                        { record.$field = value; });
                )*
                Ok((record, counts))
            }

            #[inline]
            fn encode_slice(&self, counts: &Self::Counts, out: &mut [u8]) {
                let _ = counts;
                $(
                    $crate::record!(@pick [$($derived)?]
                        {
                            <$codec as $crate::native::record::Codec>::put(
                                &counts.$field,
                                &mut out[$off..$off + <$codec as $crate::native::record::Codec>::LEN],
                            );
                        }
                        {
                            <$codec as $crate::native::record::Codec>::put(
                                &self.$field,
                                &mut out[$off..$off + <$codec as $crate::native::record::Codec>::LEN],
                            );
                        });
                )*
            }

            fn serialize_counted<S: ::serde::Serializer>(
                &self,
                counts: &Self::Counts,
                s: S,
            ) -> Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeStruct;
                let _ = counts;
                let mut st = s.serialize_struct(stringify!($name), $name::FIELDS.len())?;
                $(
                    $crate::record!(@pick [$($derived)?]
                        {
                            st.serialize_field(
                                stringify!($field),
                                &$crate::native::record::Ser::<$codec>::new(&counts.$field),
                            )?;
                        }
                        {
                            st.serialize_field(
                                stringify!($field),
                                &$crate::native::record::Ser::<$codec>::new(&self.$field),
                            )?;
                        });
                )*
                st.end()
            }

            fn deserialize_counted<'de, D: ::serde::Deserializer<'de>>(
                d: D,
            ) -> Result<(Self, Self::Counts), D::Error> {
                const KEYS: &[&str] = &[$(stringify!($field)),*];
                type Counts = $crate::record!(@counts_ty [$($counts)?]);
                struct V;
                impl<'de> ::serde::de::Visitor<'de> for V {
                    type Value = ($name, Counts);
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(concat!("struct ", stringify!($name)))
                    }
                    #[allow(unused_assignments)]
                    fn visit_seq<A: ::serde::de::SeqAccess<'de>>(
                        self,
                        mut seq: A,
                    ) -> Result<Self::Value, A::Error> {
                        let mut i = 0usize;
                        #[allow(unused_mut)]
                        let mut record = $name::default();
                        #[allow(unused_mut)]
                        let mut counts = <Counts as Default>::default();
                        $(
                            let value = seq
                                .next_element_seed($crate::native::record::De::<$codec>::new())?
                                .ok_or_else(|| {
                                    <A::Error as ::serde::de::Error>::invalid_length(
                                        i,
                                        &$crate::native::record::Elements(
                                            stringify!($name),
                                            KEYS.len(),
                                        ),
                                    )
                                })?;
                            $crate::record!(@pick [$($derived)?]
                                { counts.$field = value; }
                                { record.$field = value; });
                            i += 1;
                        )*
                        Ok((record, counts))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<Self::Value, A::Error> {
                        $( let mut $field = None; )*
                        while let Some(key) =
                            map.next_key_seed($crate::native::record::Key(KEYS))?
                        {
                            match key {
                                $(
                                    Some(stringify!($field)) => {
                                        if $field.is_some() {
                                            return Err(
                                                <A::Error as ::serde::de::Error>::duplicate_field(
                                                    stringify!($field),
                                                ),
                                            );
                                        }
                                        $field = Some(map.next_value_seed(
                                            $crate::native::record::De::<$codec>::new(),
                                        )?);
                                    }
                                )*
                                _ => {
                                    map.next_value::<::serde::de::IgnoredAny>()?;
                                }
                            }
                        }
                        #[allow(unused_mut)]
                        let mut record = $name::default();
                        #[allow(unused_mut)]
                        let mut counts = <Counts as Default>::default();
                        $(
                            let value = $field.ok_or_else(|| {
                                <A::Error as ::serde::de::Error>::missing_field(
                                    stringify!($field),
                                )
                            })?;
                            $crate::record!(@pick [$($derived)?]
                                { counts.$field = value; }
                                { record.$field = value; });
                        )*
                        Ok((record, counts))
                    }
                }
                d.deserialize_struct(stringify!($name), KEYS, V)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <$name as $crate::native::record::Record>::deserialize_counted(d).map(|(r, _)| r)
            }
        }
    };

    // The struct (stored fields) and the counts struct (derived fields), split field by field.
    (@structs $meta:tt $name:ident $counts:tt {$($s:tt)*} {$($d:tt)*}
        $off:literal #[derived] $field:ident : $ty:ty, $doc:literal; $($rest:tt)*) => {
        $crate::record!(@structs $meta $name $counts {$($s)*}
            {$($d)* #[doc = concat!("+", stringify!($off), " ", $doc, ".")] pub $field: $ty,}
            $($rest)*);
    };
    (@structs $meta:tt $name:ident $counts:tt {$($s:tt)*} {$($d:tt)*}
        $off:literal $field:ident : $ty:ty, $doc:literal; $($rest:tt)*) => {
        $crate::record!(@structs $meta $name $counts
            {$($s)* #[doc = concat!("+", stringify!($off), " ", $doc, ".")] pub $field: $ty,}
            {$($d)*}
            $($rest)*);
    };
    (@structs [$($meta:tt)*] $name:ident [] {$($s:tt)*} {}) => {
        $($meta)*
        #[derive(Debug, Clone, PartialEq, Eq, Default)]
        pub struct $name { $($s)* }
    };
    (@structs [$($meta:tt)*] $name:ident [$counts:ident] {$($s:tt)*} {$($d:tt)+}) => {
        $($meta)*
        #[derive(Debug, Clone, PartialEq, Eq, Default)]
        pub struct $name { $($s)* }

        #[doc = concat!(
            "The derived fields of a [`", stringify!($name), "`]: counts of lists it does not ",
            "hold, which decode hands to the reader and encode takes from the writer."
        )]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct $counts { $($d)* }
    };

    (@counts_ty []) => { () };
    (@counts_ty [$counts:ident]) => { $counts };

    (@pick [] {$($derived:tt)*} {$($stored:tt)*}) => { $($stored)* };
    (@pick [derived] {$($derived:tt)*} {$($stored:tt)*}) => { $($derived)* };

    // A record without derived fields: decode gives the record, encode needs nothing else, and
    // its dump form is its own `Serialize`.
    (@api $name:ident [$len:expr] []) => {
        impl $name {
            /// Decodes the record from its bytes; fails only for a value its type cannot hold.
            #[inline]
            pub fn decode(
                b: &[u8; $len],
                ctx: $crate::native::record::Ctx,
            ) -> Result<Self, $crate::native::record::BadValue> {
                <$name as $crate::native::record::Record>::decode_slice(b, ctx).map(|(r, ())| r)
            }

            /// The record's bytes.
            #[inline]
            pub fn encode(&self) -> [u8; $len] {
                let mut b = [0u8; $len];
                $crate::native::record::Record::encode_slice(self, &(), &mut b);
                b
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::native::record::Record::serialize_counted(self, &(), s)
            }
        }
    };
    // A record with derived fields: decode also gives their values, encode takes them.
    (@api $name:ident [$len:expr] [$counts:ident]) => {
        impl $name {
            /// Decodes the record and its derived fields from its bytes; fails only for a value
            /// its type cannot hold.
            #[inline]
            pub fn decode(
                b: &[u8; $len],
                ctx: $crate::native::record::Ctx,
            ) -> Result<(Self, $counts), $crate::native::record::BadValue> {
                <$name as $crate::native::record::Record>::decode_slice(b, ctx)
            }

            /// The record's bytes, its derived fields from `counts`.
            #[inline]
            pub fn encode(&self, counts: &$counts) -> [u8; $len] {
                let mut b = [0u8; $len];
                $crate::native::record::Record::encode_slice(self, counts, &mut b);
                b
            }

            /// The record's dump form, its derived fields from `counts`.
            #[inline]
            pub fn counted(&self, counts: $counts) -> $crate::native::record::Counted<'_, Self> {
                $crate::native::record::Counted(self, counts)
            }
        }
    };
}

#[cfg(test)]
#[allow(dead_code)] // the test records' decode and encode are not called
mod tests {
    use super::*;
    use serde::Deserialize;

    crate::record! {
        /// A record with one field of each codec.
        pub struct Every [0x2C] "every" {
            0x00 a: u8 = Int<u8>, "a", Decoded Community, "a";
            0x01 b: u8 = Int<u8>, "b", Decoded Community, "b";
            0x02 c: u16 = Int<u16>, "c", Decoded Community, "c";
            0x04 d: u32 = Hex<u32>, "d", Decoded Community, "d";
            0x08 e: u64 = Hex<u64>, "e", Decoded Community, "e";
            0x10 f: [u8; 4] = HexArray<4>, "f", Decoded Community, "f";
            0x14 g: [u32; 2] = Hex32s<2>, "g", Decoded Community, "g";
            0x1C h: [i32; 2] = I32s<2>, "h", Decoded Community, "h";
            0x24 i: Inner = Nested<Inner>, "i", Decoded Community, "i";
        }
    }

    crate::record! {
        /// A nested record.
        pub struct Inner [0x08] "inner" {
            0x00 x: u32 = Hex<u32>, "x", Decoded Community, "x";
            0x04 y: u32 = Hex<u32>, "y", Decoded Community, "y";
        }
    }

    /// What `#[derive]` with one `with` per field made before the codec said it (the same
    /// names: the derive's messages name the struct).
    mod derived {
        use serde::{Deserialize, Serialize};

        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        pub struct Every {
            a: u8,
            b: u8,
            c: u16,
            #[serde(with = "crate::bytes::hex_u32")]
            d: u32,
            #[serde(with = "crate::bytes::hex_u64")]
            e: u64,
            #[serde(with = "crate::bytes::hex_array")]
            f: [u8; 4],
            #[serde(with = "crate::bytes::hex_u32s")]
            g: [u32; 2],
            h: [i32; 2],
            i: Inner,
        }

        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        pub struct Inner {
            #[serde(with = "crate::bytes::hex_u32")]
            x: u32,
            #[serde(with = "crate::bytes::hex_u32")]
            y: u32,
        }
    }
    use derived::Every as Derived;

    crate::record! {
        /// A record with a derived field: the count of a list it does not hold.
        pub struct Counting [0x08] "counting" counts CountingCounts {
            0x00 tag: u32 = Hex<u32>, "tag", Decoded Community, "tag";
            0x04 #[derived] n: u16 = Int<u16>, "item count", Decoded Community,
                "items that follow";
            0x06 flags: u16 = Int<u16>, "flags", Preserved PreservedUndecoded, "flags";
        }
    }

    /// A derived field keeps its place in the bytes, the field table and the schema, and its
    /// value travels beside the record: decode hands it out, encode and the dump form take it.
    #[test]
    fn a_derived_field_is_declared_but_not_held() {
        let b = [0x78, 0x56, 0x34, 0x12, 0x03, 0x00, 0xFF, 0x00];
        let (r, c) = Counting::decode(&b, Ctx::default()).unwrap();
        assert_eq!(
            r,
            Counting {
                tag: 0x1234_5678,
                flags: 0xFF
            }
        );
        assert_eq!(c, CountingCounts { n: 3 });
        assert_eq!(r.encode(&c), b);
        assert_eq!(
            r.encode(&CountingCounts { n: 0x0102 }),
            [0x78, 0x56, 0x34, 0x12, 0x02, 0x01, 0xFF, 0x00]
        );
        let rows: Vec<_> = Counting::FIELDS
            .iter()
            .map(|f| (f.offset, f.len, f.key, f.name, f.kind, f.evidence, f.doc))
            .collect();
        assert_eq!(
            rows,
            vec![
                (
                    0,
                    4,
                    "tag",
                    "tag",
                    Kind::Decoded,
                    Evidence::Community,
                    "tag"
                ),
                (
                    4,
                    2,
                    "n",
                    "item count",
                    Kind::Decoded,
                    Evidence::Community,
                    "items that follow"
                ),
                (
                    6,
                    2,
                    "flags",
                    "flags",
                    Kind::Preserved,
                    Evidence::PreservedUndecoded,
                    "flags"
                ),
            ]
        );
        assert_eq!(
            Counting::schema(),
            json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["tag", "n", "flags"],
                "properties": {
                    "tag": {"$ref": "#/$defs/hex32", "description": "+0x00 COMMUNITY: tag."},
                    "n": {"$ref": "#/$defs/u16", "description": "+0x04 COMMUNITY: items that follow."},
                    "flags": {"$ref": "#/$defs/u16", "description": "+0x06 PRESERVED_UNDECODED: flags."},
                }
            })
        );
        let text = r#"{"tag":"0x12345678","n":3,"flags":255}"#;
        assert_eq!(serde_json::to_string(&r.counted(c)).unwrap(), text);
        // Read back, the record keeps no count; CountsOf keeps it (from an array as well).
        assert_eq!(serde_json::from_str::<Counting>(text).unwrap(), r);
        assert_eq!(
            serde_json::from_str::<CountsOf<Counting>>(text).unwrap().0,
            c
        );
        assert_eq!(
            serde_json::from_str::<CountsOf<Counting>>(r#"["0x1",9,2]"#)
                .unwrap()
                .0,
            CountingCounts { n: 9 }
        );
        // A derived field is read as any field: missing or out of range is refused.
        assert_eq!(
            text_of::<Counting>(r#"{"tag":"0x1","flags":2}"#),
            "error: missing field `n` at line 1 column 23"
        );
        assert_eq!(
            text_of::<Counting>(r#"{"tag":"0x1","n":70000,"flags":2}"#),
            "error: invalid value: integer `70000`, expected u16 at line 1 column 22"
        );
    }

    fn text_of<T: serde::de::DeserializeOwned + fmt::Debug>(s: &str) -> String {
        match serde_json::from_str::<T>(s) {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("error: {e}"),
        }
    }

    fn text(r: Result<impl Serialize, serde_json::Error>) -> String {
        match r {
            Ok(v) => serde_json::to_string(&v).unwrap(),
            Err(e) => format!("error: {e}"),
        }
    }

    fn pointed<'de, T: Deserialize<'de> + Serialize>(v: &'de Value) -> String {
        match serde_path_to_error::deserialize::<_, T>(v) {
            Ok(t) => serde_json::to_string(&t).unwrap(),
            Err(e) => format!("error at {}: {}", e.path(), e.inner()),
        }
    }

    #[test]
    fn the_codec_serde_is_what_the_derive_was() {
        let good = r#"{"a":1,"b":255,"c":65535,"d":"0x0000abcd","e":"0x1f","f":"00ff10aa",
            "g":["0x3f800000","0x00000000"],"h":[-1,7],"i":{"x":"0x00000001","y":"0xffffffff"}}"#;
        let mut cases: Vec<String> = vec![
            good.into(),
            // Every field in an array, as the derive accepts.
            r#"[1,2,3,"0x4","0x5","01020304",["0x1","0x2"],[1,2],["0x1","0x2"]]"#.into(),
            r#"[1,2,3,"0x4"]"#.into(),
            r#"[1,2,3,"0x4","0x5","01020304",["0x1","0x2"],[1,2],["0x1","0x2"],9]"#.into(),
            r#"[1,2,3,"0x4","0x5","01020304",["0x1","0x2"],[1,2],["0x1"]]"#.into(),
            r#"[]"#.into(),
            r#""a string""#.into(),
            "7".into(),
            "null".into(),
            "{}".into(),
            r#"{"a":1}"#.into(),
            r#"{"a":1,"a":2}"#.into(),
            r#"{"zz":1,"a":1}"#.into(),
        ];
        // Each field broken in turn, removed, or duplicated.
        let base: Value = serde_json::from_str(good).unwrap();
        let bad = [
            json!("one"),
            json!(-1),
            json!(256),
            json!(1.5),
            json!(null),
            json!("0x"),
            json!("12"),
            json!("0xfffffffff"),
            json!("0x1ffffffffffffffff"),
            json!("00f"),
            json!("0g"),
            json!("0011"),
            json!([]),
            json!(["0x1"]),
            json!(["0x1", "0x2", "0x3"]),
            json!(["x", "0x2"]),
            json!([1, 2, 3]),
            json!([1]),
            json!({"x": "0x1"}),
            json!({"x": "0x1", "y": "0x2", "z": 3}),
            json!({}),
        ];
        for k in ["a", "b", "c", "d", "e", "f", "g", "h", "i"] {
            for b in &bad {
                let mut v = base.clone();
                v[k] = b.clone();
                cases.push(v.to_string());
            }
            let mut v = base.clone();
            v.as_object_mut().unwrap().remove(k);
            cases.push(v.to_string());
            // A key given twice (text only: a JSON map cannot hold it).
            cases.push(good.replacen('{', &format!("{{\"{k}\":{},", base[k]), 1));
        }
        for c in &cases {
            let ours = text(serde_json::from_str::<Every>(c));
            let derived = text(serde_json::from_str::<Derived>(c));
            assert_eq!(ours, derived, "{c}");
            if let Ok(v) = serde_json::from_str::<Value>(c) {
                assert_eq!(pointed::<Every>(&v), pointed::<Derived>(&v), "{c}");
            }
        }
        let e: Every = serde_json::from_str(good).unwrap();
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            text(serde_json::from_str::<Derived>(good))
        );
        assert_eq!(serde_json::to_value(&e).unwrap(), base);
    }
}
