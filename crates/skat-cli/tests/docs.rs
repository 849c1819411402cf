//! The operator's documents as written: every `skat` command in the shell blocks of
//! docs/hosted-bots.md and of docs/deploy.md's hosting section names a command `skat`
//! has and only flags its `--help` lists, and every `SKAT_*` variable they name is one the
//! binary reads (a flag's) or one the sandbox is given. The commands that need podman are
//! run by deploy/test-hosted.sh (examples/bots/try-hosted.sh, the runner's flags).

mod common;

use std::collections::BTreeSet;

use common::skat;

/// Variables the runner gives a sandbox (not flags of the binary).
const SANDBOX_ENV: [&str; 6] =
    ["SKAT_SERVER", "SKAT_TABLE", "SKAT_SEAT", "SKAT_SEAT_TOKEN", "SKAT_BOT_NAME", "SKAT_CA_FILE"];

fn doc(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../../docs/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The text of a document from the heading that starts with `from` to the next heading of
/// the same level.
fn section(text: &str, from: &str) -> String {
    let start = text.find(from).unwrap_or_else(|| panic!("no section `{from}`"));
    let level = from.chars().take_while(|c| *c == '#').count();
    let rest = &text[start + from.len()..];
    let end = rest
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .find(|&i| {
            let h = rest[i..].chars().take_while(|c| *c == '#').count();
            h > 0 && h <= level && rest[i + h..].starts_with(' ')
        })
        .unwrap_or(rest.len());
    format!("{from}{}", &rest[..end])
}

/// Every `skat ...` command in the ```sh blocks, continuation lines joined, comments cut.
fn commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut line = String::new();
    for raw in text.lines() {
        if raw.trim_start().starts_with("```") {
            in_block = raw.trim_start() == "```sh";
            continue;
        }
        if !in_block {
            continue;
        }
        let code = raw.split(" # ").next().unwrap_or("").trim_end();
        line.push_str(code.trim_end_matches('\\'));
        line.push(' ');
        if code.ends_with('\\') {
            continue;
        }
        let full = std::mem::take(&mut line);
        if let Some(at) = full.find("skat ").filter(|&at| !full[..at].ends_with(['/', '-', '.'])) {
            let before = &full[..at];
            // `skat` as a command: at the start, or after a shell's `$(`, `&&`, `|`, `;`.
            if before.trim().is_empty() || before.trim_end().ends_with(['(', '&', '|', ';']) {
                out.push(full[at..].trim().to_string());
            }
        }
    }
    // And the commands named in the prose: `skat ...` in backticks.
    for (i, _) in text.match_indices("`skat ") {
        if let Some(end) = text[i + 1..].find('`') {
            out.push(text[i + 1..i + 1 + end].replace('\n', " "));
        }
    }
    out
}

/// The help of `skat WORDS --help`, or `None` when it is no command.
fn help(words: &[&str]) -> Option<String> {
    let out = skat().args(words).arg("--help").output().unwrap();
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Checks one command: its subcommands exist, its flags are in its help.
fn check(command: &str, problems: &mut Vec<String>) {
    let words: Vec<&str> = command.split_whitespace().skip(1).collect();
    let mut path: Vec<&str> = Vec::new();
    for w in &words {
        if w.starts_with('-') || w.starts_with('[') || path.len() == 2 {
            break;
        }
        let mut longer = path.clone();
        longer.push(w);
        if help(&longer).is_some() && !w.contains(['.', '/', '"']) {
            path = longer;
        } else {
            break;
        }
    }
    let Some(text) = help(&path) else {
        problems.push(format!("`skat {}` is no command: {command}", path.join(" ")));
        return;
    };
    for w in &words {
        let flag = w.trim_start_matches('[').trim_end_matches(']');
        let flag = flag.split('=').next().unwrap_or(flag);
        if flag.starts_with("--")
            && flag.len() > 2
            && !text.contains(&format!("{flag} "))
            && !text.contains(&format!("{flag}\n"))
        {
            problems.push(format!("`skat {}` has no {flag}: {command}", path.join(" ")));
        }
    }
}

#[test]
fn the_hosting_documents_name_only_commands_flags_and_variables_the_binary_has() {
    let hosted = doc("hosted-bots.md");
    let deploy = section(&doc("deploy.md"), "## Hosted bots");
    let mut problems = Vec::new();
    let mut checked = 0;
    for text in [&hosted, &deploy] {
        for c in commands(text) {
            check(&c, &mut problems);
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} commands found: the parser lost them");
    // Every variable named is a flag's (in some command's help) or the sandbox's.
    let helps: String =
        [vec!["serve"], vec!["runner"], vec!["bot"], vec!["bot", "submit"], vec!["admin", "sandboxes"]]
            .iter()
            .filter_map(|w| help(w))
            .collect();
    let mut named = BTreeSet::new();
    for text in [&hosted, &deploy] {
        for (i, _) in text.match_indices("SKAT_") {
            let name: String =
                text[i..].chars().take_while(|c| c.is_ascii_uppercase() || *c == '_').collect();
            named.insert(name.trim_end_matches('_').to_string());
        }
    }
    for name in named {
        let read = helps.contains(&format!("env: {name}=")) || helps.contains(&format!("env: {name}]"));
        if !SANDBOX_ENV.contains(&name.as_str()) && !read {
            problems.push(format!("the variable {name} is read by no flag"));
        }
    }
    assert!(problems.is_empty(), "the documents do not run as written:\n{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_a_flag_that_is_not_there() {
    let mut problems = Vec::new();
    check("skat serve --admin-token-file admin.txt", &mut problems);
    check("skat bot activate --version-id X", &mut problems);
    check("skat nonsense --x", &mut problems);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("--admin-token-file"));
}
