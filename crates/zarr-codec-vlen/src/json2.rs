//! numcodecs' `json2` (`JSON()`): an array's items as JSON text, the list of items followed by
//! the numpy type string and the shape, as Python's `json` module writes and reads them.
//!
//! [`Value`] is the data model Python's `json` maps to (`None`, `bool`, `int` of any size,
//! `float`, `str`, lists and dicts); [`Style`] holds the encoder's options with numcodecs'
//! defaults (`sort_keys=True`, `separators=(",", ":")`, `ensure_ascii=True`,
//! `allow_nan=True`). Writing follows Python's encoder character for character, floats in
//! `repr`'s shortest round-trip form; reading is Python's decoder (`NaN` and `Infinity`
//! included, control characters refused in `strict` mode, a repeated key's last value kept).

use std::fmt::Write as _;

use zarr_codec_shapes::{CodecError, Result};

/// The numcodecs id (Zarr v2) of the codec.
pub const JSON2_ID: &str = "json2";

/// How deep lists and dicts may nest, in writing and reading (Python's own recursion limit
/// stops its encoder near 1000 as well).
pub const MAX_DEPTH: usize = 1000;

/// A JSON value as Python's `json` module sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null` (`None`).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer that fits 64 bits.
    Int(i64),
    /// An integer that does not: its decimal digits, with a leading `-` if negative.
    BigInt(String),
    /// A float (`NaN`, `Infinity` and `-Infinity` included).
    Float(f64),
    /// A string.
    Str(String),
    /// A list (a Python list or tuple).
    List(Vec<Value>),
    /// A dict's items in insertion order; keys already converted to strings.
    Dict(Vec<(Key, Value)>),
}

/// A dict key as Python's encoder converts it: strings as they are, other scalars to text.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    /// A `str` key.
    Str(String),
    /// A `float` key (written as its `repr`, or `NaN`/`Infinity`).
    Float(f64),
    /// An `int` key.
    Int(String),
    /// A `bool` key (`"true"`/`"false"`).
    Bool(bool),
    /// A `None` key (`"null"`).
    Null,
}

/// The encoder's options (Python's `json.JSONEncoder`), numcodecs' defaults by [`Default`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    /// Escape every non-ASCII character as `\uXXXX`.
    pub ensure_ascii: bool,
    /// Write `NaN` and `Infinity`; else they are an error, as Python's `allow_nan=False`.
    pub allow_nan: bool,
    /// Write dict items sorted by key.
    pub sort_keys: bool,
    /// The indent of each nesting level (`None`: everything on one line).
    pub indent: Option<String>,
    /// Between items, and between a key and its value.
    pub separators: (String, String),
}

impl Default for Style {
    fn default() -> Self {
        Self {
            ensure_ascii: true,
            allow_nan: true,
            sort_keys: true,
            indent: None,
            separators: (",".into(), ":".into()),
        }
    }
}

/// `value` as Python's `json.JSONEncoder(**style).encode(value)` writes it.
pub fn write(value: &Value, style: &Style) -> Result<String> {
    let mut writer = Writer::new(style);
    write_value(value, &mut writer, 0)?;
    Ok(writer.finish())
}

/// JSON text written one value at a time as Python's encoder writes it, for callers that walk
/// their own data (the wheel walks Python objects with it, no tree between). A list or dict
/// of items is `open_*`, then before each item `item(index, depth)` (and for a dict `key`),
/// then `close_*(depth)`; an empty one is `empty_list`/`empty_dict`.
#[derive(Debug)]
pub struct Writer<'s> {
    out: String,
    style: &'s Style,
}

impl<'s> Writer<'s> {
    /// An empty text with `style`'s options.
    #[must_use]
    pub fn new(style: &'s Style) -> Self {
        Self {
            out: String::new(),
            style,
        }
    }

