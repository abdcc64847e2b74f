//! A coalesced stream of link, address and route changes.

use std::time::Duration;

use futures_channel::mpsc::UnboundedReceiver;
use futures_util::StreamExt;
use rtnetlink::MulticastGroup;
use rtnetlink::packet_core::{NetlinkMessage, NetlinkPayload};
use rtnetlink::packet_route::RouteNetlinkMessage;
use rtnetlink::sys::{AsyncSocket, SocketAddr};

use super::NetlinkError;

/// Socket receive buffer: large enough that a burst (an interface with many routes going down)
/// rarely overruns it. An overrun is still handled, by asking for a full re-dump.
const RECEIVE_BUFFER: usize = 4 << 20;

/// A burst is coalesced for at most this long, so a steady stream of changes cannot starve
/// the consumer.
const MAX_COALESCE: Duration = Duration::from_secs(1);

/// What changed since the last [`ChangeStream::next`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub links: bool,
    pub addresses: bool,
    pub routes: bool,
    /// Events were lost (socket overrun): the consumer must re-dump everything.
    pub overrun: bool,
}

impl Changes {
    fn record(&mut self, msg: &NetlinkMessage<RouteNetlinkMessage>) {
        match &msg.payload {
            NetlinkPayload::InnerMessage(m) => match m {
                RouteNetlinkMessage::NewLink(_) | RouteNetlinkMessage::DelLink(_) => {
                    self.links = true
                }
                RouteNetlinkMessage::NewAddress(_) | RouteNetlinkMessage::DelAddress(_) => {
                    self.addresses = true
                }
                RouteNetlinkMessage::NewRoute(_) | RouteNetlinkMessage::DelRoute(_) => {
                    self.routes = true
                }
                _ => {}
            },
            NetlinkPayload::Overrun(_) => self.overrun = true,
            _ => {}
        }
    }

    fn any(&self) -> bool {
        self.links || self.addresses || self.routes || self.overrun
    }
}

/// Multicast subscription to link, IPv4/IPv6 address and route changes.
pub struct ChangeStream {
    events: UnboundedReceiver<(NetlinkMessage<RouteNetlinkMessage>, SocketAddr)>,
    settle: Duration,
}

impl ChangeStream {
    /// Subscribes now (spawning the connection on the current tokio runtime). A burst of
    /// events is reported once, after `settle` passes without another event.
    pub fn subscribe(settle: Duration) -> Result<Self, NetlinkError> {
        let (mut conn, _handle, events) = rtnetlink::new_multicast_connection(&[
            MulticastGroup::Link,
            MulticastGroup::Ipv4Ifaddr,
            MulticastGroup::Ipv6Ifaddr,
            MulticastGroup::Ipv4Route,
            MulticastGroup::Ipv6Route,
        ])
        .map_err(NetlinkError::Socket)?;
        conn.socket_mut()
            .socket_mut()
            .set_rx_buf_sz(RECEIVE_BUFFER)
            .map_err(NetlinkError::Socket)?;
        tokio::spawn(conn);
        Ok(ChangeStream { events, settle })
    }

    /// Waits for the next burst of changes; `None` when the socket closed.
    pub async fn next(&mut self) -> Option<Changes> {
        let mut changes = Changes::default();
        while !changes.any() {
            let (msg, _) = self.events.next().await?;
            changes.record(&msg);
        }
        let deadline = tokio::time::Instant::now() + MAX_COALESCE;
        loop {
            let quiet = tokio::time::sleep(self.settle);
            tokio::select! {
                ev = self.events.next() => match ev {
                    Some((msg, _)) => changes.record(&msg),
                    None => return Some(changes),
                },
                _ = quiet => return Some(changes),
                _ = tokio::time::sleep_until(deadline) => return Some(changes),
            }
        }
    }
}
