//! JSON strings as the event reader takes them: borrowed from the input
//! where they can be (serde's own `Option<Cow<str>>` always copies), and,
//! where the schema judges a value's type, any value kept as "not text"
//! rather than a line that cannot be read.

use std::borrow::Cow;

use serde::Deserialize;

/// An optional string field, borrowed from the input where it has no
/// escapes: serde's own `Option<Cow<str>>` always copies.
pub(super) fn borrowed<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Cow<'de, str>>, D::Error> {
    struct Text;
    impl<'de> serde::de::Visitor<'de> for Text {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(v))
        }
        fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v.to_string()))
        }
    }
    struct Field<'de>(Cow<'de, str>);
    impl<'de> Deserialize<'de> for Field<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_str(Text).map(Field)
        }
    }
    Ok(Option::<Field<'de>>::deserialize(d)?.map(|f| f.0))
}

/// A JSON value read only for its text: a string, or anything else (a
/// number, a list) noted as not text, so that a wrong type is the
/// schema's finding rather than a line that cannot be read.
pub enum Loose<'a> {
    /// A string.
    Text(Cow<'a, str>),
    /// Any other value but null.
    NotText,
}

impl Loose<'_> {
    /// Its text; empty when it is not text.
    pub fn text(&self) -> &str {
        match self {
            Loose::Text(text) => text,
            Loose::NotText => "",
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Loose<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct Of;
        impl<'de> Visitor<'de> for Of {
            type Value = Loose<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Loose::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Loose::Text(Cow::Owned(v.to_string())))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Loose::NotText)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Loose::NotText)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Loose::NotText)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Loose::NotText)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Loose::NotText)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Loose::NotText)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Loose::NotText)
            }
        }
        d.deserialize_any(Of)
    }
}

/// A JSON value read as `T` when it is an object, and as nothing when it
/// is anything else: for what the lab reads of a request kept in a
/// capture (its `params`, their `message`), which the lab did not judge
/// and whose odd shape must not make the capture unreadable.
pub struct IfObject<T>(pub Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for IfObject<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::MapAccessDeserializer;
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct Of<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Of<T> {
            type Value = IfObject<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|t| IfObject(Some(t)))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(IfObject(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IfObject(None))
            }
        }
        d.deserialize_any(Of(std::marker::PhantomData))
    }
}
