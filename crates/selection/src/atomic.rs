//! Crash-safe file writes: a reader sees the old file or the new one, never a partial one.

use std::fs::{self, DirBuilder, File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

/// Creates `dir` and its missing parents with mode 0755.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o755).create(dir)
}

/// Writes `contents` to `path` with `mode`: a temporary file in the same directory, fsync,
/// rename over `path`, fsync of the directory. Missing parent directories are created (0755).
pub fn write_atomic(path: &Path, contents: &[u8], mode: u32) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    ensure_dir(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .tempfile_in(dir)?;
    tmp.write_all(contents)?;
    // Explicit mode: independent of the process umask.
    fs::set_permissions(tmp.path(), Permissions::from_mode(mode))?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn replaces_content_with_exact_bytes_and_mode_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/primary-ip");
        write_atomic(&path, b"192.0.2.10", 0o644).unwrap();
        write_atomic(&path, b"2001:db8::10", 0o600).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"2001:db8::10");
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
        assert_eq!(
            fs::metadata(dir.path().join("a")).unwrap().mode() & 0o777,
            0o755
        );
        let names: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1, "temporary file left behind: {names:?}");
    }
}
