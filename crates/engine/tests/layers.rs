//! The engine's modules form a stack: each module may name only modules of
//! its own layer or below, and the modules of one layer do not name each
//! other in a cycle. `LAYERS` below is the one place a module's layer is
//! written; ARCHITECTURE.md ("The engine's layers") draws the stack.
//!
//! The check reads `src/` as text: every `use` (groups, `self`, `super`,
//! renames and globs included), every path starting with `crate::`, `super::`
//! or `self::`, and every path starting with the name of a child module.
//! Comments and string literals are left out (a doc link is not a
//! dependency); unit tests inside a module count as that module's code. A
//! path naming something `lib.rs` re-exports (`crate::Config`) counts as
//! naming the module it comes from. Submodules take their top-level module's
//! layer unless the table lists them (a module and its submodules are one
//! unit, whose inner references are not checked); every top-level module must
//! be listed. Method calls and trait impls are not paths and go unseen: serde's
//! impls of the format's types live in `codec/tagged.rs`, above the config and
//! input types whose derived readers rely on them, by design (one place reads
//! the format).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path → layer, bottom (0) to top. A module may name modules of its
/// own layer or lower ones, never a higher one; within a layer, no cycle.
const LAYERS: &[(&str, u8)] = &[
    // 0, foundations: bounds, text helpers, orderings, the PRNG, the chunked
    // log, and Kafka's rules that need no state of the simulation (the
    // partitioner, the assignors, the produce path's words).
    ("limits", 0),
    ("quote", 0),
    ("order", 0),
    ("rng", 0),
    ("log", 0),
    ("partitioner", 0),
    ("assign", 0),
    ("delivery", 0),
    // 1, the configuration: its types and their validation.
    ("config", 1),
    // 2, plain values in and out: ticks, consumer ids, inputs, events.
    ("input", 2),
    ("event", 2),
    // 3, the parts: each owns its state and the plain data it gives out.
    ("broker", 3),
    ("client", 3),
    ("app", 3),
    ("bridge", 3),
    ("letters", 3),
    ("observe", 3),
    ("evidence", 3),
    // 4, the views: plain data the sim composes from the parts.
    ("view", 4),
    // 5, the router.
    ("sim", 5),
    // 6, what runs a sim: guides, scenarios, time travel.
    ("guide", 6),
    ("scenario", 6),
    // Its own unit, so that the stack checks it: it runs scenarios, and
    // `scenario` does not name it.
    ("scenario::shrink", 6),
    ("history", 6),
    ("explain", 6),
    // 7, text in and out: the scenario format, links, built-ins, `--describe`.
    ("codec", 7),
    ("describe", 7),
];

#[test]
fn modules_form_a_stack_without_cycles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let crate_ = Crate::read(&src);
    let layers: BTreeMap<Vec<String>, u8> =
        LAYERS.iter().map(|&(path, layer)| (split(path), layer)).collect();
    let mut problems: Vec<String> = Vec::new();

    // Every top-level module is placed, and every entry names a module.
    for module in &crate_.modules {
        if module.len() == 1 && !layers.contains_key(module) {
            problems.push(format!("module `{}` is missing from LAYERS: give it a layer", module.join("::")));
        }
    }
    for path in layers.keys() {
        if !crate_.modules.contains(path) {
            problems.push(format!("LAYERS lists `{}`, which is not a module of the engine", path.join("::")));
        }
    }
    let entry_of = |module: &[String]| -> Option<Vec<String>> {
        (1..=module.len()).rev().map(|n| module[..n].to_vec()).find(|prefix| layers.contains_key(prefix))
    };

    // No module names a module of a higher layer.
    let mut edges: BTreeMap<(Vec<String>, Vec<String>), Vec<&Reference>> = BTreeMap::new();
    for reference in &crate_.references {
        let (Some(from), Some(to)) = (entry_of(&reference.from), entry_of(&reference.to)) else { continue };
        if from == to {
            continue;
        }
        if layers[&to] > layers[&from] {
            problems.push(format!(
                "{}:{}: `{}` (layer {}) names `{}` (layer {}): `{}`",
                reference.file,
                reference.line,
                from.join("::"),
                layers[&from],
                to.join("::"),
                layers[&to],
                reference.text,
            ));
        } else if layers[&to] == layers[&from] {
            edges.entry((from, to)).or_default().push(reference);
        }
    }

    // Within a layer, no cycle.
    for cycle in cycles(&edges) {
        let mut members: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
        members.sort();
        members.dedup();
        problems.push(format!("cycle within layer {} through {}:", layers[&cycle[0]], members.join(", ")));
        for (from, to) in cycle.iter().zip(cycle.iter().cycle().skip(1)) {
            if let Some(refs) = edges.get(&(from.clone(), to.clone())) {
                let r = refs[0];
                let more =
                    if refs.len() > 1 { format!(" (and {} more)", refs.len() - 1) } else { String::new() };
                problems.push(format!(
                    "    {} → {}: {}:{}: `{}`{more}",
                    from.join("::"),
                    to.join("::"),
                    r.file,
                    r.line,
                    r.text
                ));
            }
        }
    }

    assert!(
        problems.is_empty(),
        "the engine's modules do not form a stack (tests/layers.rs):\n{}",
        problems.join("\n")
    );
}

