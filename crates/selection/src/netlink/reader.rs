//! Consistent dumps of links, addresses and routes, in bounded memory.
//!
//! The dump goes over rtnetlink's socket (`rtnetlink::sys`) and message types
//! (`rtnetlink::packet_route`), one datagram at a time: each message is converted (or dropped)
//! before the next datagram is read. rtnetlink's request `Handle` would read the whole dump
//! ahead into a queue (30 MiB for 100k routes); this keeps a 100k-route node under 10 MiB.

use std::time::Duration;

use rtnetlink::packet_core::{
    NLM_F_DUMP, NLM_F_DUMP_INTR, NLM_F_REQUEST, NetlinkBuffer, NetlinkMessage, NetlinkPayload,
};
use rtnetlink::packet_route::address::AddressMessage;
use rtnetlink::packet_route::link::LinkMessage;
use rtnetlink::packet_route::route::RouteMessage;
use rtnetlink::packet_route::{AddressFamily, RouteNetlinkMessage};
use rtnetlink::sys::protocols::NETLINK_ROUTE;
use rtnetlink::sys::{AsyncSocket, AsyncSocketExt, SocketAddr, TokioSocket};

use super::{NetlinkError, convert};
use crate::model::{Address, MAIN_TABLE, Route, Snapshot};

/// How often a dump interrupted by concurrent changes (`NLM_F_DUMP_INTR`) is tried. Between
/// attempts the reader pauses 5 ms, 10 ms, ... so a burst of changes can settle (0.2 s at most).
const DUMP_ATTEMPTS: u32 = 10;
const RETRY_PAUSE: Duration = Duration::from_millis(5);

/// A request socket for dumps. Subscribe a [`super::ChangeStream`] *before* the first
/// [`NetlinkReader::snapshot`] so that no change between the dump and the watch is lost.
pub struct NetlinkReader {
    socket: TokioSocket,
    sequence: u32,
    retries: u64,
}

enum DumpError {
    Interrupted,
    Failed(NetlinkError),
}

impl NetlinkReader {
    /// Opens the socket with strict checking, so the kernel itself restricts the route dump to
    /// the main table. Needs a tokio runtime with I/O enabled.
    pub fn connect() -> Result<Self, NetlinkError> {
        let mut socket = TokioSocket::new(NETLINK_ROUTE).map_err(NetlinkError::Socket)?;
        let s = socket.socket_mut();
        s.set_netlink_get_strict_chk(true)
            .map_err(NetlinkError::Socket)?;
        s.bind_auto().map_err(NetlinkError::Socket)?;
        s.connect(&SocketAddr::new(0, 0))
            .map_err(NetlinkError::Socket)?;
        Ok(NetlinkReader {
            socket,
            sequence: 0,
            retries: 0,
        })
    }

    /// Links, addresses, and the main-table routes that matter for selection (default routes,
    /// IPv6 RA routes). Each dump is retried while the kernel reports it inconsistent.
    pub async fn snapshot(&mut self) -> Result<Snapshot, NetlinkError> {
        let links = self.links_as(|l| Some(convert::link(l))).await?;
        let addresses = self.addresses().await?;
        let mut routes = Vec::new();
        for family in [AddressFamily::Inet, AddressFamily::Inet6] {
            let mut request = RouteMessage::default();
            request.header.address_family = family;
            request.header.table = MAIN_TABLE as u8;
            let kept = self
                .collect(
                    "route",
                    RouteNetlinkMessage::GetRoute(request),
                    |m| match m {
                        RouteNetlinkMessage::NewRoute(r) => {
                            convert::route(&r).filter(|r| r.matters_for_selection())
                        }
                        _ => None,
                    },
                )
                .await?;
            routes.extend(kept);
        }
        let mut snap = Snapshot {
            links,
            addresses,
            routes,
        };
        snap.normalize();
        Ok(snap)
    }

    /// Every route of `table` (at most 255: the dump's header field), both families: what a
    /// change of static routes is checked against.
    pub async fn routes_in(&mut self, table: u8) -> Result<Vec<Route>, NetlinkError> {
        let mut routes = Vec::new();
        for family in [AddressFamily::Inet, AddressFamily::Inet6] {
            let mut request = RouteMessage::default();
            request.header.address_family = family;
            request.header.table = table;
            let all = self
                .collect(
                    "route",
                    RouteNetlinkMessage::GetRoute(request),
                    |m| match m {
                        RouteNetlinkMessage::NewRoute(r) => convert::route(&r),
                        _ => None,
                    },
                )
                .await?;
            routes.extend(all);
        }
        Ok(routes)
    }

