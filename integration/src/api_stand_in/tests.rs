//! The stand-in through kube's own client: the calls controllers make, and what kube-apiserver
//! answers to them.

use futures_util::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use serde_json::json;

use super::ApiStandIn;

fn client(server: &ApiStandIn) -> kube::Client {
    let config = kube::Config::new(server.url().parse().unwrap());
    kube::Client::try_from(config).unwrap()
}

fn node(name: &str, role: &str) -> Node {
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"role": role}}}))
    .unwrap()
}

fn status_code(e: kube::Error) -> u16 {
    match e {
        kube::Error::Api(s) => s.code,
        other => panic!("not an API error: {other}"),
    }
}

#[tokio::test]
async fn a_replace_with_a_stale_resource_version_gets_409_conflict() {
    let server = ApiStandIn::start().unwrap();
    let leases: Api<Lease> = Api::namespaced(client(&server), "ns");
    let lease: Lease = serde_json::from_value(json!({"metadata": {"name": "l"},
        "spec": {"holderIdentity": "a"}}))
    .unwrap();
    let first = leases.create(&PostParams::default(), &lease).await.unwrap();
    let again = leases
        .create(&PostParams::default(), &lease)
        .await
        .unwrap_err();
    assert_eq!(status_code(again), 409);
    let mut b = first.clone();
    b.spec.as_mut().unwrap().holder_identity = Some("b".into());
    leases
        .replace("l", &PostParams::default(), &b)
        .await
        .unwrap();
    let mut c = first;
    c.spec.as_mut().unwrap().holder_identity = Some("c".into());
    let stale = leases
        .replace("l", &PostParams::default(), &c)
        .await
        .unwrap_err();
    assert_eq!(status_code(stale), 409);
    let now = leases.get("l").await.unwrap();
    assert_eq!(now.spec.unwrap().holder_identity.as_deref(), Some("b"));
    assert_eq!(server.writes("leases"), 4);
}

#[tokio::test]
async fn status_changes_only_through_the_status_subresource() {
    let server = ApiStandIn::start().unwrap();
    let nodes: Api<Node> = Api::all(client(&server));
    nodes
        .create(&PostParams::default(), &node("n0", "w"))
        .await
        .unwrap();
    let status = json!({"status": {"phase": "Running"}});
    let main = nodes
        .patch("n0", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
    assert!(main.status.is_none(), "the main endpoint changed status");
    let sub = nodes
        .patch_status("n0", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
    assert_eq!(sub.status.unwrap().phase.as_deref(), Some("Running"));
    assert_eq!(server.writes("nodes/status"), 1);
}

#[tokio::test]
async fn a_label_selector_lists_only_the_matching_objects() {
    let server = ApiStandIn::start().unwrap();
    let nodes: Api<Node> = Api::all(client(&server));
    for (name, role) in [("a", "worker"), ("b", "master"), ("c", "infra")] {
        nodes
            .create(&PostParams::default(), &node(name, role))
            .await
            .unwrap();
    }
    let names = |list: kube::core::ObjectList<Node>| -> Vec<String> {
        list.items
            .into_iter()
            .filter_map(|n| n.metadata.name)
            .collect()
    };
    let lp = ListParams::default().labels("role notin (master),role!=infra");
    assert_eq!(names(nodes.list(&lp).await.unwrap()), ["a"]);
    let lp = ListParams::default().labels("role in (master, infra)");
    assert_eq!(names(nodes.list(&lp).await.unwrap()), ["b", "c"]);
    let meta = nodes.list_metadata(&ListParams::default()).await.unwrap();
    assert_eq!(meta.items.len(), 3);
}

#[tokio::test]
async fn a_watch_sees_changes_after_its_resource_version_and_gets_410_once_compacted() {
    let server = ApiStandIn::start().unwrap();
    let nodes: Api<Node> = Api::all(client(&server));
    let created = nodes
        .create(&PostParams::default(), &node("n0", "w"))
        .await
        .unwrap();
    let from = created.metadata.resource_version.unwrap();
    let relabel = json!({"metadata": {"labels": {"role": "m"}}});
    nodes
        .patch("n0", &PatchParams::default(), &Patch::Merge(&relabel))
        .await
        .unwrap();
    let wp = WatchParams::default().timeout(5);
    let mut events = nodes.watch(&wp, &from).await.unwrap().boxed();
    let first = events.next().await.unwrap().unwrap();
    assert!(matches!(first, WatchEvent::Modified(n) if n.labels()["role"] == "m"));
    server.compact();
    let mut gone = nodes.watch(&wp, &from).await.unwrap().boxed();
    match gone.next().await.unwrap().unwrap() {
        WatchEvent::Error(status) => assert_eq!(status.code, 410),
        other => panic!("expected 410 Gone, got {other:?}"),
    }
}

use kube::ResourceExt;
