//! The files the conversion writes besides NetworkManager's profiles: the marker that it ran,
//! the marker that this boot's first run removed the previous boot's bridge (under /run, so gone
//! at the next boot), and the hint that names the interface br-ex is on (read by OVN-Kubernetes
//! and by the next run). A failure to write one names the file.

use std::path::{Path, PathBuf};

use selection::atomic::{touch, write_atomic};

use crate::automatic::error::FileError;
use crate::automatic::gather::read_text;
use crate::settings::Settings;

/// Where the markers and the hint are, from the settings.
pub(crate) struct Markers {
    /// Touched on every run: older OVN-K pods (and the two-node-with-fencing drop-in) look for
    /// it.
    executed: PathBuf,
    /// Touched once this boot's first run removed the previous boot's bridge.
    boot: PathBuf,
    /// The interface br-ex is on, one line.
    hint: PathBuf,
    /// OVN-Kubernetes' extra bridge file: a hint that names its interface is void.
    extra_bridge: PathBuf,
}

impl Markers {
    /// The files the settings name (tests point them at a temporary directory).
    pub(crate) fn from_settings(s: &Settings) -> Markers {
        Markers {
            executed: s.executed_marker(),
            boot: s.boot_marker(),
            hint: s.hint(),
            extra_bridge: s.extra_bridge(),
        }
    }

    /// Says that the conversion ran (every run, before anything else).
    pub(crate) fn mark_executed(&self) -> Result<(), FileError> {
        touch(&self.executed).map_err(|e| FileError::new("touch", &self.executed, e))
    }

    /// Whether an earlier run of this boot removed the previous boot's bridge already.
    pub(crate) fn boot_started(&self) -> bool {
        self.boot.exists()
    }

    /// Says that this boot's first run removed the previous boot's bridge.
    pub(crate) fn mark_boot_started(&self) -> Result<(), FileError> {
        touch(&self.boot).map_err(|e| FileError::new("touch", &self.boot, e))
    }

    /// The hint file (for messages).
    pub(crate) fn hint(&self) -> &Path {
        &self.hint
    }

    /// Whether some interface is remembered.
    pub(crate) fn has_hint(&self) -> bool {
        self.hint.exists()
    }

    /// Remembers `interface` as the one br-ex is on.
    pub(crate) fn remember_hint(&self, interface: &str) -> Result<(), FileError> {
        write_atomic(&self.hint, format!("{interface}\n").as_bytes(), 0o644)
            .map_err(|e| FileError::new("write", &self.hint, e))
    }

    /// The remembered interface became the extra bridge's: forgets it and the boot marker, so
    /// everything is rebuilt.
    pub(crate) fn forget_hint_of_extra_bridge(&self) {
        if let (Some(hint), Some(extra)) = (read_text(&self.hint), read_text(&self.extra_bridge))
            && hint.trim() == extra.lines().next().unwrap_or_default().trim()
        {
            tracing::info!(
                "the hint names the extra-bridge interface {hint}: full reconfiguration"
            );
            let _ = std::fs::remove_file(&self.hint);
            let _ = std::fs::remove_file(&self.boot);
        }
    }
}
