//! The view as JSON text, for `JSON.parse`: a small `serde::Serializer`
//! instead of serde-wasm-bindgen, which builds each object through calls into
//! JavaScript and costs several kilobytes more of wasm.

use serde::ser;

/// JavaScript's `Number.MAX_SAFE_INTEGER`: larger integers are refused, as
/// serde-wasm-bindgen's JSON-compatible serializer refuses them.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// `value` as JSON text: objects for structs and maps, `null` for absent
/// values, externally tagged enums (unit variants as strings), as
/// serde-wasm-bindgen's `Serializer::json_compatible()` lays them out.
///
/// # Errors
/// An integer beyond ±`Number.MAX_SAFE_INTEGER`, or whatever `value` refuses.
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, JsonError> {
    let mut out = String::new();
    value.serialize(Json(&mut out))?;
    Ok(out)
}

/// Why a value has no JSON form here.
#[derive(Debug)]
pub struct JsonError(String);

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JsonError {}

impl ser::Error for JsonError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        JsonError(msg.to_string())
    }
}

struct Json<'a>(&'a mut String);

/// A sequence or object being written: `first` until its first element.
struct Compound<'a> {
    out: &'a mut String,
    first: bool,
    /// `}` after the closing bracket (an enum variant's wrapper object).
    wrapped: bool,
}

fn push_str_literal(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 15] as char);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn push_uint(out: &mut String, v: u64) -> Result<(), JsonError> {
    if v > MAX_SAFE_INTEGER {
        return Err(JsonError(format!("{v} can't be represented as a JavaScript number")));
    }
    out.push_str(&v.to_string());
    Ok(())
}

impl<'a> Json<'a> {
    fn open(self, bracket: char, variant: Option<&str>) -> Compound<'a> {
        if let Some(variant) = variant {
            self.0.push('{');
            push_str_literal(self.0, variant);
            self.0.push(':');
        }
        self.0.push(bracket);
        Compound { out: self.0, first: true, wrapped: variant.is_some() }
    }
}

impl Compound<'_> {
    fn comma(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.out.push(',');
        }
    }

    fn element<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JsonError> {
        self.comma();
        value.serialize(Json(self.out))
    }

    fn field<T: serde::Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), JsonError> {
        self.comma();
        push_str_literal(self.out, key);
        self.out.push(':');
        value.serialize(Json(self.out))
    }

    fn close(self, bracket: char) -> Result<(), JsonError> {
        self.out.push(bracket);
        if self.wrapped {
            self.out.push('}');
        }
        Ok(())
    }
}

