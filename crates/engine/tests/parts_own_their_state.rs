//! ARCHITECTURE.md's promise, checked on the source: each part owns its state
//! privately, and the `Sim` (`src/sim.rs`, `src/sim/*.rs`) routes values
//! between the parts and never assigns a part's field. For the `Consumer`,
//! the `Coordinator`, each group's `GroupObserver` and its `Application`: no
//! field is declared `pub` in any form, and no line of the `Sim` assigns,
//! mutably borrows or mutates in place a field of one.
//! The compiler enforces the second once the first holds; the scan says
//! where, should a field become visible again.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

/// A part checked here: its type, the file that declares it, and the `Sim`'s
/// vector of them.
struct Part {
    name: &'static str,
    file: &'static str,
    vector: &'static str,
}

const PARTS: [Part; 4] = [
    Part { name: "Consumer", file: "src/client/consumer.rs", vector: "consumers" },
    Part { name: "Coordinator", file: "src/broker/coordinator.rs", vector: "coordinators" },
    Part { name: "GroupObserver", file: "src/observe.rs", vector: "observers" },
    Part { name: "Application", file: "src/app.rs", vector: "apps" },
];

/// Methods that change what they are called on: a part's field followed by
/// one of these is mutated in place.
const MUTATING_METHODS: &[&str] = &[
    "append",
    "as_mut",
    "clear",
    "dedup",
    "drain",
    "entry",
    "extend",
    "fill",
    "get_mut",
    "get_or_insert",
    "get_or_insert_with",
    "insert",
    "iter_mut",
    "pop",
    "pop_back",
    "pop_front",
    "push",
    "push_back",
    "push_front",
    "remove",
    "replace",
    "resize",
    "retain",
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "split_off",
    "swap",
    "take",
    "take_if",
    "truncate",
];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The `Sim`'s files: `src/sim.rs` and every `src/sim/*.rs`, as paths from
/// the crate's directory.
fn sim_files() -> Vec<String> {
    let mut files = vec!["src/sim.rs".to_string()];
    let dir = crate_dir().join("src/sim");
    let mut more: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".rs"))
        .map(|name| format!("src/sim/{name}"))
        .collect();
    more.sort();
    files.extend(more);
    files
}

