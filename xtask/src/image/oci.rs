//! An OCI image layout (image-spec 1.1) in a tar archive, as `podman load` and
//! `skopeo copy oci-archive:...` read it: `oci-layout`, `index.json` naming one manifest, and
//! the blobs (the manifest, the config and one uncompressed layer) under `blobs/sha256/`.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::tar::Tar;

pub const MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const CONFIG: &str = "application/vnd.oci.image.config.v1+json";
pub const LAYER: &str = "application/vnd.oci.image.layer.v1.tar";
/// The annotation `podman load` names the image by.
pub const REF_NAME: &str = "org.opencontainers.image.ref.name";

/// A file of the image's root filesystem.
pub struct File {
    /// Absolute, as the container sees it.
    pub path: String,
    pub mode: u32,
    pub data: Vec<u8>,
}

/// What the image runs and how it is named.
pub struct Image<'a> {
    /// `localhost/name:tag`.
    pub reference: &'a str,
    pub files: &'a [File],
    pub entrypoint: &'a [&'a str],
    /// A numeric `uid:gid`: with no `/etc/passwd`, Kubernetes' `runAsNonRoot` can only check a
    /// number.
    pub user: &'a str,
    pub labels: Value,
    /// Every tar entry's mtime (seconds since the epoch), for reproducible bytes.
    pub mtime: u64,
}

/// `sha256:<hex>` of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    let hex: String = d.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

fn descriptor(media_type: &str, bytes: &[u8]) -> Value {
    json!({"mediaType": media_type, "digest": digest(bytes), "size": bytes.len()})
}

/// The layer: the files and every directory above them, in path order.
pub fn layer(files: &[File], mtime: u64) -> Vec<u8> {
    let mut dirs = BTreeSet::new();
    for f in files {
        let rel = f.path.trim_start_matches('/');
        for (i, _) in rel.match_indices('/') {
            dirs.insert(format!("{}/", &rel[..i]));
        }
    }
    let mut tar = Tar::new(mtime);
    dirs.iter().for_each(|d| tar.dir(d));
    let mut sorted: Vec<&File> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for f in sorted {
        tar.file(f.path.trim_start_matches('/'), f.mode, &f.data);
    }
    tar.finish()
}

/// The archive's bytes.
pub fn archive(image: &Image) -> Vec<u8> {
    let layer = layer(image.files, image.mtime);
    let config = serde_json::to_vec(&json!({
        "architecture": "amd64",
        "os": "linux",
        "config": {
            "User": image.user,
            "Entrypoint": image.entrypoint,
            "Labels": image.labels,
        },
        "rootfs": {"type": "layers", "diff_ids": [digest(&layer)]},
        "history": [{"created_by": "cargo xtask image"}],
    }))
    .expect("JSON");
    let manifest = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST,
        "config": descriptor(CONFIG, &config),
        "layers": [descriptor(LAYER, &layer)],
    }))
    .expect("JSON");
    let mut entry = descriptor(MANIFEST, &manifest);
    entry["annotations"] = json!({ REF_NAME: image.reference });
    let index = json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [entry],
    });
    let mut tar = Tar::new(image.mtime);
    tar.file("oci-layout", 0o644, br#"{"imageLayoutVersion":"1.0.0"}"#);
    tar.file(
        "index.json",
        0o644,
        &serde_json::to_vec(&index).expect("JSON"),
    );
    tar.dir("blobs/");
    tar.dir("blobs/sha256/");
    let mut blobs = [manifest, config, layer];
    blobs.sort_by_key(|b| digest(b));
    for blob in &blobs {
        let name = digest(blob).replace("sha256:", "blobs/sha256/");
        tar.file(&name, 0o644, blob);
    }
    tar.finish()
}
