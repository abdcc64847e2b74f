//! A user's NMState file as the declarative path reads it before it changes anything, then
//! nmstate's own validation (offline: merged with an empty current state and turned into
//! NetworkManager profiles, as `nmstatectl gc` does). Properties: never panics; a parse error
//! names the file.

use std::path::PathBuf;

use ovs_bridge_configurator::nmstate::per_host::{Pending, parse};

pub fn check(data: &[u8]) {
    let Some(text) = crate::text(data) else {
        return;
    };
    let p = Pending {
        path: PathBuf::from("/etc/nmstate/openshift/cluster.yml"),
        content: text.to_owned(),
    };
    match parse(&p) {
        Ok(state) => drop(state.gen_conf()),
        Err(e) => assert!(
            e.to_string()
                .starts_with("invalid NMState file /etc/nmstate/openshift/cluster.yml: "),
            "{e}"
        ),
    }
}