/// The reading itself, on a made-up crate: every form of reference is seen,
/// comments and strings are not.
#[test]
fn references_are_read_in_every_form() {
    let file = |name: &str, module: &str, text: &str| (name.to_string(), split(module), text.to_string());
    let crate_ = Crate::parse(vec![
        file(
            "src/lib.rs",
            "",
            "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\npub use e::{Thing as Renamed, Other};\n",
        ),
        file(
            "src/a.rs",
            "a",
            r##"use crate::b::{self, x::{Y, Z as W}};
pub(crate) fn f() -> u8 {
    // crate::e::not_in_a_comment
    let _ = "crate::e::not_in_a_string";
    let _ = r#"crate::e::nor_a_raw_one"#;
    let _ = '"';
    crate::c::g::<u8>() + helper::h()
}
mod helper {
    pub fn h() -> u8 { super::super::d::ONE }
}
#[cfg(test)]
mod tests {
    use super::*;
    fn t() -> crate::Renamed { crate::Other }
}
"##,
        ),
        file("src/b.rs", "b", "pub mod x;\nuse x::Y;\n"),
        file("src/b/x.rs", "b::x", "pub struct Y;\npub struct Z;\n"),
        file("src/c.rs", "c", "pub fn g<T>() -> u8 { 0 }\n"),
        file("src/d.rs", "d", "pub const ONE: u8 = 1;\n"),
        file("src/e.rs", "e", "pub struct Thing;\npub struct Other;\n"),
    ]);
    let seen: BTreeSet<(String, String, usize)> =
        crate_.references.iter().map(|r| (r.from.join("::"), r.to.join("::"), r.line)).collect();
    let expected: BTreeSet<(String, String, usize)> = [
        ("a", "b", 1),
        ("a", "b::x", 1),
        ("a", "c", 7),
        ("a", "a::helper", 7),
        ("a::helper", "d", 10),
        ("a::tests", "a", 14),
        ("a::tests", "e", 15),
        ("b", "b::x", 2),
    ]
    .into_iter()
    .map(|(from, to, line)| (from.to_string(), to.to_string(), line))
    .collect();
    assert_eq!(seen, expected);
}