    /// The options written with.
    #[must_use]
    pub fn style(&self) -> &'s Style {
        self.style
    }

    /// What was written.
    #[must_use]
    pub fn finish(self) -> String {
        self.out
    }

    /// `null`.
    pub fn null(&mut self) {
        self.out.push_str("null");
    }

    /// `true` or `false`.
    pub fn bool(&mut self, flag: bool) {
        self.out.push_str(if flag { "true" } else { "false" });
    }

    /// An integer.
    pub fn int(&mut self, number: i64) {
        // Writing to a String cannot fail.
        let _ = write!(self.out, "{number}");
    }

    /// An integer given as its decimal digits (one beyond 64 bits).
    pub fn digits(&mut self, digits: &str) {
        self.out.push_str(digits);
    }

    /// A float: `repr`, or `NaN`/`Infinity` (an error where `allow_nan` is off).
    pub fn float(&mut self, number: f64) -> Result<()> {
        let text = float_text(number, self.style)?;
        self.out.push_str(&text);
        Ok(())
    }

    /// A string.
    pub fn str(&mut self, text: &str) {
        write_str(text, self.style.ensure_ascii, &mut self.out);
    }

    /// `[]`.
    pub fn empty_list(&mut self) {
        self.out.push_str("[]");
    }

    /// `{}`.
    pub fn empty_dict(&mut self) {
        self.out.push_str("{}");
    }

    /// The start of a list of items.
    pub fn open_list(&mut self) {
        self.out.push('[');
    }

    /// The start of a dict of items.
    pub fn open_dict(&mut self) {
        self.out.push('{');
    }

    /// What comes before item `index` of a list or dict at `depth` (its separator, and a new
    /// indented line where the style indents).
    pub fn item(&mut self, index: usize, depth: usize) {
        separate(index, self.style, depth + 1, &mut self.out);
    }

    /// A dict item's key (its text, as [`key_text`] gives it) and the separator after it.
    pub fn key(&mut self, text: &str) {
        write_str(text, self.style.ensure_ascii, &mut self.out);
        self.out.push_str(&self.style.separators.1);
    }

    /// The end of a list at `depth`.
    pub fn close_list(&mut self, depth: usize) {
        close(self.style, depth, &mut self.out);
        self.out.push(']');
    }

    /// The end of a dict at `depth`.
    pub fn close_dict(&mut self, depth: usize) {
        close(self.style, depth, &mut self.out);
        self.out.push('}');
    }
}

fn write_value(value: &Value, writer: &mut Writer<'_>, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(CodecError::Unsupported(format!(
            "json2: values nested more than {MAX_DEPTH} deep"
        )));
    }
    match value {
        Value::Null => writer.null(),
        Value::Bool(flag) => writer.bool(*flag),
        Value::Int(number) => writer.int(*number),
        Value::BigInt(digits) => writer.digits(digits),
        Value::Float(number) => writer.float(*number)?,
        Value::Str(text) => writer.str(text),
        Value::List(items) if items.is_empty() => writer.empty_list(),
        Value::List(items) => {
            writer.open_list();
            for (index, item) in items.iter().enumerate() {
                writer.item(index, depth);
                write_value(item, writer, depth + 1)?;
            }
            writer.close_list(depth);
        }
        Value::Dict(items) if items.is_empty() => writer.empty_dict(),
        Value::Dict(items) => {
            let mut keyed = items
                .iter()
                .map(|(key, item)| Ok((key_text(key, writer.style())?, key.clone(), item)))
                .collect::<Result<Vec<_>>>()?;
            order_keys(&mut keyed, writer.style())?;
            writer.open_dict();
            for (index, (text, _, item)) in keyed.iter().enumerate() {
                writer.item(index, depth);
                writer.key(text);
                write_value(item, writer, depth + 1)?;
            }
            writer.close_dict(depth);
        }
    }
    Ok(())
}

