//! What the NodeNetworkState publisher's harness test and benchmark share: the API stand-in
//! reached from inside the node's namespace through a relay that can be cut (the API server
//! away) and records every byte the publisher sent, the Node object, and the kubeconfig.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use integration::Netns;
use integration::api_stand_in::ApiStandIn;
use serde_json::Value;

/// A TCP relay listening on 127.0.0.1 inside a node's namespace, forwarding to `target` (the
/// stand-in on the host's loopback).
pub struct Relay {
    port: u16,
    target: SocketAddr,
    listener: Arc<Mutex<Option<TcpListener>>>,
    conns: Arc<Mutex<Vec<TcpStream>>>,
    sent: Arc<Mutex<Vec<u8>>>,
    done: Arc<AtomicBool>,
}

impl Relay {
    pub fn start(ns: &Netns, target: SocketAddr) -> Relay {
        let listener = bind_in(ns, 0);
        let port = listener.local_addr().unwrap().port();
        let r = Relay {
            port,
            target,
            listener: Arc::new(Mutex::new(Some(listener))),
            conns: Arc::default(),
            sent: Arc::default(),
            done: Arc::default(),
        };
        r.accept_loop();
        r
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The API server away: new connections refused, open ones cut.
    pub fn stop(&self) {
        self.listener.lock().unwrap().take();
        for c in self.conns.lock().unwrap().drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
    }

    /// Back, on the same address.
    pub fn resume(&self, ns: &Netns) {
        *self.listener.lock().unwrap() = Some(bind_in(ns, self.port));
    }

    /// Every byte the client sent through the relay.
    pub fn sent(&self) -> Vec<u8> {
        self.sent.lock().unwrap().clone()
    }

    fn accept_loop(&self) {
        let (listener, conns, sent, done, target) = (
            self.listener.clone(),
            self.conns.clone(),
            self.sent.clone(),
            self.done.clone(),
            self.target,
        );
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let accepted = listener.lock().unwrap().as_ref().map(TcpListener::accept);
                match accepted {
                    Some(Ok((client, _))) => pipe(client, target, &conns, &sent),
                    _ => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        self.stop();
    }
}

fn bind_in(ns: &Netns, port: u16) -> TcpListener {
    let l = ns
        .run_in(|| TcpListener::bind(("127.0.0.1", port)))
        .unwrap()
        .unwrap();
    l.set_nonblocking(true).unwrap();
    l
}

fn pipe(
    client: TcpStream,
    target: SocketAddr,
    conns: &Mutex<Vec<TcpStream>>,
    sent: &Arc<Mutex<Vec<u8>>>,
) {
    client.set_nonblocking(false).unwrap();
    let Ok(server) = TcpStream::connect(target) else {
        return;
    };
    {
        let mut c = conns.lock().unwrap();
        c.push(client.try_clone().unwrap());
        c.push(server.try_clone().unwrap());
    }
    let (mut c_in, mut s_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    let record = sent.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 16384];
        while let Ok(n) = c_in.read(&mut buf) {
            if n == 0 || s_out.write_all(&buf[..n]).is_err() {
                break;
            }
            record.lock().unwrap().extend_from_slice(&buf[..n]);
        }
        let _ = s_out.shutdown(Shutdown::Write);
    });
    let (mut s_in, mut c_out) = (server, client);
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut s_in, &mut c_out);
        let _ = c_out.shutdown(Shutdown::Write);
    });
}

/// The stand-in's address.
pub fn addr(api: &ApiStandIn) -> SocketAddr {
    api.url().trim_start_matches("http://").parse().unwrap()
}

/// Creates Node `name` in the stand-in; its uid.
pub fn create_node(api: &ApiStandIn, name: &str) -> String {
    let body = serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
        .to_string();
    let addr = api.url().trim_start_matches("http://").to_owned();
    let mut s = TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "POST /api/v1/nodes HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let json = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    let node: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {answer}"));
    node["metadata"]["uid"].as_str().unwrap().to_owned()
}

/// A kubeconfig for `url` without credentials (the stand-in has no authentication).
pub fn kubeconfig(dir: &Path, url: &str) -> PathBuf {
    let path = dir.join("publisher.kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: {url}\n\
             contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n\
             current-context: c\nusers:\n- name: u\n  user: {{}}\n"
        ),
    )
    .unwrap();
    path
}

/// The stand-in with NodeNetworkStates' status subresource, as kubernetes-nmstate's CRD has it.
pub fn api() -> ApiStandIn {
    let api = ApiStandIn::start().unwrap();
    api.add_status_subresource("nmstate.io", "nodenetworkstates");
    api
}

/// The NodeNetworkState the API holds for `node`.
pub fn published(api: &ApiStandIn, node: &str) -> Option<Value> {
    api.get("nmstate.io", "nodenetworkstates", "", node)
        .filter(|o| !o["status"]["currentState"].is_null())
}

/// Status writes so far.
pub fn status_writes(api: &ApiStandIn) -> usize {
    api.writes("nodenetworkstates/status")
}

/// `v` without what changes by itself, for comparing two reads of one node.
pub fn without_volatile(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for k in ovs_bridge_configurator::publish::document::VOLATILE {
                m.remove(*k);
            }
            m.values_mut().for_each(without_volatile);
        }
        Value::Array(a) => a.iter_mut().for_each(without_volatile),
        _ => {}
    }
}

/// VmHWM (peak resident memory) of `pid`, in KiB.
pub fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}
