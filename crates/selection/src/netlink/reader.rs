//! Consistent dumps of links, addresses and routes.

use futures_util::StreamExt;
use rtnetlink::Handle;
use rtnetlink::packet_core::{
    NLM_F_DUMP, NLM_F_DUMP_INTR, NLM_F_REQUEST, NetlinkMessage, NetlinkPayload,
};
use rtnetlink::packet_route::AddressFamily;
use rtnetlink::packet_route::RouteNetlinkMessage;
use rtnetlink::packet_route::address::AddressMessage;
use rtnetlink::packet_route::link::LinkMessage;
use rtnetlink::packet_route::route::RouteMessage;

use super::{NetlinkError, convert};
use crate::model::{MAIN_TABLE, Snapshot};

/// How often a dump interrupted by concurrent changes (`NLM_F_DUMP_INTR`) is retried.
const DUMP_ATTEMPTS: u32 = 5;

/// A request socket for dumps. Subscribe a [`super::ChangeStream`] *before* the first
/// [`NetlinkReader::snapshot`] so that no change between the dump and the watch is lost.
pub struct NetlinkReader {
    handle: Handle,
}

enum DumpError {
    Interrupted,
    Failed(NetlinkError),
}

impl NetlinkReader {
    /// Opens the socket with strict checking, so the kernel itself restricts the route dump to
    /// the main table, and spawns its connection on the current tokio runtime.
    pub fn connect() -> Result<Self, NetlinkError> {
        let (conn, handle, _) =
            rtnetlink::new_connection_with_strict_check().map_err(NetlinkError::Socket)?;
        tokio::spawn(conn);
        Ok(NetlinkReader { handle })
    }

    /// Links, addresses, and the main-table routes that matter for selection (default routes,
    /// IPv6 RA routes). Each dump is retried while the kernel reports it inconsistent.
    pub async fn snapshot(&mut self) -> Result<Snapshot, NetlinkError> {
        let links = self
            .collect(
                "link",
                RouteNetlinkMessage::GetLink(LinkMessage::default()),
                |m| match m {
                    RouteNetlinkMessage::NewLink(l) => Some(convert::link(&l)),
                    _ => None,
                },
            )
            .await?;
        let addresses = self
            .collect(
                "address",
                RouteNetlinkMessage::GetAddress(AddressMessage::default()),
                |m| match m {
                    RouteNetlinkMessage::NewAddress(a) => convert::address(&a),
                    _ => None,
                },
            )
            .await?;
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

    /// Dumps with `request` and keeps what `keep` returns; only kept items are stored, so a
    /// dump of 100k routes does not hold 100k messages.
    async fn collect<T>(
        &mut self,
        what: &'static str,
        request: RouteNetlinkMessage,
        keep: impl Fn(RouteNetlinkMessage) -> Option<T>,
    ) -> Result<Vec<T>, NetlinkError> {
        for _ in 0..DUMP_ATTEMPTS {
            let mut items = Vec::new();
            match self
                .dump(what, request.clone(), |m| items.extend(keep(m)))
                .await
            {
                Ok(()) => return Ok(items),
                Err(DumpError::Interrupted) => {
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
        let mut req = NetlinkMessage::from(request);
        req.header.flags = NLM_F_REQUEST | NLM_F_DUMP;
        let mut responses = self
            .handle
            .request(req)
            .map_err(|e| DumpError::Failed(NetlinkError::Request(e)))?;
        let mut interrupted = false;
        while let Some(msg) = responses.next().await {
            // The kernel flags every message after it noticed a change mid-dump.
            interrupted |= msg.header.flags & NLM_F_DUMP_INTR != 0;
            match msg.payload {
                NetlinkPayload::InnerMessage(inner) => each(inner),
                NetlinkPayload::Error(e) if e.code.is_some() => {
                    return Err(DumpError::Failed(NetlinkError::Kernel {
                        what,
                        source: e.to_io(),
                    }));
                }
                _ => {}
            }
        }
        if interrupted {
            Err(DumpError::Interrupted)
        } else {
            Ok(())
        }
    }
}