/// `text` with every comment and the inside of every string and character
/// literal replaced by spaces, newlines kept: byte offsets keep their lines,
/// and what is left is code.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('#') || next == Some('"')) && !ident_char_before(&chars, i) {
            // A raw string: r"…", r#"…"#, …
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push('r');
            out.extend(std::iter::repeat_n('#', hashes));
            out.push('"');
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    out.push('"');
                    out.extend(std::iter::repeat_n('#', hashes));
                    j += 1 + hashes;
                    break;
                }
                out.push(blank(chars[j]));
                j += 1;
            }
            i = j;
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{…}'), or a lifetime ('a), kept.
            let end = if next == Some('\\') {
                (i + 2..chars.len()).find(|&j| chars[j] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.push('\'');
                    out.extend(std::iter::repeat_n(' ', end - i - 1));
                    out.push('\'');
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn ident_char_before(chars: &[char], i: usize) -> bool {
    i > 0 && is_ident(chars[i - 1])
}

/// The line (from 1) of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The byte offset just past the bracket closing the one at `open`.
fn past_closing(text: &str, open: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let (opening, closing) = match bytes[open] {
        b'[' => (b'[', b']'),
        b'(' => (b'(', b')'),
        b'{' => (b'{', b'}'),
        _ => return None,
    };
    let mut depth = 0usize;
    for (k, &b) in bytes.iter().enumerate().skip(open) {
        if b == opening {
            depth += 1;
        } else if b == closing {
            depth -= 1;
            if depth == 0 {
                return Some(k + 1);
            }
        }
    }
    None
}

fn skip_space(text: &str, mut at: usize) -> usize {
    let bytes = text.as_bytes();
    while at < bytes.len() && bytes[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// The identifier starting at `at`, if one does.
fn ident_at(text: &str, at: usize) -> Option<&str> {
    let end = text[at..].find(|c: char| !is_ident(c)).map_or(text.len(), |n| at + n);
    (end > at).then(|| &text[at..end])
}

/// One field declaration of a struct body: its name, and whether it is
/// declared `pub` in any form (`pub`, `pub(crate)`, `pub(super)`, `pub(in …)`).
struct Field {
    name: String,
    public: bool,
}

/// The fields of `pub(crate) struct {name} { … }` in `code` (comments gone).
fn struct_fields(code: &str, name: &str, file: &str) -> Vec<Field> {
    let head = format!("pub(crate) struct {name} {{");
    let start = code.find(&head).unwrap_or_else(|| panic!("{file}: no `{head} … }}` found"));
    let open = start + head.len() - 1;
    let close = past_closing(code, open).unwrap_or_else(|| panic!("{file}: `{name}`'s body is not closed"));
    let body = &code[open + 1..close - 1];
    // Split at the commas outside brackets: a field's type may hold some.
    let mut declarations = Vec::new();
    let mut depth = 0i32;
    let mut from = 0;
    let bytes = body.as_bytes();
    for (k, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'<' | b'{' => depth += 1,
            b'>' if k > 0 && bytes[k - 1] == b'-' => {}
            b')' | b']' | b'>' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                declarations.push(&body[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    declarations.push(&body[from..]);
    let mut fields = Vec::new();
    for declaration in declarations {
        let mut rest = declaration.trim();
        // Attributes: #[…].
        while rest.starts_with("#[") {
            let end = past_closing(rest, 1).unwrap_or_else(|| panic!("{file}: an attribute is not closed"));
            rest = rest[end..].trim_start();
        }
        if rest.is_empty() {
            continue;
        }
        let public = rest.starts_with("pub") && !rest[3..].starts_with(is_ident);
        if public {
            rest = rest[3..].trim_start();
            if rest.starts_with('(') {
                let end = past_closing(rest, 0).unwrap_or_else(|| panic!("{file}: `pub(` is not closed"));
                rest = rest[end..].trim_start();
            }
        }
        let field =
            ident_at(rest, 0).unwrap_or_else(|| panic!("{file}: `{name}`: no field name in {rest:?}"));
        assert!(
            rest[field.len()..].trim_start().starts_with(':'),
            "{file}: `{name}`: `{rest}` is not a named field"
        );
        fields.push(Field { name: field.to_string(), public });
    }
    assert!(!fields.is_empty(), "{file}: `{name}` has no fields");
    fields
}

/// What follows a part's field at `at` (just past its name), if it changes
/// the field: an assignment (`=`, `+=`, `|=`, …, after any indexing or
/// fields of the field: `counters.skipped += 1` changes `counters`) or a
/// mutating method.
fn mutation_after(code: &str, mut at: usize) -> Option<String> {
    loop {
        let next = skip_space(code, at);
        if code[next..].starts_with('[') {
            at = past_closing(code, next)?;
            continue;
        }
        // A field of the field (not a method, not a range).
        if code[next..].starts_with('.') && !code[next..].starts_with("..") {
            let name_at = skip_space(code, next + 1);
            if let Some(inner) = ident_at(code, name_at) {
                let after = code[name_at + inner.len()..].trim_start();
                if !after.starts_with('(') && !after.starts_with("::") && !MUTATING_METHODS.contains(&inner) {
                    at = name_at + inner.len();
                    continue;
                }
            }
        }
        at = next;
        break;
    }
    let rest = &code[at..];
    for op in ["<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^="] {
        if rest.starts_with(op) {
            return Some(op.to_string());
        }
    }
    if rest.starts_with('=') && !rest.starts_with("==") && !rest.starts_with("=>") {
        return Some("=".to_string());
    }
    if let Some(method_at) = rest.strip_prefix('.') {
        let method_at = at + 1 + (method_at.len() - method_at.trim_start().len());
        let method = ident_at(code, method_at)?;
        if MUTATING_METHODS.contains(&method)
            && code[method_at + method.len()..].trim_start().starts_with(['(', ':'])
        {
            return Some(format!(".{method}(…)"));
        }
    }
    None
}

/// Names bound in `code` to one of the `Sim`'s parts, mutably:
/// `let x = &mut self.{vector}[…]`, `let mut x = {name}::new(…)`,
/// `for x in self.{vector}.iter_mut()…`, `for x in &mut self.{vector}`,
/// `Some(x) = self.{vector}.get_mut(…)` / `.iter_mut()…`, and the parameter
/// of a closure on `self.{vector}.iter_mut()`.
fn bindings(code: &str, part: &Part) -> Vec<String> {
    let mut names = Vec::new();
    let mut push = |name: &str| {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    };
    let sources = [
        format!("&mut self.{}[", part.vector),
        format!("&mut self.{}", part.vector),
        format!("self.{}.iter_mut()", part.vector),
        format!("self.{}.get_mut(", part.vector),
        format!("self.{}.last_mut()", part.vector),
        format!("self.{}.first_mut()", part.vector),
        format!("{}::new(", part.name),
    ];
    for source in &sources {
        for (at, _) in code.match_indices(source.as_str()) {
            if source.starts_with("self") && code[..at].trim_end().ends_with("&mut") {
                continue; // found as `&mut self.…` already
            }
            let statement_start = code[..at].rfind([';', '{', '}']).map_or(0, |k| k + 1);
            let before = code[statement_start..at].trim();
            for prefix in ["let mut ", "let ", "for ", "if let Some(", "while let Some(", "let Some("] {
                if let Some(rest) = before.strip_prefix(prefix) {
                    let rest = rest.trim_start_matches("mut ");
                    if let Some(name) = ident_at(rest, 0) {
                        push(name);
                    }
                }
            }
            // Closures over the part: `….iter_mut().for_each(|x| …)`.
            let statement_end = code[at..].find(';').map_or(code.len(), |k| at + k);
            let mut tail = &code[at..statement_end];
            while let Some(bar) = tail.find('|') {
                let after = &tail[bar + 1..];
                let Some(close) = after.find('|') else { break };
                let param = after[..close].trim().trim_start_matches('&').trim_start_matches("mut ");
                if let Some(name) = ident_at(param, 0).filter(|n| n.len() == param.len()) {
                    push(name);
                }
                tail = &after[close + 1..];
            }
        }
    }
    names
}

/// Every place in the `Sim`'s `code` that changes a field of `part`:
/// `(line, what)`.
fn assignments_in(code: &str, part: &Part, fields: &[Field]) -> Vec<(usize, String)> {
    let is_field = |name: &str| fields.iter().any(|f| f.name == name);
    let mut found = Vec::new();
    let mut check_access = |receiver_start: usize, receiver: &str, dot: usize| {
        let name_at = skip_space(code, dot + 1);
        let Some(field) = ident_at(code, name_at) else { return };
        let past = name_at + field.len();
        let after = code[past..].trim_start();
        if !is_field(field) || after.starts_with('(') || after.starts_with("::") {
            return; // not a field: a method or something else
        }
        let borrowed_mut = {
            let before = code[..receiver_start].trim_end();
            before.ends_with("&mut") || before.ends_with("&mut self.")
        };
        let what = match mutation_after(code, past) {
            Some(op) => format!("`{receiver}.{field}` {op}"),
            None if borrowed_mut => format!("`&mut {receiver}.{field}`"),
            None => return,
        };
        found.push((line_of(code, receiver_start), what));
    };
    // `{vector}[…].field`
    let indexed = format!("{}[", part.vector);
    for (at, _) in code.match_indices(indexed.as_str()) {
        if code[..at].ends_with(is_ident) {
            continue;
        }
        let Some(past) = past_closing(code, at + indexed.len() - 1) else { continue };
        let dot = skip_space(code, past);
        if code[dot..].starts_with('.') {
            let receiver = format!("{}[…]", part.vector);
            // `self.` before it belongs to the receiver.
            let start = if code[..at].ends_with("self.") { at - "self.".len() } else { at };
            check_access(start, &receiver, dot);
        }
    }
    // `x.field` for a name bound to the part.
    for name in bindings(code, part) {
        for (at, _) in code.match_indices(name.as_str()) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| is_ident(c) || c == '.') {
                continue;
            }
            let past = at + name.len();
            if code[past..].starts_with(is_ident) {
                continue;
            }
            let dot = skip_space(code, past);
            if code[dot..].starts_with('.') && !code[dot..].starts_with("..") {
                check_access(at, &name, dot);
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// Parts whose fields are checked private only: the compiler then keeps the
/// `Sim`, in another module, from assigning them.
const PRIVATE_ONLY: [(&str, &str); 1] = [("Producer", "src/client/producer.rs")];

#[test]
fn no_field_of_a_part_is_pub() {
    let mut public = Vec::new();
    let parts = PARTS.iter().map(|p| (p.name, p.file)).chain(PRIVATE_ONLY);
    for (name, file) in parts {
        let code = code_only(&read(&crate_dir().join(file)));
        for field in struct_fields(&code, name, file) {
            if field.public {
                public.push(format!("{file}: `{name}::{}` is declared pub", field.name));
            }
        }
    }
    assert!(
        public.is_empty(),
        "each part owns its state privately (ARCHITECTURE.md, \"The parts and what they exchange\"): \
         make these fields private and give the part a method named for what happened\n{}",
        public.join("\n")
    );
}

#[test]
fn the_sim_assigns_no_field_of_a_part() {
    let mut found = Vec::new();
    let files = sim_files();
    for part in &PARTS {
        let fields = struct_fields(&code_only(&read(&crate_dir().join(part.file))), part.name, part.file);
        for file in &files {
            let code = code_only(&read(&crate_dir().join(file)));
            for (line, what) in assignments_in(&code, part, &fields) {
                found.push(format!("{file}:{line}: {what} changes a field of the {}", part.name));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the Sim routes values and never assigns a part's field (ARCHITECTURE.md): \
         call a method of the part instead\n{}",
        found.join("\n")
    );
}

/// The scan itself: what it must find, and what it must leave alone.
#[test]
fn the_scan_finds_assignments_and_leaves_reads_and_methods() {
    let part = &PARTS[0];
    let fields: Vec<Field> = ["step", "uncommitted", "acks", "positions", "kill_before_commit", "group"]
        .into_iter()
        .map(|name| Field { name: name.to_string(), public: true })
        .collect();
    let code = code_only(
        r#"
        self.consumers[c].step = LoopStep::Poll;
        self.consumers[c]
            .uncommitted |= true;
        self.consumers[c].positions[p as usize] = Some(1);
        self.consumers[c].acks.push((0, 1, kind));
        std::mem::take(&mut self.consumers[c].kill_before_commit);
        let consumer = &mut self.consumers[c];
        consumer.step += 1;
        for x in self.consumers.iter_mut().filter(|c| c.group == g) { x.uncommitted = false; }
        let g = self.consumers[c].group;
        if self.consumers[c].step == LoopStep::Poll {}
        self.consumers[c].handle_polled(now);
        // self.consumers[c].step = LoopStep::Idle;
        let s = "self.consumers[c].step = 1";
        self.consumers[c].acks.count += 1;
        let n = self.consumers[c].acks.count.max(1);
        self.consumers[c].positions.inner.push(3);
        "#,
    );
    let found: Vec<usize> = assignments_in(&code, part, &fields).into_iter().map(|(line, _)| line).collect();
    assert_eq!(found, vec![2, 3, 5, 6, 7, 9, 10, 16, 18]);
}