impl<'a> ser::Serializer for Json<'a> {
    type Ok = ();
    type Error = JsonError;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), JsonError> {
        self.0.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), JsonError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), JsonError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), JsonError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), JsonError> {
        if v < 0 {
            self.0.push('-');
        }
        push_uint(self.0, v.unsigned_abs())
    }
    fn serialize_u8(self, v: u8) -> Result<(), JsonError> {
        push_uint(self.0, v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), JsonError> {
        push_uint(self.0, v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), JsonError> {
        push_uint(self.0, v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), JsonError> {
        push_uint(self.0, v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), JsonError> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<(), JsonError> {
        // JavaScript's own number formatting: no float formatting code in the page.
        let text: String =
            js_sys::Number::from(v).to_string_with_radix(10).map_or_else(|_| "null".into(), String::from);
        self.0.push_str(if v.is_finite() { &text } else { "null" });
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), JsonError> {
        push_str_literal(self.0, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), JsonError> {
        push_str_literal(self.0, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), JsonError> {
        ser::Serializer::collect_seq(self, v)
    }
    fn serialize_none(self) -> Result<(), JsonError> {
        self.serialize_unit()
    }
    fn serialize_some<T: serde::Serialize + ?Sized>(self, value: &T) -> Result<(), JsonError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), JsonError> {
        self.0.push_str("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), JsonError> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), JsonError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: serde::Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), JsonError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: serde::Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), JsonError> {
        let mut object = self.open('{', None);
        object.field(variant, value)?;
        object.close('}')
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, JsonError> {
        Ok(self.open('[', None))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>, JsonError> {
        Ok(self.open('[', None))
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, JsonError> {
        Ok(self.open('[', None))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, JsonError> {
        Ok(self.open('[', Some(variant)))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, JsonError> {
        Ok(self.open('{', None))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, JsonError> {
        Ok(self.open('{', None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, JsonError> {
        Ok(self.open('{', Some(variant)))
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = JsonError;
    fn serialize_element<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JsonError> {
        self.element(value)
    }
    fn end(self) -> Result<(), JsonError> {
        self.close(']')
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = JsonError;
    fn serialize_element<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JsonError> {
        self.element(value)
    }
    fn end(self) -> Result<(), JsonError> {
        self.close(']')
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = JsonError;
    fn serialize_field<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JsonError> {
        self.element(value)
    }
    fn end(self) -> Result<(), JsonError> {
        self.close(']')
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = JsonError;
    fn serialize_field<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JsonError> {
        self.element(value)
    }
    fn end(self) -> Result<(), JsonError> {
        self.close(']')
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = JsonError;
    /// Keys become property names, as on a JavaScript object: a number key `1` is `"1"`.
    fn serialize_key<T: serde::Serialize + ?Sized>(&mut self, key: &T) -> Result<(), JsonError> {
        self.comma();
        let mut text = String::new();
        key.serialize(Json(&mut text))?;
        if text.starts_with('"') {
            self.out.push_str(&text);
        } else {
            push_str_literal(self.out, &text);
        }
        self.out.push(':');
        Ok(())
    }
    fn serialize_value<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JsonError> {
        value.serialize(Json(self.out))
    }
    fn end(self) -> Result<(), JsonError> {
        self.close('}')
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = JsonError;
    fn serialize_field<T: serde::Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), JsonError> {
        self.field(key, value)
    }
    fn end(self) -> Result<(), JsonError> {
        self.close('}')
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = JsonError;
    fn serialize_field<T: serde::Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), JsonError> {
        self.field(key, value)
    }
    fn end(self) -> Result<(), JsonError> {
        self.close('}')
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde::Serialize;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    #[serde(rename_all = "kebab-case")]
    enum Kind {
        Plain,
        Wrapped(u32),
        Pair(u8, bool),
        Named { at: u64 },
    }

    #[derive(Serialize)]
    struct Sample {
        text: &'static str,
        absent: Option<u32>,
        present: Option<i64>,
        kinds: Vec<Kind>,
        by_number: BTreeMap<u32, &'static str>,
        unit: (),
    }

    #[test]
    fn lays_values_out_as_json_compatible_objects() {
        let sample = Sample {
            text: "a \"quoted\" \\ line\nand\ttab · é",
            absent: None,
            present: Some(-42),
            kinds: vec![Kind::Plain, Kind::Wrapped(7), Kind::Pair(1, true), Kind::Named { at: 9 }],
            by_number: BTreeMap::from([(1, "one"), (20, "twenty")]),
            unit: (),
        };
        assert_eq!(
            to_json(&sample).unwrap(),
            r#"{"text":"a \"quoted\" \\ line\u000aand\u0009tab · é","absent":null,"present":-42,"kinds":["plain",{"wrapped":7},{"pair":[1,true]},{"named":{"at":9}}],"by_number":{"1":"one","20":"twenty"},"unit":null}"#
        );
    }

    #[test]
    fn refuses_integers_javascript_cannot_hold() {
        assert_eq!(to_json(&MAX_SAFE_INTEGER).unwrap(), "9007199254740991");
        assert!(to_json(&(MAX_SAFE_INTEGER + 1)).is_err());
        assert!(to_json(&i64::MIN).is_err());
    }
}