/// A dict's items in the order the style writes them: as given, or with `sort_keys` sorted
/// as Python sorts a dict's items, by their original keys (strings with strings, numbers with
/// numbers, `True` as 1; keys of both kinds cannot be ordered).
pub fn order_keys<T>(keyed: &mut [(String, Key, T)], style: &Style) -> Result<()> {
    if !style.sort_keys {
        return Ok(());
    }
    let strings = keyed
        .iter()
        .filter(|(_, key, _)| matches!(key, Key::Str(_)))
        .count();
    if strings == keyed.len() {
        keyed.sort_by(|a, b| python_str_order(&a.0, &b.0));
        return Ok(());
    }
    if strings > 0 || keyed.iter().any(|(_, key, _)| matches!(key, Key::Null)) {
        return Err(CodecError::Unsupported(
            "json2: dict keys of types Python cannot order (sort_keys)".into(),
        ));
    }
    let mut failed = false;
    keyed.sort_by(|a, b| {
        let (x, y) = (key_number(&a.1), key_number(&b.1));
        x.partial_cmp(&y).unwrap_or_else(|| {
            failed = true;
            std::cmp::Ordering::Equal
        })
    });
    if failed {
        return Err(CodecError::Unsupported(
            "json2: numeric dict keys this codec cannot order exactly as Python".into(),
        ));
    }
    Ok(())
}

fn key_number(key: &Key) -> f64 {
    match key {
        Key::Float(number) => *number,
        Key::Bool(flag) => f64::from(u8::from(*flag)),
        // Big integers compare by value; above 2^53 the float is near enough to order
        // distinct keys except in contrived cases.
        Key::Int(digits) => digits.parse().unwrap_or(f64::NAN),
        Key::Str(_) | Key::Null => f64::NAN,
    }
}

/// Python's string order: by code point (UTF-8 byte order is the same).
fn python_str_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.cmp(b)
}

/// A dict key's text as Python's encoder converts it (`float` keys as `repr`, `True` as
/// `"true"`, `None` as `"null"`).
pub fn key_text(key: &Key, style: &Style) -> Result<String> {
    Ok(match key {
        Key::Str(text) => text.clone(),
        Key::Float(number) => float_text(*number, style)?,
        Key::Int(digits) => digits.clone(),
        Key::Bool(true) => "true".into(),
        Key::Bool(false) => "false".into(),
        Key::Null => "null".into(),
    })
}

fn separate(index: usize, style: &Style, depth: usize, out: &mut String) {
    if index > 0 {
        out.push_str(&style.separators.0);
    }
    if let Some(indent) = &style.indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(indent);
        }
    }
}

fn close(style: &Style, depth: usize, out: &mut String) {
    if let Some(indent) = &style.indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(indent);
        }
    }
}

/// A float as Python's encoder writes it: `repr`, or `NaN`, `Infinity`, `-Infinity`.
fn float_text(number: f64, style: &Style) -> Result<String> {
    if number.is_finite() {
        return Ok(python_repr(number));
    }
    if !style.allow_nan {
        return Err(CodecError::out_of_range(format!(
            "json2: out of range float values are not JSON compliant: {number}"
        )));
    }
    Ok(if number.is_nan() {
        "NaN".into()
    } else if number > 0.0 {
        "Infinity".into()
    } else {
        "-Infinity".into()
    })
}

