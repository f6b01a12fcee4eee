//! Where a key or a value is written in a file. `yaml_serde` tells positions only in its
//! errors, so [`key_position`] and [`value_position`] walk the document to it and fail
//! there on purpose: the error carries its line and column, whatever the style (block,
//! `{flow}`, quoted).

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::filter::Seg;

/// The message of the deliberate error; nothing else produces it.
const FOUND: &str = "\u{0}roocode: the key is here\u{0}";

/// The 1-based line and column of the last key of `path` in `text`, if it is there.
pub(crate) fn key_position(text: &str, path: &[Seg]) -> Option<(usize, usize)> {
    if !matches!(path.last(), Some(Seg::Key(_))) {
        return None;
    }
    position(text, Find { path, key: true })
}

/// The 1-based line and column of the value at `path` in `text`, if it is there.
pub(crate) fn value_position(text: &str, path: &[Seg]) -> Option<(usize, usize)> {
    position(text, Find { path, key: false })
}

fn position(text: &str, find: Find<'_>) -> Option<(usize, usize)> {
    let err = find
        .deserialize(yaml_serde::Deserializer::from_str(text))
        .err()?;
    if !err.to_string().contains(FOUND) {
        return None;
    }
    err.location().map(|loc| (loc.line(), loc.column()))
}

/// Walks to `path` from the value it is given; `key`: stops at the last key of the path
/// rather than at its value.
#[derive(Clone, Copy)]
struct Find<'p> {
    path: &'p [Seg],
    key: bool,
}

impl<'de> DeserializeSeed<'de> for Find<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        if self.path.is_empty() {
            de.deserialize_any(Here)
        } else {
            de.deserialize_any(self)
        }
    }
}

/// The value wanted: refuses whatever it is given, with [`FOUND`] as what it expected.
struct Here;

impl Visitor<'_> for Here {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(FOUND)
    }
}

impl<'de> Visitor<'de> for Find<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((Seg::Key(want), rest)) = self.path.split_first() else {
            return Ok(());
        };
        let last = rest.is_empty() && self.key;
        while let Some(found) = map.next_key_seed(Key { want, last })? {
            if found {
                return map.next_value_seed(Find { path: rest, ..self });
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((Seg::Index(want), rest)) = self.path.split_first() else {
            return Ok(());
        };
        for _ in 0..*want {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(Find { path: rest, ..self })
            .map(|_| ())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

/// A mapping key compared with the one wanted: `true` when it is that key (and not the
/// last of the path), the [`FOUND`] error when it is the last.
struct Key<'w> {
    want: &'w str,
    last: bool,
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<bool, D::Error> {
        // As the filter reads keys: as text.
        de.deserialize_str(self)
    }
}

impl Visitor<'_> for Key<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        match (v == self.want, self.last) {
            (true, true) => Err(E::custom(FOUND)),
            (found, _) => Ok(found),
        }
    }
}
