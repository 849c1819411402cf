//! The shape of the code, checked: a newcomer finds one concern per room, and the rules
//! that keep the rooms apart cannot rot silently.
//!
//! - Only the server's `rpc` room knows the wire: no other room names tonic, prost,
//!   `skat_proto` or protobuf types.
//! - No room but `rpc` (and `lib.rs`, which wires the rooms together) imports `rpc`.
//! - The rooms' imports form no cycle, and in no crate of the workspace do the top-level
//!   modules import each other in a circle.
//! - In the whole workspace, no source file is over 600 lines (tests and generated code
//!   aside), no `impl` block over 400, no type over 600 over all its `impl` blocks
//!   (wherever they live: spreading a type over files does not make it smaller) and no
//!   function over 80: a reader holds a unit.
//!
//! The rooms are the directories under `src/` (and the top-level files `config.rs`,
//! `metrics.rs`, `secret.rs`); `docs/architecture.md` says what each holds.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 600;
const MAX_IMPL_LINES: usize = 400;
const MAX_TYPE_LINES: usize = 600;
const MAX_FN_LINES: usize = 80;
/// Names only the wire room may use.
const WIRE: [&str; 4] = ["tonic", "prost", "skat_proto", "pb::"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Source text with comments, strings and character literals blanked out, so that
/// braces and names inside them do not count.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                if chars[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else if c == 'r'
            && (next == Some('"')
                || (next == Some('#') && chars.get(i + 2).is_some_and(|c| *c == '#' || *c == '"')))
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                if chars[j] == '\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if chars.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\''
            && (chars.get(i + 2) == Some(&'\'') || (next == Some('\\') && chars.get(i + 3) == Some(&'\'')))
        {
            // A character literal ('x' or '\n'); a lifetime ('a) is left alone.
            i += if next == Some('\\') { 4 } else { 3 };
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The code before the file's `#[cfg(test)]` module (tests are not counted).
fn without_tests(code: &str) -> &str {
    match code.find("#[cfg(test)]\nmod tests") {
        Some(i) => &code[..i],
        None => code,
    }
}

/// The length in lines of the block that starts on `lines[0]`: to its closing brace; `None`
/// for a declaration that ends with `;` before any brace opens.
fn block_len(lines: &[&str]) -> Option<usize> {
    let mut depth = 0i64;
    let mut opened = false;
    for (k, l) in lines.iter().enumerate() {
        for ch in l.chars() {
            match ch {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        if opened && depth <= 0 {
            return Some(k + 1);
        }
        if !opened && l.trim_end().ends_with(';') {
            return None;
        }
    }
    None
}

/// Every `impl` block's length in lines: from the line that opens it to its closing brace.
fn impl_blocks(code: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let starts_impl =
        |t: &str| t.starts_with("impl ") || t.starts_with("impl<") || t.starts_with("unsafe impl");
    (0..lines.len())
        .filter(|&start| starts_impl(lines[start].trim_start()))
        .filter_map(|start| block_len(&lines[start..]).map(|len| (start + 1, len)))
        .collect()
}

/// The type an `impl` line implements (`impl X`, `impl<T> X<T>`, `impl Trait for X`):
/// its last path segment, without generics.
fn impl_type(line: &str) -> Option<String> {
    let t = line.trim_start();
    let rest = t.strip_prefix("unsafe ").unwrap_or(t).strip_prefix("impl")?;
    // Skip the impl's own generics, which may nest.
    let mut depth = 0i32;
    let mut start = 0;
    for (i, ch) in rest.char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 && !ch.is_whitespace() => {
                start = i;
                break;
            }
            _ => {}
        }
    }
    let head = &rest[start..];
    let head = head.split(" where").next()?.trim_end_matches('{').trim();
    let target = head.rsplit(" for ").next()?.trim();
    let path = target.split('<').next()?.trim().trim_start_matches('&');
    let name = path.rsplit("::").next()?.trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// Every function's name, first line and length in lines: from the line of its `fn` to
/// its closing brace (a declaration without a body is none).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    (0..lines.len())
        .filter_map(|start| Some((fn_name(lines[start])?, start + 1, block_len(&lines[start..])?)))
        .collect()
}

/// The name of the function a line starts, if it starts one.
fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.next() {
        match w {
            "pub" | "async" | "const" | "unsafe" | "extern" => continue,
            _ if w.starts_with("pub(") => continue,
            "fn" => {
                let name: String =
                    words.peek()?.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                return (!name.is_empty()).then_some(name);
            }
            _ => return None,
        }
    }
    None
}

fn server_src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The room of a file: its directory under `src/`, or the file's own name at the top.
fn room_of(path: &Path) -> String {
    let rel = path.strip_prefix(server_src()).expect("under src");
    let mut parts = rel.components();
    let first = parts.next().expect("a component").as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

#[test]
fn only_the_rpc_room_knows_the_wire_and_nothing_imports_it() {
    let mut files = Vec::new();
    rust_files(&server_src(), &mut files);
    assert!(files.len() > 20, "the server's sources are found");
    let mut broken = Vec::new();
    for path in &files {
        let room = room_of(path);
        if room == "rpc" {
            continue;
        }
        let code = code_only(&fs::read_to_string(path).expect("readable"));
        for (n, line) in code.lines().enumerate() {
            for name in WIRE {
                if line.contains(name) {
                    broken.push(format!(
                        "{}:{}: names `{name}` outside rpc/: {}",
                        path.display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
            if room != "lib" && line.contains("crate::rpc") {
                broken.push(format!("{}:{}: imports rpc/: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The top-level modules ("rooms") of a crate's `src/`, and which import which:
/// `crate::X` in code (comments and the trailing test module aside). The crate root
/// (`lib.rs`, `main.rs`) wires the rooms together and is not one.
fn module_imports(src: &Path) -> (BTreeSet<String>, BTreeMap<String, BTreeSet<String>>) {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let room = |p: &Path| {
        let rel = p.strip_prefix(src).expect("under src");
        rel.components()
            .next()
            .expect("a component")
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string()
    };
    let rooms: BTreeSet<String> =
        files.iter().map(|p| room(p)).filter(|r| r != "lib" && r != "main").collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in &files {
        let from = room(path);
        if !rooms.contains(&from) {
            continue;
        }
        let code = code_only(&fs::read_to_string(path).expect("readable"));
        let code = without_tests(&code);
        for target in &rooms {
            let named = code
                .match_indices(&format!("crate::{target}"))
                .any(|(i, m)| !code[i + m.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'));
            if *target != from && named {
                edges.entry(from.clone()).or_default().insert(target.clone());
            }
        }
    }
    (rooms, edges)
}

/// A cycle among `edges`, as the path around it, if there is one.
fn find_cycle(rooms: &BTreeSet<String>, edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        room: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|r| r == room) {
            let mut cycle = path[i..].to_vec();
            cycle.push(room.to_string());
            return Some(cycle);
        }
        if done.contains(room) {
            return None;
        }
        path.push(room.to_string());
        for next in edges.get(room).into_iter().flatten() {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(room.to_string());
        None
    }
    let mut done = BTreeSet::new();
    rooms.iter().find_map(|room| visit(room, edges, &mut Vec::new(), &mut done))
}

#[test]
fn no_crate_has_an_import_cycle() {
    let crates = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = 0;
    for entry in fs::read_dir(&crates).expect("crates/") {
        let dir = entry.expect("an entry").path();
        let (rooms, edges) = module_imports(&dir.join("src"));
        checked += rooms.len();
        if let Some(cycle) = find_cycle(&rooms, &edges) {
            panic!("{}: modules import each other in a circle: {}", dir.display(), cycle.join(" -> "));
        }
    }
    assert!(checked > 60, "the crates' modules are found ({checked})");
}

#[test]
fn the_rooms_import_each_other_without_a_cycle() {
    let (rooms, edges) = module_imports(&server_src());
    if let Some(cycle) = find_cycle(&rooms, &edges) {
        panic!("the rooms import each other in a circle: {}\n(all imports: {edges:?})", cycle.join(" -> "));
    }
    // The layering the architecture page describes.
    for (low, high) in
        [("table", "journal"), ("store", "journal"), ("journal", "competition"), ("table", "competition")]
    {
        assert!(
            !edges.get(low).is_some_and(|e| e.contains(high)),
            "{low}/ must not import {high}/ (it sits below it)"
        );
    }
}

#[test]
fn every_source_file_in_the_workspace_is_small() {
    let crates = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for entry in fs::read_dir(&crates).expect("crates/") {
        let src = entry.expect("an entry").path().join("src");
        rust_files(&src, &mut files);
    }
    assert!(files.len() > 80, "the workspace's sources are found ({})", files.len());
    let mut broken = Vec::new();
    // (crate, type) -> lines over all its impl blocks, and where they are.
    let mut types: BTreeMap<(String, String), (usize, BTreeSet<String>)> = BTreeMap::new();
    for path in &files {
        let text = fs::read_to_string(path).expect("readable");
        // Generated code says so in its first lines; a file of tests is all tests.
        if text.lines().take(3).any(|l| l.contains("Do not edit by hand")) || path.ends_with("tests.rs") {
            continue;
        }
        let code = code_only(&text);
        let counted = without_tests(&code);
        let lines = counted.lines().count();
        if lines > MAX_FILE_LINES {
            broken.push(format!(
                "{}: {lines} lines (at most {MAX_FILE_LINES} outside its tests)",
                path.display()
            ));
        }
        let krate = path.strip_prefix(&crates).ok().and_then(|p| p.components().next());
        let krate = krate.map(|c| c.as_os_str().to_string_lossy().to_string()).unwrap_or_default();
        let lines_of: Vec<&str> = counted.lines().collect();
        for (start, len) in impl_blocks(counted) {
            if let Some(name) = impl_type(lines_of[start - 1]) {
                let entry = types.entry((krate.clone(), name)).or_default();
                entry.0 += len;
                entry.1.insert(format!("{}", path.strip_prefix(&crates).unwrap_or(path).display()));
            }
            if len > MAX_IMPL_LINES {
                broken.push(format!(
                    "{}:{start}: an impl block of {len} lines (at most {MAX_IMPL_LINES})",
                    path.display()
                ));
            }
        }
        for (name, start, len) in functions(counted) {
            if len > MAX_FN_LINES {
                broken.push(format!(
                    "{}:{start}: fn {name} is {len} lines (at most {MAX_FN_LINES}: give each step a name)",
                    path.display()
                ));
            }
        }
    }
    for ((krate, name), (len, files)) in &types {
        if *len > MAX_TYPE_LINES {
            broken.push(format!(
                "{krate}: type {name} is {len} lines over all its impl blocks (at most {MAX_TYPE_LINES}: give each concern its own type), in {}",
                files.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    assert!(types.len() > 100, "the workspace's types are found ({})", types.len());
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_map_names_every_crate_and_every_file_of_the_server() {
    // docs/architecture.md is the one map (the README, docs/server.md and lib.rs point to
    // it): a crate or a server file it does not name is a map that drifted.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let map = fs::read_to_string(root.join("docs/architecture.md")).expect("docs/architecture.md");
    let mut missing = Vec::new();
    for entry in fs::read_dir(root.join("crates")).expect("crates/") {
        let name = entry.expect("an entry").file_name().to_string_lossy().to_string();
        if !map.contains(&format!("`{name}`")) {
            missing.push(format!("the crate `{name}`"));
        }
    }
    let mut files = Vec::new();
    rust_files(&server_src(), &mut files);
    for path in &files {
        let name = path.file_name().expect("a file").to_string_lossy().to_string();
        if !["mod.rs", "tests.rs", "lib.rs"].contains(&name.as_str()) && !map.contains(&name) {
            missing.push(format!("{}", path.strip_prefix(server_src()).expect("under src").display()));
        }
    }
    assert!(missing.is_empty(), "docs/architecture.md does not name: {}", missing.join(", "));
}

#[test]
fn everything_the_map_names_exists() {
    // The other direction: a crate in the map's crate table, or a Rust file it names, that
    // is not there is a map that drifted (a rename, a move).
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let map = fs::read_to_string(root.join("docs/architecture.md")).expect("docs/architecture.md");
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    let names: BTreeSet<String> =
        files.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().to_string()).collect();
    let mut gone = Vec::new();
    for line in map.lines() {
        if let Some(rest) = line.strip_prefix("| `skat-") {
            let krate = format!("skat-{}", rest.split('`').next().unwrap_or_default());
            if !krate.contains('/') && !root.join("crates").join(&krate).is_dir() {
                gone.push(format!("the crate `{krate}`"));
            }
        }
        for quoted in line.split('`').skip(1).step_by(2) {
            let named = quoted.trim_end_matches(['/', ',']);
            if !named.ends_with(".rs") || named.contains(' ') || named.contains('*') {
                continue;
            }
            let found = if named.contains('/') {
                let bases = [
                    root.clone(),
                    root.join("crates/skat-server"),
                    root.join("crates/skat-server/src"),
                    root.join("crates"),
                ];
                bases.iter().any(|b| b.join(named).is_file())
            } else {
                names.contains(named)
            };
            if !found {
                gone.push(format!("`{named}`"));
            }
        }
    }
    assert!(gone.is_empty(), "docs/architecture.md names what is not there: {}", gone.join(", "));
}

#[test]
fn the_checks_themselves_see_what_they_look_for() {
    // Braces in strings, characters and comments do not count; a lifetime is no character.
    // A cycle is found, and only a cycle.
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<String>>();
    let mut edges = BTreeMap::new();
    edges.insert("a".to_string(), set(&["b"]));
    edges.insert("b".to_string(), set(&["c"]));
    assert_eq!(find_cycle(&set(&["a", "b", "c"]), &edges), None);
    edges.insert("c".to_string(), set(&["a"]));
    assert_eq!(
        find_cycle(&set(&["a", "b", "c"]), &edges),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    let code = code_only("impl<'a> X<'a> {\n    fn f() { let s = \"}}\"; let c = '}'; } // }\n}\n");
    assert_eq!(impl_blocks(&code), vec![(1, 3)]);
    assert!(!code_only("// tonic\nlet x = \"pb::\";").contains("tonic"));
    assert!(code_only("let t = tonic::Status::ok(\"\");").contains("tonic"));
    assert_eq!(without_tests("a\n#[cfg(test)]\nmod tests {}\n"), "a\n");
    // Functions: their names and lengths, bodies only.
    let code = code_only("pub(crate) async fn f(x: u8) -> u8 {\n    let s = \"}\";\n    x\n}\nfn g();\n");
    assert_eq!(functions(&code), vec![("f".to_string(), 1, 4)]);
    assert_eq!(fn_name("    pub fn new() -> Self {"), Some("new".into()));
    assert_eq!(fn_name("    let fn_x = 1;"), None);
    // The type of an impl block, however it is written.
    assert_eq!(impl_type("impl Store {"), Some("Store".into()));
    assert_eq!(impl_type("impl<'s> MigrationSource<'s> for Schema {"), Some("Schema".into()));
    assert_eq!(impl_type("impl<T: Into<u8>> crate::x::Pair<T, u8> {"), Some("Pair".into()));
    assert_eq!(impl_type("impl std::fmt::Display for &Card {"), Some("Card".into()));
}
