//! Crash-safe file writes: a reader sees the old file or the new one, never a partial one.

use std::fs::{self, DirBuilder, File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use rustix::buffer::spare_capacity;
use rustix::fs::{self as xattr, AtFlags, CWD, StatxAttributes, StatxFlags, statx};
use rustix::io::Errno;

/// Creates `dir` and its missing parents with mode 0755.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o755).create(dir)
}

/// The directory `path` is in (`.` for a bare name).
fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The prefix of the temporary files written next to `path`: `.<name>.`, followed by
/// [`TEMP_RANDOM`] random letters and digits.
pub fn temp_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(".{name}.")
}

/// How many random characters follow [`temp_prefix`] (tempfile's default).
const TEMP_RANDOM: usize = 6;

/// A temporary file for `path`, in its directory.
pub fn temp_file_for(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(&temp_prefix(path))
        .rand_bytes(TEMP_RANDOM)
        .tempfile_in(parent_dir(path))
}

/// Removes the temporary files a writer of `path` left when it was killed between creating
/// one and renaming it (SIGKILL, OOM); returns what it removed. Each file has one writer, which
/// calls this when it starts, so no write in progress is touched.
pub fn remove_stale_temps(path: &Path) -> io::Result<Vec<std::path::PathBuf>> {
    let prefix = temp_prefix(path);
    let entries = match fs::read_dir(parent_dir(path)) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        r => r?,
    };
    let mut removed = Vec::new();
    for e in entries {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = name.strip_prefix(&prefix).is_some_and(|rest| {
            rest.len() == TEMP_RANDOM && rest.chars().all(|c| c.is_ascii_alphanumeric())
        });
        if ours && e.file_type()?.is_file() {
            fs::remove_file(e.path())?;
            removed.push(e.path());
        }
    }
    Ok(removed)
}

/// [`remove_stale_temps`] for each file a daemon writes, at its start; what is removed is
/// logged, a failure only warns (the daemon's own writes still work).
pub fn clean_up_interrupted_writes(paths: &[&Path]) {
    for path in paths {
        match remove_stale_temps(path) {
            Ok(removed) => {
                for r in removed {
                    tracing::info!("removed {} (left by an interrupted write)", r.display());
                }
            }
            Err(e) => tracing::warn!("cannot clean up next to {}: {e}", path.display()),
        }
    }
}

/// Writes `contents` to `path` with `mode`: a temporary file in the same directory, fsync,
/// rename over `path`, fsync of the directory. Missing parent directories are created (0755).
pub fn write_atomic(path: &Path, contents: &[u8], mode: u32) -> io::Result<()> {
    let dir = parent_dir(path);
    ensure_dir(dir)?;
    let mut tmp = temp_file_for(path)?;
    tmp.write_all(contents)?;
    // Explicit mode: independent of the process umask.
    fs::set_permissions(tmp.path(), Permissions::from_mode(mode))?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    File::open(dir)?.sync_all()
}

/// The SELinux label attribute; kept across a replacement like `mv -Z` does.
const SELINUX_XATTR: &str = "security.selinux";

/// Replaces `path` with `contents` (mode `mode`) the safe way for its kind:
/// - a mount point (a bind-mounted file such as `/etc/resolv.conf` in a container or network
///   namespace) cannot be renamed over (`EBUSY`): it is truncated and written in place, then
///   fsynced;
/// - anything else is replaced atomically ([`write_atomic`]), keeping the SELinux label the
///   old file had, when the file system has labels.
pub fn replace_file(path: &Path, contents: &[u8], mode: u32) -> io::Result<()> {
    if is_mount_point(path)? {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)?;
        f.write_all(contents)?;
        f.set_permissions(Permissions::from_mode(mode))?;
        return f.sync_all();
    }
    let label = selinux_label(path);
    write_atomic_labelled(path, contents, mode, label.as_deref())
}

fn write_atomic_labelled(
    path: &Path,
    contents: &[u8],
    mode: u32,
    label: Option<&[u8]>,
) -> io::Result<()> {
    let Some(label) = label else {
        return write_atomic(path, contents, mode);
    };
    let dir = parent_dir(path);
    ensure_dir(dir)?;
    let mut tmp = temp_file_for(path)?;
    tmp.write_all(contents)?;
    fs::set_permissions(tmp.path(), Permissions::from_mode(mode))?;
    xattr::fsetxattr(
        tmp.as_file(),
        SELINUX_XATTR,
        label,
        xattr::XattrFlags::empty(),
    )?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    File::open(dir)?.sync_all()
}

/// The SELinux label of `path`, of any length, if it exists and the file system stores one.
fn selinux_label(path: &Path) -> Option<Vec<u8>> {
    loop {
        let size = xattr::getxattr_query(path, SELINUX_XATTR).ok()?;
        let mut label = Vec::with_capacity(size);
        match xattr::getxattr(path, SELINUX_XATTR, spare_capacity(&mut label)) {
            Ok(_) => return (!label.is_empty()).then_some(label),
            // Relabelled to a longer label between the two calls: ask again.
            Err(Errno::RANGE) => continue,
            Err(_) => return None,
        }
    }
}

