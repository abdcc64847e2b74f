//! The fuzz targets' properties, one module per parser of outside input. Each `check` takes the
//! raw bytes a fuzzer made and panics when a property fails, so libFuzzer (`libfuzzer/`, run by
//! `cargo xtask fuzz`) and the stable-toolchain corpus replay (`tests/corpus.rs`) test the same
//! thing.

pub mod config_toml;
pub mod env_file;
pub mod mode_file;
pub mod netlink;
pub mod nmstate_yaml;
pub mod nodes_json;
pub mod peers_file;
pub mod resolv_conf;

/// A target's property check over one input.
pub type Check = fn(&[u8]);

/// Every target by name: the name is its corpus directory (`corpus/<name>`) and its libFuzzer
/// binary.
pub const TARGETS: &[(&str, Check)] = &[
    ("config_toml", config_toml::check),
    ("env_file", env_file::check),
    ("mode_file", mode_file::check),
    ("netlink", netlink::check),
    ("nmstate_yaml", nmstate_yaml::check),
    ("nodes_json", nodes_json::check),
    ("peers_file", peers_file::check),
    ("resolv_conf", resolv_conf::check),
];

/// The input as text; the parsers under test all read files as UTF-8 and reject other bytes
/// before parsing, so only text reaches them.
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}
