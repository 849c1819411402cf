//! An image archive on its way in: written to a temporary file beside the others while
//! its SHA-256 is computed and its size capped, then checked to be an image archive
//! (an OCI layout with `oci-layout` and `index.json`, as `podman save --format
//! oci-archive` writes, or `manifest.json`, as `docker save` and `podman save` write),
//! and only then renamed to `sha256-<hex>.tar`. Anything short of that removes the file:
//! a bad upload stores nothing.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};
use tokio::io::AsyncWriteExt as _;

use super::HostingError;

/// An archive being received.
#[derive(Debug)]
pub struct Upload {
    file: tokio::fs::File,
    path: PathBuf,
    dir: PathBuf,
    hasher: Sha256,
    size: u64,
    max: u64,
    done: bool,
}

/// A stored archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// `sha256:<hex>`.
    pub digest: String,
    /// Its size.
    pub size: u64,
}

impl Upload {
    /// Starts an upload into `dir` (created if missing), at most `max` bytes.
    pub async fn begin(dir: &Path, max: u64) -> Result<Upload, HostingError> {
        tokio::fs::create_dir_all(dir).await?;
        let mut name = [0u8; 12];
        getrandom::fill(&mut name).map_err(|e| std::io::Error::other(e.to_string()))?;
        let hex: String = name.iter().map(|b| format!("{b:02x}")).collect();
        let path = dir.join(format!(".upload-{hex}"));
        let file = tokio::fs::File::create(&path).await?;
        Ok(Upload { file, path, dir: dir.to_path_buf(), hasher: Sha256::new(), size: 0, max, done: false })
    }

    /// The next bytes; TooLarge past the cap (the file is removed when dropped).
    pub async fn write(&mut self, chunk: &[u8]) -> Result<(), HostingError> {
        self.size += chunk.len() as u64;
        if self.size > self.max {
            return Err(HostingError::TooLarge(self.max));
        }
        self.hasher.update(chunk);
        self.file.write_all(chunk).await?;
        Ok(())
    }

    /// Checks the archive and keeps it under its digest.
    pub async fn finish(mut self) -> Result<Stored, HostingError> {
        self.file.flush().await?;
        self.file.sync_all().await?;
        let hex: String = self.hasher.clone().finalize().iter().map(|b| format!("{b:02x}")).collect();
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || check_archive(&path))
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))??;
        let target = self.dir.join(format!("sha256-{hex}.tar"));
        tokio::fs::rename(&self.path, &target).await?;
        self.done = true;
        Ok(Stored { digest: format!("sha256:{hex}"), size: self.size })
    }
}

impl Drop for Upload {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether the file is a tar archive of a container image (read, never unpacked).
pub fn check_archive(path: &Path) -> Result<(), HostingError> {
    let not = |why: &str| {
        HostingError::NotAnImage(format!(
            "this is not an image archive: {why} (make one with `podman save --format oci-archive -o bot.tar IMAGE` or `docker save -o bot.tar IMAGE`)"
        ))
    };
    let file = std::fs::File::open(path)?;
    let mut archive = tar::Archive::new(file);
    let entries = archive.entries().map_err(|_| not("it is not a tar archive"))?;
    let (mut oci_layout, mut index, mut manifest, mut any) = (false, false, false, false);
    for entry in entries {
        let mut entry = entry.map_err(|_| not("it is not a tar archive, or it is cut short"))?;
        any = true;
        let name =
            entry.path().map_err(|_| not("an entry has no readable name"))?.to_string_lossy().into_owned();
        match name.trim_start_matches("./") {
            "oci-layout" => {
                let mut text = String::new();
                entry
                    .by_ref()
                    .take(4096)
                    .read_to_string(&mut text)
                    .map_err(|_| not("`oci-layout` is not text"))?;
                oci_layout = text.contains("imageLayoutVersion");
            }
            "index.json" => index = true,
            "manifest.json" => manifest = true,
            _ => {}
        }
    }
    if !any {
        return Err(not("it is empty or not a tar archive"));
    }
    if (oci_layout && index) || manifest {
        Ok(())
    } else {
        Err(not("it holds neither an OCI layout (`oci-layout`, `index.json`) nor a `manifest.json`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tar_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (name, data) in files {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            b.append_data(&mut h, name, *data).ok();
        }
        b.into_inner().unwrap_or_default()
    }

    async fn upload(bytes: &[u8], max: u64) -> (tempfile::TempDir, Result<Stored, HostingError>) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut u = Upload::begin(dir.path(), max).await.expect("an upload");
        let mut result = Ok(());
        for chunk in bytes.chunks(1000) {
            result = u.write(chunk).await;
            if result.is_err() {
                break;
            }
        }
        let stored = match result {
            Ok(()) => u.finish().await,
            Err(e) => Err(e),
        };
        (dir, stored)
    }

    fn files_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    #[tokio::test]
    async fn an_oci_archive_is_kept_under_its_digest() {
        let bytes = tar_of(&[("oci-layout", br#"{"imageLayoutVersion":"1.0.0"}"#), ("index.json", b"{}")]);
        let (dir, stored) = upload(&bytes, 1 << 20).await;
        let stored = stored.expect("kept");
        let hex: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(stored.digest, format!("sha256:{hex}"));
        assert_eq!(files_in(dir.path()), vec![format!("sha256-{hex}.tar")]);
    }

    #[tokio::test]
    async fn a_docker_archive_is_an_image_too() {
        let (_dir, stored) = upload(&tar_of(&[("manifest.json", b"[]")]), 1 << 20).await;
        assert!(stored.is_ok());
    }

    #[tokio::test]
    async fn what_is_not_an_image_stores_nothing() {
        for bytes in
            [b"hello, I am not a tar file at all".repeat(20), tar_of(&[("bot.py", b"print(1)")]), Vec::new()]
        {
            let (dir, stored) = upload(&bytes, 1 << 20).await;
            assert!(matches!(stored, Err(HostingError::NotAnImage(_))), "{stored:?}");
            assert!(files_in(dir.path()).is_empty(), "{:?}", files_in(dir.path()));
        }
    }

    #[tokio::test]
    async fn too_large_stores_nothing() {
        let bytes = tar_of(&[("manifest.json", &[b'x'; 5000])]);
        let (dir, stored) = upload(&bytes, 4096).await;
        assert!(matches!(stored, Err(HostingError::TooLarge(4096))));
        assert!(files_in(dir.path()).is_empty());
    }
}
