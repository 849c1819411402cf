//! The spectator page, embedded: built from `web/` by this crate's build script, so that
//! `skat serve` needs no separate deployment for it. The page talks gRPC-Web to the same
//! `skat.v1` service as the bots; the server only hands out these files.

include!(concat!(env!("OUT_DIR"), "/files.rs"));

/// The file at `path` (`/` is `index.html`): its content type and bytes.
pub fn file(path: &str) -> Option<(&'static str, &'static [u8])> {
    let path = path.trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    if path.ends_with(".gz") {
        return None;
    }
    FILES.iter().find(|(p, _, _)| *p == path).map(|(_, kind, bytes)| (*kind, *bytes))
}

/// The gzip copy of the file at `path`, when the build made one.
pub fn gzipped(path: &str) -> Option<&'static [u8]> {
    let path = path.trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    let gz = format!("{path}.gz");
    FILES.iter().find(|(p, _, _)| *p == gz).map(|(_, _, bytes)| *bytes)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_page_and_its_script_are_embedded() {
        let (kind, html) = super::file("/").expect("index.html");
        assert!(kind.starts_with("text/html"));
        let html = String::from_utf8_lossy(html);
        assert!(html.contains("app.js"), "the page loads its script");
        assert!(super::file("/app.js").is_some());
        assert!(super::file("/nope.js").is_none());
        let gz = super::gzipped("/app.js").expect("a gzip copy");
        assert!(gz.len() < super::file("/app.js").map_or(0, |f| f.1.len()) / 2, "it is smaller");
        assert!(super::file("/app.js.gz").is_none(), "served only as an encoding");
    }
}
