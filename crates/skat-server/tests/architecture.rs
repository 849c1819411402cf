//! The shape of the code, checked: a newcomer finds one concern per crate and per room,
//! and the rules that keep them apart cannot rot silently.
//!
//! - The server is five crates on floors (`FLOORS`: the table, the store, the journal,
//!   the competitions, the server); each depends only on the floors below it, and the
//!   workspace's crate graph is the one `docs/architecture.md` draws.
//! - Only the server's `rpc` room knows the wire: no floor below it depends on tonic,
//!   prost or `skat-proto`, and no other file names them. Nothing but `lib.rs` imports
//!   `rpc`.
//! - In no crate do the top-level modules import each other in a circle, and in no
//!   directory do its files (its `mod.rs` or `lib.rs` aside).
//! - In the whole workspace, no source file is over 600 lines (tests and generated code
//!   aside), no `impl` block over 400, no type over 600 over all its `impl` blocks
//!   (wherever they live: spreading a type over files does not make it smaller) and no
//!   function over 80: a reader holds a unit. A file is read to its end: only test
//!   modules' blocks are left out.
//!
//! `docs/architecture.md` says what each crate and room holds.

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

/// The code without its test modules (`#[cfg(test)] mod tests { ... }`, to their closing
/// brace): tests are not counted. A declaration (`#[cfg(test)] mod tests;`) is not a test
/// module: the code after it is read to the end.
fn without_tests(code: &str) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let next = lines.get(i + 1).map(|l| l.trim_start());
        let is_module = lines[i].trim() == "#[cfg(test)]"
            && next.is_some_and(|n| {
                (n.starts_with("mod ") || n.starts_with("pub(crate) mod ")) && !n.ends_with(';')
            });
        match is_module.then(|| block_len(&lines[i + 1..])).flatten() {
            Some(len) => i += 1 + len,
            None => {
                out.push(lines[i]);
                i += 1;
            }
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
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

fn crates_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The server's crates, from the bottom floor up: each may depend only on those before it.
const FLOORS: [&str; 5] = ["skat-table", "skat-store", "skat-journal", "skat-competition", "skat-server"];

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
    // The floors below the server: none names the wire, and none could (not a dependency).
    for krate in &FLOORS[..4] {
        let dir = crates_dir().join(krate);
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).expect("a manifest");
        for dep in ["tonic", "prost", "skat-proto"] {
            assert!(
                !dependencies(&manifest).contains(dep),
                "{krate} depends on {dep}: only the server knows the wire"
            );
        }
        rust_files(&dir.join("src"), &mut files);
    }
    let mut broken = Vec::new();
    for path in &files {
        let in_server = path.starts_with(server_src());
        let room = if in_server { room_of(path) } else { String::new() };
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
            if in_server && room != "lib" && line.contains("crate::rpc") {
                broken.push(format!("{}:{}: imports rpc/: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The workspace crates a manifest's `[dependencies]` name (not dev- or build-).
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    let mut inside = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            continue;
        }
        if inside
            && let Some(name) =
                line.split(['=', '.', ' ']).next().filter(|n| !n.is_empty() && !n.starts_with('#'))
        {
            deps.insert(name.to_string());
        }
    }
    deps
}

/// The crates' graph as `docs/architecture.md` draws it: the lines `crate: dep, dep` of the
/// code block under "The crates' graph".
fn drawn_graph(map: &str) -> BTreeMap<String, BTreeSet<String>> {
    let section =
        map.split("## The crates' graph").nth(1).expect("docs/architecture.md draws the crates' graph");
    let block = section.split("```").nth(1).expect("a code block");
    block
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| {
            let deps =
                v.split(',').map(|d| d.trim().to_string()).filter(|d| !d.is_empty() && d != "-").collect();
            (k.trim().to_string(), deps)
        })
        .collect()
}

