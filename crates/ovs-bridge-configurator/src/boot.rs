//! The two boot-time commands. `apply-nmstate` (nmstate-configuration.service, before
//! network-online.target) applies the user's NMState file, if any ([`declarative`]); `apply`
//! (ovs-configuration.service) applies one written since, and otherwise, unless NMState owns
//! br-ex, runs the automatic conversion ([`apply::convert`]). The dispatch lives here so that
//! neither path imports the other.

use crate::apply::{self, ApplyError, Outcome, io};
use crate::declarative::{self, Moment};
use crate::ovsdb;
use crate::settings::Settings;

/// Removes `/etc/cno/mtu-migration` unless `mtu-migration.service` is enabled, as both upstream
/// scripts do first thing: the MTU migration's state must not outlive the migration.
fn clean_mtu_migration(s: &Settings) -> std::io::Result<()> {
    let dir = s.mtu_migration_dir();
    if !dir.exists() {
        return Ok(());
    }
    let enabled = std::process::Command::new("systemctl")
        .args(["is-enabled", "--quiet", "mtu-migration.service"])
        .status()
        .is_ok_and(|st| st.success());
    if !enabled {
        tracing::info!(
            "removing {}: mtu-migration.service is not enabled",
            dir.display()
        );
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}

/// One run of `apply-nmstate`: only the declarative path, as upstream's
/// nmstate-configuration.sh and nmstate.service.
pub async fn apply_nmstate(s: &Settings) -> Result<Outcome, ApplyError> {
    clean_mtu_migration(s).map_err(|e| io("remove", &s.mtu_migration_dir(), e))?;
    if let Some(done) = declarative::apply_pending(s, Moment::Boot).await? {
        return Ok(done);
    }
    if s.nmstate_dir().join("applied").exists() {
        tracing::info!("the NMState file is applied already");
        return Ok(Outcome::Declarative);
    }
    tracing::info!(
        "no NMState file ({} absent or empty): ovs-configuration.service builds br-ex",
        declarative::candidates_shown(s)
    );
    Ok(Outcome::NoNmstateFile)
}

/// One run of `apply`.
pub async fn apply(s: &Settings) -> Result<Outcome, ApplyError> {
    ovsdb::clear_ovn_remote()?;
    clean_mtu_migration(s).map_err(|e| io("remove", &s.mtu_migration_dir(), e))?;
    // nmstate-configuration.service applied it earlier in the boot; this covers a node whose
    // MCO still runs upstream's nmstate-configuration unit, and a file written since.
    if let Some(done) = declarative::apply_pending(s, Moment::Boot).await? {
        return Ok(done);
    }
    if s.nmstate_dir().join("applied").exists() {
        tracing::info!(
            "Skipping: NMState owns br-ex ({} exists)",
            s.nmstate_dir().join("applied").display()
        );
        return Ok(Outcome::Declarative);
    }
    apply::convert(s).await
}
