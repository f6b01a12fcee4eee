//! A serde deserializer in front of `yaml_serde`'s that lets one deserialisation of a
//! file stand in for "the file without these keys" and tells where it stopped.
//!
//! Serde stops at the first error, and after an error a YAML deserializer's state is
//! unknown, so the problems of a file are found one deserialisation each
//! ([`super::problems`]): this adapter skips the entries at the `hidden` key paths (the
//! problems already found) and records, in [`Failure`], the deepest key path an error
//! came out of, whether it was the key itself that was refused (an unknown key), and the
//! keys a struct accepts there (from `deserialize_struct`, so they are the structs' own
//! serde names, never a table kept by hand).
//!
//! Keys are read as text and handed on to the struct or map being built; values are
//! read by the wrapped deserializer itself, so every error keeps its line and column.
//! `deserialize_any` (raw `yaml_serde::Value`s such as `hooks:`, `strict_bool`) is passed
//! through unfiltered.

use std::cell::RefCell;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, IntoDeserializer, MapAccess,
    SeqAccess, Visitor,
};

/// One step of a key path: a mapping key or a sequence index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// Where a value is in a file: the keys and indices leading to it from the top.
pub(crate) type KeyPath = Vec<Seg>;

/// Where a deserialisation stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    /// The deepest entry the error came out of.
    pub path: KeyPath,
    /// The key itself was refused (an unknown key); its value was not read.
    pub key: bool,
    /// The keys the struct at that level accepts, when it is a struct.
    pub fields: Option<&'static [&'static str]>,
}

/// What every level of one deserialisation shares.
#[derive(Clone, Copy)]
struct Shared<'a> {
    hidden: &'a [KeyPath],
    failure: &'a RefCell<Option<Failure>>,
}

impl Shared<'_> {
    /// Records where the error came out, unless a deeper level already did.
    fn fail(&self, path: KeyPath, key: bool, fields: Option<&'static [&'static str]>) {
        let mut slot = self.failure.borrow_mut();
        if slot.is_none() {
            *slot = Some(Failure { path, key, fields });
        }
    }
}

/// The position of a value being deserialised.
#[derive(Clone)]
struct Ctx<'a> {
    shared: Shared<'a>,
    path: KeyPath,
}

impl<'a> Ctx<'a> {
    fn child(&self, seg: Seg) -> Ctx<'a> {
        let mut path = self.path.clone();
        path.push(seg);
        Ctx {
            shared: self.shared,
            path,
        }
    }

    fn hidden(&self) -> bool {
        self.shared.hidden.contains(&self.path)
    }
}

/// The adapter: deserialises from `de`, skipping the hidden entries.
pub(crate) struct Filter<'a, D> {
    de: D,
    ctx: Ctx<'a>,
}

impl<'a, D> Filter<'a, D> {
    /// Deserialises the whole document of `de`, leaving out the entries at `hidden`;
    /// where an error came out is written to `failure`.
    pub(crate) fn new(de: D, hidden: &'a [KeyPath], failure: &'a RefCell<Option<Failure>>) -> Self {
        Self {
            de,
            ctx: Ctx {
                shared: Shared { hidden, failure },
                path: Vec::new(),
            },
        }
    }
}