/// The strongly connected components with more than one module, each as one
/// cycle through its members (Tarjan's algorithm, then a walk inside the component).
fn cycles(edges: &BTreeMap<(Vec<String>, Vec<String>), Vec<&Reference>>) -> Vec<Vec<Vec<String>>> {
    let mut next: BTreeMap<&Vec<String>, Vec<&Vec<String>>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
        next.entry(to).or_default();
    }
    let nodes: Vec<&Vec<String>> = next.keys().copied().collect();
    let index_of: BTreeMap<&Vec<String>, usize> = nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let succ: Vec<Vec<usize>> = nodes.iter().map(|n| next[n].iter().map(|m| index_of[m]).collect()).collect();

    struct Tarjan<'a> {
        succ: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        components: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.counter);
            self.low[v] = self.counter;
            self.counter += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.succ[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(i) if self.on_stack[w] => self.low[v] = self.low[v].min(i),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                self.components.push(component);
            }
        }
    }
    let n = nodes.len();
    let mut tarjan = Tarjan {
        succ: &succ,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        components: Vec::new(),
    };
    for v in 0..n {
        if tarjan.index[v].is_none() {
            tarjan.visit(v);
        }
    }
    let mut found = Vec::new();
    for mut component in tarjan.components.into_iter().filter(|c| c.len() > 1) {
        component.sort_unstable();
        // A cycle through every member: from the first, go to the nearest
        // unvisited member by a shortest path, then back to the first.
        let inside: BTreeSet<usize> = component.iter().copied().collect();
        let path = |from: usize, to: usize| -> Vec<usize> {
            let mut previous = BTreeMap::from([(from, from)]);
            let mut queue = std::collections::VecDeque::from([from]);
            while let Some(v) = queue.pop_front() {
                for &w in &succ[v] {
                    if inside.contains(&w) && !previous.contains_key(&w) {
                        previous.insert(w, v);
                        queue.push_back(w);
                    }
                }
            }
            let mut walk = vec![to];
            while *walk.last().expect("not empty") != from {
                walk.push(previous[walk.last().expect("not empty")]);
            }
            walk.reverse();
            walk
        };
        let mut walk = vec![component[0]];
        for &member in &component[1..] {
            if !walk.contains(&member) {
                let step = path(*walk.last().expect("not empty"), member);
                walk.extend(&step[1..]);
            }
        }
        let back = path(*walk.last().expect("not empty"), component[0]);
        walk.extend(&back[1..back.len() - 1]);
        found.push(walk.into_iter().map(|i| nodes[i].clone()).collect());
    }
    found
}

#[derive(Debug)]
struct Reference {
    /// The module whose code names `to` (an inline module such as `x::tests` included).
    from: Vec<String>,
    to: Vec<String>,
    file: String,
    line: usize,
    text: String,
}

#[derive(Debug)]
struct Crate {
    /// Every module, file or inline (the root is the empty path).
    modules: BTreeSet<Vec<String>>,
    references: Vec<Reference>,
}

impl Crate {
    /// The crate whose sources are in `src`.
    fn read(src: &Path) -> Crate {
        let mut files = Vec::new();
        collect_files(src, src, &mut files);
        files.sort();
        let files = files
            .into_iter()
            .map(|(name, module)| {
                let text = std::fs::read_to_string(src.join(&name)).expect("readable");
                (format!("src/{name}"), module, text)
            })
            .collect();
        Crate::parse(files)
    }

