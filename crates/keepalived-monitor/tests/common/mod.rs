//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses its own subset

use std::time::{Duration, Instant};

use integration::Netns;

/// A `peers.toml` listing one master per address.
pub fn peer_list(addresses: &[&str]) -> String {
    addresses
        .iter()
        .map(|a| format!("[[node]]\nname = \"n{a}\"\nrole = \"master\"\naddresses = [\"{a}\"]\n"))
        .collect()
}

/// An HTTP server in `ns` on `addr` answering 200 to every request for `lifetime` (a stand-in
/// for Ironic, HAProxy's readiness endpoint...).
pub fn http_ok(ns: &Netns, addr: &'static str, lifetime: Duration) -> std::thread::JoinHandle<()> {
    let listener = ns
        .run_in(move || std::net::TcpListener::bind(addr))
        .unwrap()
        .unwrap();
    listener.set_nonblocking(true).unwrap();
    let until = Instant::now() + lifetime;
    std::thread::spawn(move || {
        while Instant::now() < until {
            match listener.accept() {
                Ok((mut c, _)) => {
                    let _ = std::io::Write::write_all(
                        &mut c,
                        b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    );
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    })
}