/// Whether `path` is itself a mount point. A bind-mounted file has the same device as its
/// directory, so `stat` cannot tell: the kernel says so through `statx`'s
/// `STATX_ATTR_MOUNT_ROOT` (Linux 5.8); before that, `/proc/self/mountinfo` does.
pub fn is_mount_point(path: &Path) -> io::Result<bool> {
    let target = match fs::canonicalize(path) {
        Ok(p) => p,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let flags = AtFlags::NO_AUTOMOUNT | AtFlags::SYMLINK_NOFOLLOW;
    match statx(CWD, &target, flags, StatxFlags::empty()) {
        Ok(st) if st.stx_attributes_mask.contains(StatxAttributes::MOUNT_ROOT) => {
            return Ok(st.stx_attributes.contains(StatxAttributes::MOUNT_ROOT));
        }
        Ok(_) | Err(Errno::NOSYS) => {}
        Err(e) => return Err(e.into()),
    }
    is_mount_point_in_mountinfo(&target)
}

/// [`is_mount_point`] for a canonical path, from `/proc/self/mountinfo`.
fn is_mount_point_in_mountinfo(target: &Path) -> io::Result<bool> {
    let info = fs::read_to_string("/proc/self/mountinfo")?;
    Ok(info
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .any(|mp| Path::new(&unescape_mountinfo(mp)) == target))
}

/// mountinfo escapes space, tab, newline and backslash as `\ooo`.
fn unescape_mountinfo(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Creates `path` (mode 0644, parents 0755) or updates its modification time, like `touch`.
pub fn touch(path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        ensure_dir(dir)?;
    }
    let f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o644)
        .open(path)?;
    f.set_modified(std::time::SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn stale_temps_of_one_file_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("resolv.conf");
        let killed = temp_file_for(&target).unwrap().keep().unwrap().1;
        let keep = [
            "resolv.conf",
            ".resolv.conf.bak",
            ".resolv.conf.toolong1",
            ".other.conf.abc123",
        ];
        for k in keep {
            fs::write(dir.path().join(k), "x").unwrap();
        }
        assert_eq!(remove_stale_temps(&target).unwrap(), vec![killed.clone()]);
        assert!(!killed.exists());
        for k in keep {
            assert!(dir.path().join(k).exists(), "{k}");
        }
        assert!(
            remove_stale_temps(&dir.path().join("missing/x"))
                .unwrap()
                .is_empty()
        );
    }

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

    #[test]
    fn touch_creates_then_refreshes_and_mountinfo_paths_unescape() {
        let dir = tempfile::tempdir().unwrap();
        let flag = dir.path().join("run/done");
        touch(&flag).unwrap();
        let first = fs::metadata(&flag).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        touch(&flag).unwrap();
        assert!(fs::metadata(&flag).unwrap().modified().unwrap() > first);
        assert_eq!(unescape_mountinfo("/a\\040b\\011c"), "/a b\tc");
        assert!(is_mount_point(Path::new("/proc")).unwrap());
        assert!(!is_mount_point(&flag).unwrap());
        assert!(!is_mount_point(&dir.path().join("missing")).unwrap());
    }

    #[test]
    fn the_kernel_and_mountinfo_agree_on_mount_points() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, "").unwrap();
        let paths = [
            Path::new("/"),
            Path::new("/proc"),
            Path::new("/sys"),
            Path::new("/dev"),
            Path::new("/etc/hostname"),
            Path::new("/etc/resolv.conf"),
            dir.path(),
            &file,
        ];
        for p in paths.into_iter().filter(|p| p.exists()) {
            let canonical = fs::canonicalize(p).unwrap();
            assert_eq!(
                is_mount_point(p).unwrap(),
                is_mount_point_in_mountinfo(&canonical).unwrap(),
                "{}",
                p.display()
            );
        }
    }

    /// A label longer than any fixed buffer (SELinux allows up to a page) is kept whole.
    #[test]
    fn a_long_selinux_label_is_kept_across_a_replacement() {
        if !integration::require_root("a_long_selinux_label_is_kept_across_a_replacement") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("resolv.conf");
        fs::write(&path, "old").unwrap();
        let label = format!("system_u:object_r:{}_t:s0\0", "net_conf".repeat(40));
        assert!(label.len() > 256);
        xattr::setxattr(
            &path,
            SELINUX_XATTR,
            label.as_bytes(),
            xattr::XattrFlags::empty(),
        )
        .unwrap();
        replace_file(&path, b"new", 0o644).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(selinux_label(&path).unwrap(), label.as_bytes());
    }
}