    /// The crate of `files`: each its name, its module path and its text.
    fn parse(files: Vec<(String, Vec<String>, String)>) -> Crate {
        let lexed: Vec<(String, Vec<String>, Vec<Token>)> =
            files.into_iter().map(|(name, module, text)| (name, module, lex(&text))).collect();

        // Pass 1: the modules, files and inline ones.
        let mut modules: BTreeSet<Vec<String>> = lexed.iter().map(|(_, m, _)| m.clone()).collect();
        for (_, module, tokens) in &lexed {
            walk_modules(module, tokens, |current, i| {
                if tokens[i].text == "mod"
                    && let Some(name) = tokens.get(i + 1).filter(|t| t.is_ident())
                {
                    let mut child = current.to_vec();
                    child.push(name.text.clone());
                    modules.insert(child);
                }
            });
        }

        // What lib.rs re-exports: a name at the root → the path it comes from.
        let mut reexports: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let root = lexed.iter().find(|(_, m, _)| m.is_empty()).expect("src/lib.rs");
        let mut i = 0;
        while i < root.2.len() {
            if root.2[i].text == "use" {
                let (trees, end) = use_trees(&root.2, i + 1);
                for (path, alias) in trees {
                    if let Some(full) = resolve(&[], &path, &modules)
                        && let Some(alias) = alias.or_else(|| full.last().cloned())
                    {
                        reexports.insert(alias, full);
                    }
                }
                i = end;
            }
            i += 1;
        }
        let target = |path: Vec<String>| -> Option<Vec<String>> {
            let mut path = path;
            if !path.is_empty() && !modules.contains(&path[..1]) {
                let mut full = reexports.get(&path[0])?.clone();
                full.extend(path.drain(1..));
                path = full;
            }
            // The longest prefix that is a module.
            (1..=path.len()).rev().map(|n| path[..n].to_vec()).find(|prefix| modules.contains(prefix))
        };

        // Pass 2: every path naming a module of the crate, from every module but the root.
        let mut references = Vec::new();
        for (file, module, tokens) in &lexed {
            if module.is_empty() {
                continue; // lib.rs only declares and re-exports
            }
            let mut skip_to = 0;
            walk_modules(module, tokens, |current, i| {
                if i < skip_to {
                    return;
                }
                let token = &tokens[i];
                let mut found = |path: Vec<String>, text: String| {
                    if let Some(to) = resolve(current, &path, &modules).and_then(target) {
                        references.push(Reference {
                            from: current.to_vec(),
                            to,
                            file: file.clone(),
                            line: token.line,
                            text,
                        });
                    }
                };
                if token.text == "use" {
                    let (trees, end) = use_trees(tokens, i + 1);
                    for (path, _) in trees {
                        let text = format!("use {}", path.join("::"));
                        found(path, text);
                    }
                    skip_to = end;
                    return;
                }
                let starts_path = token.is_ident()
                    && tokens.get(i + 1).is_some_and(|t| t.text == "::")
                    && tokens.get(i + 2).is_some_and(Token::is_ident)
                    && (i == 0 || (tokens[i - 1].text != "::" && tokens[i - 1].text != "."));
                if starts_path {
                    let mut path = vec![token.text.clone()];
                    let mut j = i + 1;
                    while tokens.get(j).is_some_and(|t| t.text == "::")
                        && tokens.get(j + 1).is_some_and(Token::is_ident)
                    {
                        path.push(tokens[j + 1].text.clone());
                        j += 2;
                    }
                    let text = path.join("::");
                    found(path, text);
                }
            });
        }
        Crate { modules, references }
    }
}

/// `path` as seen from `current`, made absolute, if it starts with `crate`,
/// `super`, `self` or a child module of `current`.
fn resolve(current: &[String], path: &[String], modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut base = current.to_vec();
    let rest = match first.as_str() {
        "crate" => {
            base.clear();
            &path[1..]
        }
        "super" => {
            let supers = path.iter().take_while(|s| *s == "super").count();
            for _ in 0..supers {
                base.pop()?;
            }
            &path[supers..]
        }
        "self" => &path[1..],
        _ => {
            let mut child = current.to_vec();
            child.push(first.clone());
            if !modules.contains(&child) {
                return None;
            }
            path
        }
    };
    let rest: Vec<String> = rest.iter().filter(|s| *s != "self").cloned().collect();
    base.extend(rest);
    Some(base)
}

/// Calls `visit(current module, token index)` for every token, with the inline
/// module (`mod tests { … }`) the token is in.
fn walk_modules(module: &[String], tokens: &[Token], mut visit: impl FnMut(&[String], usize)) {
    let mut current = module.to_vec();
    let mut open: Vec<usize> = Vec::new(); // brace depth inside each inline module
    let mut depth = 0usize;
    for i in 0..tokens.len() {
        visit(&current, i);
        match tokens[i].text.as_str() {
            "{" => {
                depth += 1;
                if i >= 2 && tokens[i - 2].text == "mod" && tokens[i - 1].is_ident() {
                    current.push(tokens[i - 1].text.clone());
                    open.push(depth);
                }
            }
            "}" => {
                if open.last() == Some(&depth) {
                    open.pop();
                    current.pop();
                }
                depth -= 1;
            }
            _ => {}
        }
    }
}

/// A path of a use tree, and the name it is imported as (`as`).
type UsePath = (Vec<String>, Option<String>);