#[test]
fn the_crates_depend_on_each_other_as_the_map_draws_and_the_server_in_floors() {
    let root = crates_dir().join("..");
    let map = fs::read_to_string(root.join("docs/architecture.md")).expect("docs/architecture.md");
    let drawn = drawn_graph(&map);
    let mut actual: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in fs::read_dir(crates_dir()).expect("crates/") {
        let dir = entry.expect("an entry").path();
        let Ok(manifest) = fs::read_to_string(dir.join("Cargo.toml")) else { continue };
        let name = dir.file_name().expect("a name").to_string_lossy().to_string();
        let deps = dependencies(&manifest).into_iter().filter(|d| d.starts_with("skat-")).collect();
        actual.insert(name, deps);
    }
    assert!(actual.len() >= 19, "the crates are found ({})", actual.len());
    assert_eq!(drawn, actual, "docs/architecture.md's graph (left) is not the manifests' (right)");
    let names: BTreeSet<String> = actual.keys().cloned().collect();
    if let Some(cycle) = find_cycle(&names, &actual) {
        panic!("the crates depend on each other in a circle: {}", cycle.join(" -> "));
    }
    for (i, low) in FLOORS.iter().enumerate() {
        for high in &FLOORS[i + 1..] {
            assert!(!actual[*low].contains(*high), "{low} must not depend on {high} (it sits below it)");
        }
    }
}

/// The top-level modules ("rooms") of a crate's `src/`, and which import which:
/// `crate::X` in code (comments and test modules aside). The crate root (`lib.rs`,
/// `main.rs`) wires the rooms together and is not one.
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
        let code = without_tests(&code_only(&fs::read_to_string(path).expect("readable")));
        for target in &rooms {
            if *target != from && names_path(&code, &format!("crate::{target}")) {
                edges.entry(from.clone()).or_default().insert(target.clone());
            }
        }
    }
    (rooms, edges)
}

/// Whether `code` names `path` as a whole path segment (`crate::a` is not `crate::ab`).
fn names_path(code: &str, path: &str) -> bool {
    code.match_indices(path)
        .any(|(i, m)| !code[i + m.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'))
}

/// The files of one directory (its module root aside: `lib.rs`, `main.rs`, `mod.rs`, the
/// face its files share) and which name which: `super::x` (or `crate::x`, `crate::dir::x`
/// for the directory's module path) in code, tests aside.
fn sibling_imports(src: &Path, dir: &Path) -> (BTreeSet<String>, BTreeMap<String, BTreeSet<String>>) {
    let Ok(entries) = fs::read_dir(dir) else { return Default::default() };
    let files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| !["lib.rs", "main.rs", "mod.rs"].iter().any(|r| p.ends_with(r)))
        .collect();
    let stem = |p: &Path| p.file_stem().expect("a name").to_string_lossy().to_string();
    let names: BTreeSet<String> = files.iter().map(|p| stem(p)).collect();
    let module = dir
        .strip_prefix(src)
        .expect("under src")
        .components()
        .fold(String::from("crate"), |m, c| format!("{m}::{}", c.as_os_str().to_string_lossy()));
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in &files {
        let from = stem(path);
        let code = without_tests(&code_only(&fs::read_to_string(path).expect("readable")));
        let grouped: BTreeSet<String> = group_heads(&code, "super::{")
            .into_iter()
            .chain(group_heads(&code, &format!("{module}::{{")))
            .collect();
        for to in names.iter().filter(|n| **n != from) {
            if names_path(&code, &format!("super::{to}"))
                || names_path(&code, &format!("{module}::{to}"))
                || grouped.contains(to)
            {
                edges.entry(from.clone()).or_default().insert(to.clone());
            }
        }
    }
    (names, edges)
}

/// The first names of the paths in every `prefix...}` group (`use super::{a, b::C};` gives
/// `a` and `b`).
fn group_heads(code: &str, prefix: &str) -> Vec<String> {
    let mut heads = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        let mut depth = 1;
        let mut item_start = true;
        let mut word = String::new();
        for c in code[i + prefix.len()..].chars() {
            if depth == 1 && item_start && (c.is_alphanumeric() || c == '_') {
                word.push(c);
                continue;
            }
            if !word.is_empty() {
                heads.push(std::mem::take(&mut word));
                item_start = false;
            }
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 1 => item_start = true,
                _ => {}
            }
            if depth == 0 {
                break;
            }
        }
        if !word.is_empty() {
            heads.push(word);
        }
    }
    heads
}

