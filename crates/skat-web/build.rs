//! Builds the page in `web/` (npm ci when its lockfile changed, then `npm run build`:
//! buf generates the Connect-Web stubs from proto/, tsc type-checks, esbuild bundles)
//! into OUT_DIR, and lists its files for `include_bytes!`. Node.js and npm must be on the
//! PATH; the npm packages come from the registry, pinned by web/package-lock.json.
//! `SKAT_WEB_DIST=DIR` uses a page built elsewhere instead (DIR holds index.html).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let web = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web").canonicalize()?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    for watched in ["src", "static", "build.mjs", "package.json", "package-lock.json", "tsconfig.json"] {
        println!("cargo:rerun-if-changed={}", web.join(watched).display());
    }
    println!("cargo:rerun-if-changed={}", web.join("../proto/skat/v1/skat.proto").display());
    println!("cargo:rerun-if-env-changed=SKAT_WEB_DIST");
    let dist = match std::env::var_os("SKAT_WEB_DIST") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let dist = out.join("dist");
            build(&web, &dist)?;
            dist
        }
    };
    let mut files = Vec::new();
    list(&dist, &dist, &mut files)?;
    files.sort();
    if !files.iter().any(|(name, _)| name == "index.html") {
        return Err(format!("{} has no index.html", dist.display()).into());
    }
    let mut code = String::from(
        "/// Every file of the page: (path, content type, bytes).\npub static FILES: &[(&str, &str, &[u8])] = &[\n",
    );
    for (name, path) in &files {
        let kind = match Path::new(name).extension().and_then(|e| e.to_str()) {
            Some("html") => "text/html; charset=utf-8",
            Some("js") => "text/javascript; charset=utf-8",
            Some("css") => "text/css; charset=utf-8",
            Some("svg") => "image/svg+xml",
            Some("json") | Some("webmanifest") => "application/json",
            Some("png") => "image/png",
            _ => "application/octet-stream",
        };
        code.push_str(&format!(
            "    ({name:?}, {kind:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    code.push_str("];\n");
    fs::write(out.join("files.rs"), code)?;
    Ok(())
}

fn list(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            list(root, &path, files)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            files.push((rel.to_string_lossy().replace('\\', "/"), path.clone()));
        }
    }
    Ok(())
}

fn npm(web: &Path, args: &[&str], envs: &[(&str, &Path)]) -> Result<(), Box<dyn std::error::Error>> {
    let mut cmd = Command::new("npm");
    cmd.args(args).current_dir(web);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let status = cmd.status().map_err(|e| {
        format!("the web page is built with npm (Node.js), which could not be started: {e}; install Node.js, or set SKAT_WEB_DIST to a built page")
    })?;
    if !status.success() {
        return Err(format!("`npm {}` in {} failed ({status})", args.join(" "), web.display()).into());
    }
    Ok(())
}

fn build(web: &Path, dist: &Path) -> Result<(), Box<dyn std::error::Error>> {
    // One build at a time in web/ (cargo may run this script for two profiles at once).
    let lock_path = web.join(".build.lock");
    let started = Instant::now();
    let lock = loop {
        match fs::OpenOptions::new().write(true).create_new(true).open(&lock_path) {
            Ok(f) => break f,
            Err(_) if started.elapsed() < Duration::from_secs(600) => {
                // A lock left by a killed build is older than any real one.
                if let Ok(age) = fs::metadata(&lock_path)
                    .and_then(|m| m.modified())
                    .map(|m| m.elapsed().unwrap_or_default())
                    && age > Duration::from_secs(600)
                {
                    let _ = fs::remove_file(&lock_path);
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => return Err(format!("{} stays locked: {e}", lock_path.display()).into()),
        }
    };
    let result = (|| {
        let installed = web.join("node_modules/.package-lock.json");
        let stale = match (fs::metadata(&installed), fs::metadata(web.join("package-lock.json"))) {
            (Ok(i), Ok(l)) => i.modified()? < l.modified()?,
            _ => true,
        };
        if stale {
            npm(web, &["ci", "--no-audit", "--no-fund", "--loglevel=error"], &[])?;
        }
        npm(web, &["run", "--silent", "build"], &[("SKAT_WEB_OUT", dist)])
    })();
    drop(lock);
    let _ = fs::remove_file(&lock_path);
    result
}
