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
    /// What the burst under way changed so far: kept here, not in [`ChangeStream::next`]'s
    /// future, so that a `next` dropped mid-burst (the losing branch of a `select!`) loses
    /// nothing it had taken from the socket.
    pending: Changes,
    /// When the burst under way is reported at the latest.
    deadline: Option<tokio::time::Instant>,
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
        Ok(ChangeStream {
            events,
            settle,
            pending: Changes::default(),
            deadline: None,
        })
    }

    /// Waits for the next burst of changes; `None` when the socket closed. Cancel-safe: a
    /// call dropped before it returns leaves what it saw to the next.
    pub async fn next(&mut self) -> Option<Changes> {
        while !self.pending.any() {
            let (msg, _) = self.events.next().await?;
            self.pending.record(&msg);
        }
        let deadline = *self
            .deadline
            .get_or_insert_with(|| tokio::time::Instant::now() + MAX_COALESCE);
        loop {
            let quiet = tokio::time::sleep(self.settle);
            tokio::select! {
                ev = self.events.next() => match ev {
                    Some((msg, _)) => self.pending.record(&msg),
                    None => break,
                },
                _ = quiet => break,
                _ = tokio::time::sleep_until(deadline) => break,
            }
        }
        self.deadline = None;
        Some(std::mem::take(&mut self.pending))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtnetlink::packet_route::link::LinkMessage;

    fn stream() -> (
        futures_channel::mpsc::UnboundedSender<(NetlinkMessage<RouteNetlinkMessage>, SocketAddr)>,
        ChangeStream,
    ) {
        let (tx, events) = futures_channel::mpsc::unbounded();
        let changes = ChangeStream {
            events,
            settle: Duration::from_millis(50),
            pending: Changes::default(),
            deadline: None,
        };
        (tx, changes)
    }

    fn new_link() -> (NetlinkMessage<RouteNetlinkMessage>, SocketAddr) {
        let msg = RouteNetlinkMessage::NewLink(LinkMessage::default());
        (NetlinkMessage::from(msg), SocketAddr::new(0, 0))
    }

    #[tokio::test]
    async fn a_burst_taken_by_a_call_dropped_mid_settle_is_reported_by_the_next() {
        let (tx, mut changes) = stream();
        tx.unbounded_send(new_link()).unwrap();
        // The call takes the message, then is dropped while it waits for the burst to settle.
        let dropped = tokio::time::timeout(Duration::from_millis(5), changes.next()).await;
        assert!(dropped.is_err());
        let next = tokio::time::timeout(Duration::from_secs(1), changes.next()).await;
        let reported = next.expect("reported").expect("open");
        assert!(reported.links && !reported.addresses && !reported.routes);
        // Reported once.
        let again = tokio::time::timeout(Duration::from_millis(100), changes.next()).await;
        assert!(again.is_err());
    }
}
