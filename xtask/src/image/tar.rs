//! A POSIX ustar writer: regular files and directories, owned by root, one fixed mtime, so the
//! same inputs give the same bytes.

const BLOCK: usize = 512;

/// An archive being written in memory.
pub struct Tar {
    bytes: Vec<u8>,
    mtime: u64,
}

impl Tar {
    /// Every entry gets `mtime` (seconds since the epoch).
    pub fn new(mtime: u64) -> Tar {
        Tar {
            bytes: Vec::new(),
            mtime,
        }
    }

    /// A directory entry; `path` has no leading `/` and ends with `/`.
    pub fn dir(&mut self, path: &str) {
        self.header(path, 0o755, 0, b'5');
    }

    /// A regular file.
    pub fn file(&mut self, path: &str, mode: u32, data: &[u8]) {
        self.header(path, mode, data.len() as u64, b'0');
        self.bytes.extend_from_slice(data);
        self.pad();
    }

    /// The archive, closed by its two zero blocks.
    pub fn finish(mut self) -> Vec<u8> {
        self.bytes.resize(self.bytes.len() + 2 * BLOCK, 0);
        self.bytes
    }

    fn pad(&mut self) {
        let rest = self.bytes.len() % BLOCK;
        if rest != 0 {
            self.bytes.resize(self.bytes.len() + BLOCK - rest, 0);
        }
    }

    fn header(&mut self, path: &str, mode: u32, size: u64, kind: u8) {
        let mut h = [0u8; BLOCK];
        let (prefix, name) = split_path(path);
        h[..name.len()].copy_from_slice(name.as_bytes());
        octal(&mut h[100..108], u64::from(mode));
        octal(&mut h[108..116], 0); // uid
        octal(&mut h[116..124], 0); // gid
        octal(&mut h[124..136], size);
        octal(&mut h[136..148], self.mtime);
        h[156] = kind;
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        h[265..269].copy_from_slice(b"root");
        h[297..301].copy_from_slice(b"root");
        h[345..345 + prefix.len()].copy_from_slice(prefix.as_bytes());
        // The checksum is computed with its own field as eight spaces.
        h[148..156].fill(b' ');
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        let field = format!("{sum:06o}\0 ");
        h[148..156].copy_from_slice(field.as_bytes());
        self.bytes.extend_from_slice(&h);
    }
}

/// ustar's name field holds 100 bytes; a longer path puts its directories in the prefix.
fn split_path(path: &str) -> (&str, &str) {
    if path.len() <= 100 {
        return ("", path);
    }
    let cut = path[..path.len().min(156)]
        .rfind('/')
        .filter(|&i| path.len() - i - 1 <= 100)
        .unwrap_or_else(|| panic!("path too long for ustar: {path}"));
    (&path[..cut], &path[cut + 1..])
}

/// A zero-padded octal number filling `field` but its last byte (NUL).
fn octal(field: &mut [u8], value: u64) {
    let digits = format!("{value:0width$o}", width = field.len() - 1);
    assert_eq!(digits.len(), field.len() - 1, "{value} does not fit");
    field[..digits.len()].copy_from_slice(digits.as_bytes());
    field[digits.len()] = 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gnu_tar_lists_and_extracts_what_it_writes() {
        let mut t = Tar::new(1_700_000_000);
        t.dir("usr/");
        t.dir("usr/bin/");
        t.file("usr/bin/hello", 0o755, b"#!/bin/sh\necho hi\n");
        let long = format!("{}/file", "d".repeat(120));
        t.file(&long, 0o644, &[7u8; 1000]);
        let bytes = t.finish();
        assert_eq!(bytes.len() % BLOCK, 0);
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("a.tar");
        std::fs::write(&archive, &bytes).unwrap();
        let out = std::process::Command::new("tar")
            .env("TZ", "UTC")
            .args(["-tvf"])
            .arg(&archive)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let listing = String::from_utf8(out.stdout).unwrap();
        assert!(
            listing.contains("-rwxr-xr-x root/root        18 2023-11-14"),
            "{listing}"
        );
        assert!(listing.contains(&long), "{listing}");
        let status = std::process::Command::new("tar")
            .arg("-xf")
            .arg(&archive)
            .arg("-C")
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        let hello = std::fs::read(dir.path().join("usr/bin/hello")).unwrap();
        assert_eq!(hello, b"#!/bin/sh\necho hi\n");
        assert_eq!(std::fs::read(dir.path().join(&long)).unwrap(), [7u8; 1000]);
    }
}