/// The paths of the use tree starting at `tokens[start]` (after `use`), each
/// with its `as` name, and the index of the closing `;`.
fn use_trees(tokens: &[Token], start: usize) -> (Vec<UsePath>, usize) {
    fn tree(tokens: &[Token], mut i: usize, prefix: &[String], out: &mut Vec<UsePath>) -> usize {
        let mut path = prefix.to_vec();
        loop {
            match tokens[i].text.as_str() {
                "{" => {
                    i += 1;
                    while tokens[i].text != "}" {
                        i = tree(tokens, i, &path, out);
                        if tokens[i].text == "," {
                            i += 1;
                        }
                    }
                    return i + 1;
                }
                "*" => {
                    out.push((path, None));
                    return i + 1;
                }
                "::" => i += 1,
                _ if tokens[i].is_ident() => {
                    path.push(tokens[i].text.clone());
                    i += 1;
                    if tokens[i].text == "as" {
                        out.push((path, Some(tokens[i + 1].text.clone())));
                        return i + 2;
                    }
                    if tokens[i].text != "::" {
                        out.push((path, None));
                        return i;
                    }
                }
                other => panic!("unexpected `{other}` in a use tree at line {}", tokens[i].line),
            }
        }
    }
    let mut out = Vec::new();
    let end = tree(tokens, start, &[], &mut out);
    assert_eq!(tokens[end].text, ";", "a use tree ends with `;` at line {}", tokens[end].line);
    (out, end)
}

/// `src/`'s `.rs` files, each with its module path.
fn collect_files(src: &Path, dir: &Path, out: &mut Vec<(String, Vec<String>)>) {
    for entry in std::fs::read_dir(dir).expect("readable") {
        let path = entry.expect("readable").path();
        if path.is_dir() {
            collect_files(src, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = path.strip_prefix(src).expect("inside src").to_string_lossy().replace('\\', "/");
            let mut module = split(&name.trim_end_matches(".rs").replace('/', "::"));
            if matches!(module.last().map(String::as_str), Some("lib" | "mod")) {
                module.pop();
            }
            out.push((name, module));
        }
    }
}

fn split(path: &str) -> Vec<String> {
    path.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect()
}

#[derive(Debug)]
struct Token {
    text: String,
    line: usize,
}

impl Token {
    fn is_ident(&self) -> bool {
        self.text.starts_with(|c: char| c.is_alphabetic() || c == '_')
    }
}

/// Rust source as identifiers, `::` and single punctuation, without
/// comments, string and character literals, numbers and lifetimes.
fn lex(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    // The number of `#`s of a raw string starting at `i`.
    let raw_string_at = |i: usize| -> Option<usize> {
        let start = match (at(i), at(i + 1)) {
            ('r', _) => i + 1,
            ('b', 'r') => i + 2,
            _ => return None,
        };
        let hashes = (start..).take_while(|&j| at(j) == '#').count();
        (at(start + hashes) == '"').then_some(hashes)
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(at(i) == '\n');
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while at(i) != '"' {
                if at(i) == '\\' {
                    i += 1;
                }
                line += usize::from(at(i) == '\n');
                i += 1;
            }
            i += 1;
        } else if let Some(hashes) = raw_string_at(i) {
            // A raw string: r"…", r#"…"#, br"…".
            i += if c == 'b' { 2 } else { 1 } + hashes + 1;
            loop {
                if at(i) == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                    i += hashes + 1;
                    break;
                }
                line += usize::from(at(i) == '\n');
                i += 1;
            }
        } else if c == '\'' {
            if at(i + 1) == '\\' {
                // An escaped character literal.
                i += 2;
                while at(i) != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3; // a character literal
            } else {
                // A lifetime or label.
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            tokens.push(Token { text: chars[start..i].iter().collect(), line });
        } else if c.is_ascii_digit() {
            while at(i).is_alphanumeric() || at(i) == '_' || (at(i) == '.' && at(i + 1).is_ascii_digit()) {
                i += 1;
            }
        } else if c == ':' && at(i + 1) == ':' {
            tokens.push(Token { text: "::".into(), line });
            i += 2;
        } else {
            tokens.push(Token { text: c.to_string(), line });
            i += 1;
        }
    }
    tokens
}