    /// Every link, each through `keep`: for readers that need attributes the model leaves
    /// out (a link's kind, its operational state).
    pub async fn links_as<T>(
        &mut self,
        keep: impl Fn(&LinkMessage) -> Option<T>,
    ) -> Result<Vec<T>, NetlinkError> {
        self.collect(
            "link",
            RouteNetlinkMessage::GetLink(LinkMessage::default()),
            |m| match m {
                RouteNetlinkMessage::NewLink(l) => keep(&l),
                _ => None,
            },
        )
        .await
    }

    /// Every IPv4 and IPv6 address.
    pub async fn addresses(&mut self) -> Result<Vec<Address>, NetlinkError> {
        self.collect(
            "address",
            RouteNetlinkMessage::GetAddress(AddressMessage::default()),
            |m| match m {
                RouteNetlinkMessage::NewAddress(a) => convert::address(&a),
                _ => None,
            },
        )
        .await
    }

    /// How many dumps had to be repeated because the kernel flagged them inconsistent.
    pub fn retries(&self) -> u64 {
        self.retries
    }

    /// Dumps with `request` and keeps what `keep` returns.
    async fn collect<T>(
        &mut self,
        what: &'static str,
        request: RouteNetlinkMessage,
        keep: impl Fn(RouteNetlinkMessage) -> Option<T>,
    ) -> Result<Vec<T>, NetlinkError> {
        for attempt in 0..DUMP_ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(RETRY_PAUSE * attempt).await;
            }
            let mut items = Vec::new();
            match self
                .dump(what, request.clone(), |m| items.extend(keep(m)))
                .await
            {
                Ok(()) => return Ok(items),
                Err(DumpError::Interrupted) => {
                    self.retries += 1;
                    tracing::debug!("{what} dump interrupted by a concurrent change, retrying");
                }
                Err(DumpError::Failed(e)) => return Err(e),
            }
        }
        Err(NetlinkError::Inconsistent {
            what,
            attempts: DUMP_ATTEMPTS,
        })
    }

    async fn dump(
        &mut self,
        what: &'static str,
        request: RouteNetlinkMessage,
        mut each: impl FnMut(RouteNetlinkMessage),
    ) -> Result<(), DumpError> {
        let failed =
            |source: std::io::Error| DumpError::Failed(NetlinkError::Kernel { what, source });
        self.sequence = self.sequence.wrapping_add(1);
        let mut req = NetlinkMessage::from(request);
        req.header.flags = NLM_F_REQUEST | NLM_F_DUMP;
        req.header.sequence_number = self.sequence;
        req.finalize();
        let mut bytes = vec![0; req.buffer_len()];
        req.serialize(&mut bytes);
        self.socket.send(&bytes).await.map_err(failed)?;

        let mut interrupted = false;
        loop {
            let (datagram, _) = self.socket.recv_from_full().await.map_err(failed)?;
            let mut offset = 0;
            while offset < datagram.len() {
                let frame = &datagram[offset..];
                let len = NetlinkBuffer::new_checked(frame)
                    .map(|b| b.length() as usize)
                    .map_err(|e| failed(std::io::Error::other(e.to_string())))?;
                let msg = NetlinkMessage::<RouteNetlinkMessage>::deserialize(&frame[..len])
                    .map_err(|e| failed(std::io::Error::other(e.to_string())))?;
                // Align to 4 bytes for the next message.
                offset += (len + 3) & !3;
                if msg.header.sequence_number != self.sequence {
                    continue; // a late reply to an abandoned request
                }
                // The kernel flags every message after it noticed a change mid-dump.
                interrupted |= msg.header.flags & NLM_F_DUMP_INTR != 0;
                match msg.payload {
                    NetlinkPayload::InnerMessage(inner) => each(inner),
                    NetlinkPayload::Done(_) => {
                        return if interrupted {
                            Err(DumpError::Interrupted)
                        } else {
                            Ok(())
                        };
                    }
                    NetlinkPayload::Error(e) if e.code.is_some() => return Err(failed(e.to_io())),
                    _ => {}
                }
            }
        }
    }
}