#[test]
fn no_files_of_one_directory_import_each_other_in_a_circle() {
    let mut dirs = Vec::new();
    let mut broken = Vec::new();
    for entry in fs::read_dir(crates_dir()).expect("crates/") {
        let src = entry.expect("an entry").path().join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let here: BTreeSet<PathBuf> =
            files.iter().filter_map(|f| f.parent().map(Path::to_path_buf)).collect();
        for dir in here {
            let (names, edges) = sibling_imports(&src, &dir);
            if let Some(cycle) = find_cycle(&names, &edges) {
                broken.push(format!("{}: {}", dir.display(), cycle.join(" -> ")));
            }
            dirs.push(dir);
        }
    }
    assert!(dirs.len() > 25, "the directories are found ({})", dirs.len());
    assert!(
        broken.is_empty(),
        "files import each other in a circle (one type spread over files, or a type both need that belongs in a leaf file):\n{}",
        broken.join("\n")
    );
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
    let mut checked = 0;
    for entry in fs::read_dir(crates_dir()).expect("crates/") {
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
        let counted = &without_tests(&code);
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
fn the_map_names_every_crate_and_every_file_of_the_servers_crates() {
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
    for krate in FLOORS {
        let src = crates_dir().join(krate).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for path in &files {
            let name = path.file_name().expect("a file").to_string_lossy().to_string();
            if !["mod.rs", "tests.rs", "lib.rs"].contains(&name.as_str()) && !map.contains(&name) {
                missing.push(format!("{krate}: {}", path.strip_prefix(&src).expect("under src").display()));
            }
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
                let mut bases = vec![root.clone(), root.join("crates")];
                for krate in FLOORS {
                    bases.push(root.join("crates").join(krate));
                    bases.push(root.join("crates").join(krate).join("src"));
                }
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
    assert_eq!(
        without_tests("#[cfg(test)]\nmod tests;\nb\n#[cfg(test)]\nmod tests {\n  x\n}\nc\n"),
        "#[cfg(test)]\nmod tests;\nb\nc\n"
    );
    // Circles between the files of one directory are seen.
    let dir = std::env::temp_dir().join(format!("skat-arch-{}", std::process::id()));
    fs::create_dir_all(dir.join("room")).expect("a scratch dir");
    fs::write(dir.join("room/a.rs"), "use super::b::X;\n").expect("written");
    fs::write(dir.join("room/b.rs"), "// super::a is only a comment\nuse crate::room::a::Y;\n")
        .expect("written");
    let (names, edges) = sibling_imports(&dir, &dir.join("room"));
    assert!(find_cycle(&names, &edges).is_some(), "{edges:?}");
    fs::write(dir.join("room/b.rs"), "use super::{c, a};\n").expect("written");
    let (names, edges) = sibling_imports(&dir, &dir.join("room"));
    assert!(find_cycle(&names, &edges).is_some(), "a grouped import is seen: {edges:?}");
    assert_eq!(group_heads("use super::{x, y::{Z, W}, v};", "super::{"), vec!["x", "y", "v"]);
    fs::write(dir.join("room/b.rs"), "// super::a is only a comment\n").expect("written");
    let (names, edges) = sibling_imports(&dir, &dir.join("room"));
    assert_eq!(find_cycle(&names, &edges), None);
    fs::remove_dir_all(&dir).expect("removed");
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
