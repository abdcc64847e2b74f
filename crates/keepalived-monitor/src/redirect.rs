//! HAProxy's API redirect rules and the flag keepalived's `chk_ocp` scripts test
//! (`iptables-rule-exists`), kept in step as dynkeepalived does first in every round (reference
//! §4.3 step 1, §5.2): HAProxy's monitor keeps, per API VIP family, table `ocp_nat` with chains
//! `ocp_prerouting` and `ocp_output`, each holding one rule commented `OCP_API_LB_REDIRECT`
//! (VIP:api-port to HAProxy's port). Both rules present: the flag exists, and chk_ocp_lb's +20
//! can apply; either gone: the flag is removed.
//!
//! The rules are read with `nft -j` (structured JSON, no text scraping), again whenever
//! nftables reports a change on its netlink multicast group; upstream polled every 10 s, which is
//! kept only as the fallback when the group cannot be joined. Deliberate difference: a missing
//! table means the rules are absent (the flag goes), where upstream logged the error and left a
//! stale flag behind.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rtnetlink::sys::{AsyncSocket, AsyncSocketExt, SocketAddr, TokioSocket, protocols};

const TABLE: &str = "ocp_nat";
const CHAINS: [&str; 2] = ["ocp_prerouting", "ocp_output"];
const COMMENT: &str = "OCP_API_LB_REDIRECT";
/// nfnetlink's multicast group for nf_tables changes (`NFNLGRP_NFTABLES`).
const NFNLGRP_NFTABLES: u32 = 7;
/// Upstream's interval, used only without change events.
const POLL: Duration = Duration::from_secs(10);
/// A burst of nftables messages (one transaction) is read as one change.
const SETTLE: Duration = Duration::from_millis(100);

/// Why the redirect rules could not be read (the flag is left as it is).
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("nft -j printed no JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("nft -j printed no \"nftables\" list")]
    NoList,
    #[error("cannot run nft: {0}")]
    CannotRun(std::io::Error),
    #[error("nft list table {family} {TABLE}: {message}")]
    Nft {
        family: &'static str,
        message: String,
    },
}

/// Whether `nft -j list table` output holds both redirect rules (pure).
pub fn both_rules(json: &str) -> Result<bool, RulesError> {
    let doc: serde_json::Value = serde_json::from_str(json).map_err(RulesError::NotJson)?;
    let items = doc["nftables"].as_array().ok_or(RulesError::NoList)?;
    Ok(CHAINS.iter().all(|chain| {
        items.iter().any(|i| {
            let r = &i["rule"];
            r["table"] == TABLE && r["chain"] == *chain && r["comment"] == COMMENT
        })
    }))
}

/// Whether both rules exist for `vip`'s family.
fn rules_present(vip: IpAddr) -> Result<bool, RulesError> {
    let family = if vip.is_ipv6() { "ip6" } else { "ip" };
    let out = Command::new("nft")
        .args(["-j", "list", "table", family, TABLE])
        .output()
        .map_err(RulesError::CannotRun)?;
    if out.status.success() {
        return both_rules(&String::from_utf8_lossy(&out.stdout));
    }
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("No such file or directory") {
        return Ok(false);
    }
    Err(RulesError::Nft {
        family,
        message: err.trim().to_owned(),
    })
}

/// Creates or removes `flag` to match the rules for `vip`; an error leaves it as it is. `nft`
/// runs in a blocking thread: the daemon's single thread keeps serving its loop meanwhile.
/// `said` is what was logged last: a state is logged once per change, not every round.
async fn sync(flag: &Path, vip: IpAddr, said: &mut Option<String>) {
    let now = tokio::task::spawn_blocking(move || rules_present(vip)).await;
    let result = match &now {
        Ok(Ok(true)) => selection::atomic::touch(flag),
        Ok(Ok(false)) => match std::fs::remove_file(flag) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        },
        Ok(Err(_)) | Err(_) => Ok(()),
    };
    if let Err(e) = result {
        tracing::warn!("cannot update {}: {e}", flag.display());
    }
    let (warn, state) = match now {
        Ok(Ok(true)) => (
            false,
            format!("HAProxy's API redirect rules for {vip} are in place"),
        ),
        Ok(Ok(false)) => (
            false,
            format!("HAProxy's API redirect rules for {vip} are absent"),
        ),
        Ok(Err(e)) => (true, format!("{e}; {} left as it is", flag.display())),
        Err(e) => (true, format!("nft: {e}; {} left as it is", flag.display())),
    };
    if said.as_deref() != Some(state.as_str()) {
        if warn {
            tracing::warn!("{state}");
        } else {
            tracing::info!("{state}");
        }
        *said = Some(state);
    }
}

/// nftables' change events, or `None` when the group cannot be joined.
fn subscribe() -> std::io::Result<TokioSocket> {
    let mut socket = TokioSocket::new(protocols::NETLINK_NETFILTER)?;
    socket.socket_mut().bind(&SocketAddr::new(0, 0))?;
    socket.socket_mut().add_membership(NFNLGRP_NFTABLES)?;
    Ok(socket)
}

/// Keeps `flag` in step with the redirect rules for the first API VIP, from now on.
pub fn spawn(flag: PathBuf, vip: IpAddr) {
    tokio::spawn(async move {
        let mut said = None;
        let events = subscribe()
            .inspect_err(|e| {
                tracing::warn!(
                    "cannot follow nftables changes ({e}); checking HAProxy's redirect rules \
                     every {POLL:?}"
                )
            })
            .ok();
        loop {
            sync(&flag, vip, &mut said).await;
            match &events {
                Some(socket) => {
                    if let Err(e) = socket.recv_from_full().await {
                        tracing::warn!("nftables events: {e}");
                        tokio::time::sleep(POLL).await;
                    }
                    // The rest of the transaction's messages.
                    while let Ok(Ok(_)) =
                        tokio::time::timeout(SETTLE, socket.recv_from_full()).await
                    {
                    }
                }
                None => tokio::time::sleep(POLL).await,
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(rules: &[(&str, &str)]) -> String {
        let mut items = vec![
            serde_json::json!({"metainfo": {"version": "1.0.6", "json_schema_version": 1}}),
            serde_json::json!({"table": {"family": "ip", "name": TABLE, "handle": 1}}),
        ];
        for (chain, comment) in rules {
            items.push(serde_json::json!({"rule": {"family": "ip", "table": TABLE,
                "chain": chain, "handle": 4, "comment": comment, "expr": []}}));
        }
        serde_json::json!({ "nftables": items }).to_string()
    }

    #[test]
    fn both_rules_by_their_comment_in_both_chains() {
        let both = [("ocp_prerouting", COMMENT), ("ocp_output", COMMENT)];
        assert!(both_rules(&listing(&both)).unwrap());
        assert!(!both_rules(&listing(&both[..1])).unwrap());
        assert!(
            !both_rules(&listing(&[
                ("ocp_prerouting", COMMENT),
                ("ocp_output", "something else")
            ]))
            .unwrap()
        );
        assert!(!both_rules(&listing(&[])).unwrap());
        assert!(both_rules("nft: not json").is_err());
        assert!(both_rules("{}").is_err());
    }
}
