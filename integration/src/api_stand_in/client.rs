//! Calls to the stand-in as `oc` and MCO make them, for tests and the demo: writes through a
//! kube client over HTTP (so the controllers' watches see them as any other), reads straight
//! from the stand-in's store.

use super::ApiStandIn;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::Value;

pub const MC_GROUP: &str = "machineconfiguration.openshift.io";
pub const NMSTATE: &str = "nmstate.io";

/// A blocking client of the stand-in.
pub struct Kube {
    pub server: ApiStandIn,
    client: kube::Client,
    rt: tokio::runtime::Runtime,
}

/// The resource an object's `apiVersion` and `kind` name (plurals as the API serves them).
fn resource(api_version: &str, kind: &str) -> ApiResource {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let plural = match kind {
        "NodeNetworkConfigurationPolicy" => "nodenetworkconfigurationpolicies".to_owned(),
        k => format!("{}s", k.to_lowercase()),
    };
    ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: api_version.into(),
        kind: kind.into(),
        plural,
    }
}

impl Kube {
    pub fn new(server: ApiStandIn) -> Kube {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let client = rt.block_on(async {
            kube::Client::try_from(kube::Config::new(server.url().parse().unwrap())).unwrap()
        });
        Kube { server, client, rt }
    }

    fn api(&self, api_version: &str, kind: &str) -> Api<DynamicObject> {
        Api::all_with(self.client.clone(), &resource(api_version, kind))
    }

    /// Creates `object` (cluster-scoped).
    pub fn create(&self, object: Value) {
        let api = self.api(
            object["apiVersion"].as_str().unwrap(),
            object["kind"].as_str().unwrap(),
        );
        let o: DynamicObject = serde_json::from_value(object).unwrap();
        self.rt
            .block_on(api.create(&PostParams::default(), &o))
            .unwrap();
    }

    /// A JSON merge patch of `name`.
    pub fn patch(&self, api_version: &str, kind: &str, name: &str, patch: Value) {
        let api = self.api(api_version, kind);
        self.rt
            .block_on(api.patch(name, &PatchParams::default(), &Patch::Merge(&patch)))
            .unwrap();
    }

    /// A JSON merge patch of `name`'s status.
    pub fn patch_status(&self, api_version: &str, kind: &str, name: &str, patch: Value) {
        let api = self.api(api_version, kind);
        self.rt
            .block_on(api.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch)))
            .unwrap();
    }

    /// Deletes `name`.
    pub fn delete(&self, api_version: &str, kind: &str, name: &str) {
        let api = self.api(api_version, kind);
        self.rt
            .block_on(api.delete(name, &DeleteParams::default()))
            .unwrap();
    }

    /// The stored object.
    pub fn get(&self, group: &str, plural: &str, name: &str) -> Option<Value> {
        self.server.get(group, plural, "", name)
    }

    /// Every stored object of a resource.
    pub fn list(&self, group: &str, plural: &str) -> Vec<Value> {
        self.server.list(group, plural)
    }
}