/// Python's `repr` of a finite float: the shortest digits that read back the same, in fixed
/// notation (with `.0` where whole) when the decimal point falls within 16 digits and after
/// the fourth place after it, else in exponent notation with a sign and two digits or more.
#[must_use]
pub fn python_repr(number: f64) -> String {
    // Rust's `{:e}` gives the same shortest round-trip digits: `d.ddde±x`.
    let scientific = format!("{number:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exponent + 1; // digits are 0.d1d2... x 10^point
    if -4 < point && point <= 16 {
        let count = i32::try_from(digits.len()).unwrap_or(i32::MAX);
        let text = if point <= 0 {
            format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
        } else if point >= count {
            format!(
                "{digits}{}.0",
                "0".repeat((point - count).unsigned_abs() as usize)
            )
        } else {
            let (whole, fraction) = digits.split_at(point.unsigned_abs() as usize);
            format!("{whole}.{fraction}")
        };
        return format!("{sign}{text}");
    }
    let (first, rest) = digits.split_at(1);
    let fraction = if rest.is_empty() {
        String::new()
    } else {
        format!(".{rest}")
    };
    let exponent_sign = if exponent < 0 { '-' } else { '+' };
    format!(
        "{sign}{first}{fraction}e{exponent_sign}{:02}",
        exponent.unsigned_abs()
    )
}

fn write_str(text: &str, ensure_ascii: bool, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            // ensure_ascii escapes everything outside ' '..='~', DEL included.
            c if u32::from(c) < 0x20 || (ensure_ascii && u32::from(c) >= 0x7f) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    // Writing to a String cannot fail.
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The value of JSON `text` as Python's `json.loads(text, strict=strict)` reads it.
pub fn read(text: &str, strict: bool) -> Result<Value> {
    read_with(text, strict, &mut ValueBuilder)
}

/// What a reader makes of what it reads, value by value (the wheel makes Python objects, no
/// tree between).
pub trait Build {
    /// What one value becomes.
    type Out;
    /// `null`.
    fn null(&mut self) -> Result<Self::Out>;
    /// `true` or `false`.
    fn bool(&mut self, flag: bool) -> Result<Self::Out>;
    /// An integer that fits 64 bits.
    fn int(&mut self, number: i64) -> Result<Self::Out>;
    /// An integer that does not: its decimal digits.
    fn big_int(&mut self, digits: &str) -> Result<Self::Out>;
    /// A float (`NaN` and the infinities included).
    fn float(&mut self, number: f64) -> Result<Self::Out>;
    /// A string.
    fn str(&mut self, text: &str) -> Result<Self::Out>;
    /// A list of what its items became.
    fn list(&mut self, items: Vec<Self::Out>) -> Result<Self::Out>;
    /// A dict's items in order (a repeated key: each one, the last to win).
    fn dict(&mut self, items: Vec<(String, Self::Out)>) -> Result<Self::Out>;
}

/// [`read`], each value made by `builder`.
pub fn read_with<B: Build>(text: &str, strict: bool, builder: &mut B) -> Result<B::Out> {
    let mut reader = Reader {
        text: text.as_bytes(),
        at: 0,
        strict,
    };
    reader.skip_space();
    let value = reader.value(0, builder)?;
    reader.skip_space();
    if reader.at != reader.text.len() {
        return Err(reader.error("extra data"));
    }
    Ok(value)
}

/// The builder of [`Value`]s.
struct ValueBuilder;

impl Build for ValueBuilder {
    type Out = Value;
    fn null(&mut self) -> Result<Value> {
        Ok(Value::Null)
    }
    fn bool(&mut self, flag: bool) -> Result<Value> {
        Ok(Value::Bool(flag))
    }
    fn int(&mut self, number: i64) -> Result<Value> {
        Ok(Value::Int(number))
    }
    fn big_int(&mut self, digits: &str) -> Result<Value> {
        Ok(Value::BigInt(digits.to_owned()))
    }
    fn float(&mut self, number: f64) -> Result<Value> {
        Ok(Value::Float(number))
    }
    fn str(&mut self, text: &str) -> Result<Value> {
        Ok(Value::Str(text.to_owned()))
    }
    fn list(&mut self, items: Vec<Value>) -> Result<Value> {
        Ok(Value::List(items))
    }
    fn dict(&mut self, items: Vec<(String, Value)>) -> Result<Value> {
        Ok(Value::Dict(
            items.into_iter().map(|(k, v)| (Key::Str(k), v)).collect(),
        ))
    }
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    strict: bool,
}

impl Reader<'_> {
    fn error(&self, what: &str) -> CodecError {
        CodecError::Corrupt(format!("json2: {what} at character {}", self.at))
    }

    fn skip_space(&mut self) {
        while matches!(self.text.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn literal(&mut self, word: &str) -> Result<()> {
        if self.text[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(())
        } else {
            Err(self.error("expecting value"))
        }
    }

    fn value<B: Build>(&mut self, depth: usize, b: &mut B) -> Result<B::Out> {
        if depth > MAX_DEPTH {
            return Err(self.error("values nested too deep"));
        }
        match self.text.get(self.at) {
            Some(b'"') => {
                let text = self.string()?;
                b.str(&text)
            }
            Some(b'{') => self.dict(depth, b),
            Some(b'[') => self.list(depth, b),
            Some(b'n') => self.literal("null").and_then(|()| b.null()),
            Some(b't') => self.literal("true").and_then(|()| b.bool(true)),
            Some(b'f') => self.literal("false").and_then(|()| b.bool(false)),
            Some(b'N') => self.literal("NaN").and_then(|()| b.float(f64::NAN)),
            Some(b'I') => self
                .literal("Infinity")
                .and_then(|()| b.float(f64::INFINITY)),
            Some(b'-') if self.text[self.at..].starts_with(b"-Infinity") => self
                .literal("-Infinity")
                .and_then(|()| b.float(f64::NEG_INFINITY)),
            Some(b'-' | b'0'..=b'9') => self.number(b),
            _ => Err(self.error("expecting value")),
        }
    }

    fn list<B: Build>(&mut self, depth: usize, b: &mut B) -> Result<B::Out> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.text.get(self.at) == Some(&b']') {
            self.at += 1;
            return b.list(items);
        }
        loop {
            self.skip_space();
            items.push(self.value(depth + 1, b)?);
            self.skip_space();
            match self.text.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return b.list(items);
                }
                _ => return Err(self.error("expecting ',' delimiter")),
            }
        }
    }

    fn dict<B: Build>(&mut self, depth: usize, b: &mut B) -> Result<B::Out> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.text.get(self.at) == Some(&b'}') {
            self.at += 1;
            return b.dict(items);
        }
        loop {
            self.skip_space();
            if self.text.get(self.at) != Some(&b'"') {
                return Err(self.error("expecting property name enclosed in double quotes"));
            }
            let key = self.string()?;
            self.skip_space();
            if self.text.get(self.at) != Some(&b':') {
                return Err(self.error("expecting ':' delimiter"));
            }
            self.at += 1;
            self.skip_space();
            let value = self.value(depth + 1, b)?;
            items.push((key, value));
            self.skip_space();
            match self.text.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return b.dict(items);
                }
                _ => return Err(self.error("expecting ',' delimiter")),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while matches!(self.text.get(self.at), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        self.at - start
    }

    /// Python's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`; an int
    /// without a fraction or exponent.
    fn number<B: Build>(&mut self, b: &mut B) -> Result<B::Out> {
        let start = self.at;
        if self.text.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.text.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("expecting value")),
        }
        let mut is_float = false;
        if self.text.get(self.at) == Some(&b'.')
            && matches!(self.text.get(self.at + 1), Some(b'0'..=b'9'))
        {
            self.at += 1;
            self.digits();
            is_float = true;
        }
        if matches!(self.text.get(self.at), Some(b'e' | b'E')) {
            let mark = self.at;
            self.at += 1;
            if matches!(self.text.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                self.at = mark; // not an exponent: what follows is extra data
            } else {
                is_float = true;
            }
        }
        let text = std::str::from_utf8(&self.text[start..self.at])
            .map_err(|_| self.error("invalid number"))?;
        if is_float {
            let number = text
                .parse::<f64>()
                .map_err(|_| self.error("invalid number"))?;
            return b.float(number);
        }
        match text.parse::<i64>() {
            Ok(number) => b.int(number),
            Err(_) => b.big_int(text),
        }
    }

    fn hex4(&mut self) -> Result<u32> {
        let hex = self
            .text
            .get(self.at..self.at + 4)
            .ok_or_else(|| self.error("invalid \\uXXXX escape"))?;
        let hex = std::str::from_utf8(hex).map_err(|_| self.error("invalid \\uXXXX escape"))?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.error("invalid \\uXXXX escape"));
        }
        let unit =
            u32::from_str_radix(hex, 16).map_err(|_| self.error("invalid \\uXXXX escape"))?;
        self.at += 4;
        Ok(unit)
    }

    fn string(&mut self) -> Result<String> {
        self.at += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(&byte) = self.text.get(self.at) {
                if byte == b'"' || byte == b'\\' || (self.strict && byte < 0x20) {
                    break;
                }
                self.at += 1;
            }
            let run = std::str::from_utf8(&self.text[start..self.at])
                .map_err(|_| self.error("invalid UTF-8"))?;
            out.push_str(run);
            match self.text.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return Err(self.error("invalid control character")),
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<()> {
        let byte = *self
            .text
            .get(self.at)
            .ok_or_else(|| self.error("unterminated string"))?;
        self.at += 1;
        let simple = match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                let code = if (0xd800..0xdc00).contains(&unit)
                    && self.text[self.at..].starts_with(b"\\u")
                {
                    let mark = self.at;
                    self.at += 2;
                    let low = self.hex4()?;
                    if (0xdc00..0xe000).contains(&low) {
                        0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)
                    } else {
                        self.at = mark;
                        unit
                    }
                } else {
                    unit
                };
                char::from_u32(code).ok_or_else(|| {
                    CodecError::Unsupported(
                        "json2: a lone surrogate escape (Python keeps it in a str; ours has \
                         none)"
                            .into(),
                    )
                })?
            }
            _ => return Err(self.error("invalid \\escape")),
        };
        out.push(simple);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_written_as_python_repr() {
        for (number, text) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1_234_567_890_123_456.0, "1234567890123456.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e300, "1.5e+300"),
            (-2.5e-310, "-2.5e-310"),
            (123.456, "123.456"),
            (f64::MAX, "1.7976931348623157e+308"),
        ] {
            assert_eq!(python_repr(number), text, "{number}");
        }
    }

    #[test]
    fn writes_as_numcodecs_json() -> Result<()> {
        let value = Value::List(vec![
            Value::Str("ü\"\n\u{1f642}".into()),
            Value::Float(f64::NAN),
            Value::Dict(vec![
                (Key::Str("b".into()), Value::Int(-3)),
                (Key::Str("a".into()), Value::Null),
            ]),
            Value::Str("|O".into()),
            Value::List(vec![Value::Int(3)]),
        ]);
        assert_eq!(
            write(&value, &Style::default())?,
            r#"["\u00fc\"\n\ud83d\ude42",NaN,{"a":null,"b":-3},"|O",[3]]"#
        );
        let indented = Style {
            indent: Some("  ".into()),
            separators: (", ".into(), ": ".into()),
            sort_keys: false,
            ..Style::default()
        };
        assert_eq!(
            write(
                &Value::List(vec![Value::Int(1), Value::List(vec![])]),
                &indented
            )?,
            "[\n  1, \n  []\n]"
        );
        Ok(())
    }

    #[test]
    fn reads_as_python() -> Result<()> {
        let value = read(
            " [1, -0, 1.5e3, 12345678901234567890, \"\\u00fc\\ud83d\\ude42\", NaN, -Infinity, {\"a\": 1, \"a\": 2}] ",
            true,
        )?;
        let Value::List(items) = &value else {
            panic!("not a list: {value:?}")
        };
        assert_eq!(
            items[..5],
            [
                Value::Int(1),
                Value::Int(0),
                Value::Float(1500.0),
                Value::BigInt("12345678901234567890".into()),
                Value::Str("\u{fc}\u{1f642}".into()),
            ]
        );
        assert!(matches!(items[5], Value::Float(nan) if nan.is_nan()));
        assert_eq!(items[6], Value::Float(f64::NEG_INFINITY));
        assert_eq!(
            items[7],
            Value::Dict(vec![
                (Key::Str("a".into()), Value::Int(1)),
                (Key::Str("a".into()), Value::Int(2)),
            ])
        );
        for bad in [
            "", "[1,]", "[1 2]", "\"a\nb\"", "01", "[1] x", "{1:2}", "\"\\x\"", "1.",
        ] {
            assert!(read(bad, true).is_err(), "{bad:?}");
        }
        assert_eq!(read("\"a\nb\"", false)?, Value::Str("a\nb".into()));
        Ok(())
    }
}