macro_rules! forward_deserialize {
    ($($name:ident)*) => {$(
        fn $name<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.de.$name(visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Filter<'_, D> {
    type Error = D::Error;

    forward_deserialize!(
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_unit deserialize_identifier deserialize_ignored_any
    );

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.de
            .deserialize_option(Wrap::new(visitor, self.ctx, None))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_unit_struct(name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de
            .deserialize_newtype_struct(name, Wrap::new(visitor, self.ctx, None))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_seq(Wrap::new(visitor, self.ctx, None))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de
            .deserialize_tuple(len, Wrap::new(visitor, self.ctx, None))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de
            .deserialize_tuple_struct(name, len, Wrap::new(visitor, self.ctx, None))
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_map(Wrap::new(visitor, self.ctx, None))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de
            .deserialize_struct(name, fields, Wrap::new(visitor, self.ctx, Some(fields)))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_enum(name, variants, visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// A visitor handing the maps and sequences it is given on filtered.
struct Wrap<'a, V> {
    visitor: V,
    ctx: Ctx<'a>,
    /// The keys of the struct being read, if it is one.
    fields: Option<&'static [&'static str]>,
}

impl<'a, V> Wrap<'a, V> {
    fn new(visitor: V, ctx: Ctx<'a>, fields: Option<&'static [&'static str]>) -> Self {
        Self {
            visitor,
            ctx,
            fields,
        }
    }
}

macro_rules! forward_visit {
    ($($name:ident($ty:ty))*) => {$(
        fn $name<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            self.visitor.$name(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.visitor.expecting(f)
    }

    forward_visit!(
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64)
        visit_i128(i128) visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64)
        visit_u128(u128) visit_f32(f32) visit_f64(f64) visit_char(char) visit_str(&str)
        visit_borrowed_str(&'de str) visit_string(String) visit_bytes(&[u8])
        visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    );

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visitor.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        self.visitor.visit_some(Filter { de, ctx: self.ctx })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        self.visitor
            .visit_newtype_struct(Filter { de, ctx: self.ctx })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.visitor.visit_seq(FilterSeq {
            inner: seq,
            ctx: self.ctx,
            index: 0,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.visitor.visit_map(FilterMap {
            inner: map,
            ctx: self.ctx,
            fields: self.fields,
            current: None,
        })
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.visitor.visit_enum(data)
    }
}

/// A seed whose value is deserialised filtered, at `ctx`.
struct Seeded<'a, S> {
    seed: S,
    ctx: Ctx<'a>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seeded<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Filter { de, ctx: self.ctx })
    }
}

/// The elements of a sequence, hidden ones skipped.
struct FilterSeq<'a, A> {
    inner: A,
    ctx: Ctx<'a>,
    index: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for FilterSeq<'_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        loop {
            let ctx = self.ctx.child(Seg::Index(self.index));
            self.index += 1;
            if ctx.hidden() {
                if self.inner.next_element::<IgnoredAny>()?.is_none() {
                    return Ok(None);
                }
                continue;
            }
            let (shared, path) = (ctx.shared, ctx.path.clone());
            return self
                .inner
                .next_element_seed(Seeded { seed, ctx })
                .inspect_err(|_| shared.fail(path, false, None));
        }
    }
}

/// The entries of a mapping, hidden ones skipped.
struct FilterMap<'a, A> {
    inner: A,
    ctx: Ctx<'a>,
    fields: Option<&'static [&'static str]>,
    /// The position of the entry whose key was just read.
    current: Option<Ctx<'a>>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for FilterMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        loop {
            let key = match self.inner.next_key_seed(KeyText) {
                Ok(Some(key)) => key,
                Ok(None) => return Ok(None),
                Err(e) => {
                    // A key that is not text: the whole mapping is at fault.
                    self.ctx.shared.fail(self.ctx.path.clone(), false, None);
                    return Err(e);
                }
            };
            let ctx = self.ctx.child(Seg::Key(key.clone()));
            if ctx.hidden() {
                self.inner.next_value::<IgnoredAny>()?;
                continue;
            }
            let (shared, path, fields) = (ctx.shared, ctx.path.clone(), self.fields);
            let deserializer: de::value::StringDeserializer<A::Error> = key.into_deserializer();
            let value = seed
                .deserialize(deserializer)
                .inspect_err(|_| shared.fail(path, true, fields))?;
            self.current = Some(ctx);
            return Ok(Some(value));
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        let ctx = self.current.take().unwrap_or_else(|| self.ctx.clone());
        let (shared, path) = (ctx.shared, ctx.path.clone());
        self.inner
            .next_value_seed(Seeded { seed, ctx })
            .inspect_err(|_| shared.fail(path, false, None))
    }
}

/// A mapping key as text (a plain scalar such as `1` as written).
struct KeyText;

impl<'de> DeserializeSeed<'de> for KeyText {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<String, D::Error> {
        de.deserialize_str(KeyTextVisitor)
    }
}

struct KeyTextVisitor;

impl Visitor<'_> for KeyTextVisitor {
    type Value = String;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_string())
    }
}
