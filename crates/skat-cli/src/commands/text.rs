//! What the commands' output shares: lines that end quietly when the reader has gone,
//! columns aligned by display width (an emoji or a CJK character is two columns wide, a
//! combining mark none: `unicode-width` knows), and times as dates.

use std::time::{Duration, UNIX_EPOCH};

use unicode_width::UnicodeWidthStr as _;

/// `text` cut to `width` columns and padded with spaces to exactly `width` (left
/// aligned). A cut text ends in `…`.
pub fn cell(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    if text.width() > width {
        for c in text.chars() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w + 1 > width {
                break;
            }
            out.push(c);
            used += w;
        }
        out.push('…');
        used += 1;
    } else {
        out.push_str(text);
        used = text.width();
    }
    out.push_str(&" ".repeat(width.saturating_sub(used)));
    out
}

/// Writes a line to standard output; a reader that has gone ends the process quietly
/// with success (see `outln!`). Another write error is reported on standard error.
pub fn print_line(args: std::fmt::Arguments<'_>) {
    write_out(args, true);
}

/// Writes text to standard output (see [`print_line`]).
pub fn print_text(args: std::fmt::Arguments<'_>) {
    write_out(args, false);
}

fn write_out(args: std::fmt::Arguments<'_>, newline: bool) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| if newline { out.write_all(b"\n") } else { Ok(()) });
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => eprintln!("skat: cannot write to standard output: {e}"),
    }
}

/// Calls `each` with every non-empty line of `files` (`-`: standard input) and where it
/// stands (`file:line`); a file that cannot be read ends it with the reason.
pub fn each_line(
    files: &[std::path::PathBuf],
    mut each: impl FnMut(&str, &str) -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(), Box<dyn std::error::Error>> {
    use std::io::BufRead as _;
    for path in files {
        let reader: Box<dyn std::io::BufRead> = if path.as_os_str() == "-" {
            Box::new(std::io::BufReader::new(std::io::stdin()))
        } else {
            let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Box::new(std::io::BufReader::new(file))
        };
        for (n, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
            if !line.trim().is_empty() {
                each(&line, &format!("{}:{}", path.display(), n + 1))?;
            }
        }
    }
    Ok(())
}

/// `text` with every digest in it (a run of 40 or more hex digits: a deals commitment,
/// a secret) shortened to its first 12 digits and `…`, for a line a person reads; the
/// commands that shorten say which flag prints them whole.
pub fn shorten_digests(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.len() >= 40 {
            out.push_str(&run[..12]);
            out.push('…');
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in text.chars() {
        if c.is_ascii_hexdigit() {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Unix milliseconds as a UTC date and time (`2026-12-02 14:03:09Z`); `-` for 0.
pub fn date(ms: u64) -> String {
    if ms == 0 {
        return "-".to_string();
    }
    let t = UNIX_EPOCH + Duration::from_millis(ms);
    humantime::format_rfc3339_seconds(t).to_string().replacen('T', " ", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_shortened_and_nothing_else() {
        let digest = "3f0c".repeat(16);
        assert_eq!(
            shorten_digests(&format!("`cup`: round robin; deals committed: {digest}")),
            "`cup`: round robin; deals committed: 3f0c3f0c3f0c…"
        );
        assert_eq!(shorten_digests("quota 12 -> 20, deadbeef"), "quota 12 -> 20, deadbeef");
    }

    #[test]
    fn cells_are_aligned_by_display_width() {
        assert_eq!(cell("heur", 6), "heur  ");
        // Two columns per emoji and CJK character.
        assert_eq!(cell("bot 🤖", 8).width(), 8);
        assert_eq!(cell("山田", 6), "山田  ");
        assert_eq!(cell("a-very-long-name", 6), "a-ver…");
        assert_eq!(cell("🤖🤖🤖🤖", 5).width(), 5);
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(date(0), "-");
        assert_eq!(date(1_764_684_189_000), "2025-12-02 14:03:09Z");
    }
}
