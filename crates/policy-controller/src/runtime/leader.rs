//! Lease leader election, as client-go's `leaderelection` does it: one
//! `coordination.k8s.io/v1` Lease; every write to it carries the resourceVersion it was read
//! at, so of two candidates only one can take it (the other gets 409); a candidate takes over
//! when the record (holder, renewTime) has not changed for the lease's duration by its own
//! clock (no trust in other machines' clocks); the leader stops writing once its last renewal
//! is older than the renew deadline, before anyone else may take over.
//!
//! Neither published crate fits: kube-leader-election takes the lease with a merge patch
//! without a resourceVersion (two candidates can both believe they lead) and is built on an
//! older kube; kube-lease-manager relies on server-side apply's field ownership to refuse a
//! second holder.

use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::Api;
use kube::api::PostParams;
use tokio::sync::watch;
use tokio::time::Instant;

/// Where the lease lives and how long it lasts.
#[derive(Clone, Debug)]
pub struct LeaseSettings {
    pub namespace: String,
    pub name: String,
    /// This replica's identity (its Pod name).
    pub identity: String,
    /// `leaseDurationSeconds`: how long others wait for a silent holder.
    pub duration: Duration,
    /// How often to renew or retry; the leader stops writing once a renewal is older than
    /// `duration - 2 * retry` (client-go's renew deadline, with the same margin).
    pub retry: Duration,
}

impl LeaseSettings {
    fn renew_deadline(&self) -> Duration {
        self.duration.saturating_sub(self.retry * 2).max(self.retry)
    }
}

/// What a candidate remembers of the lease between two reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observed {
    record: Option<(String, Option<MicroTime>)>,
    since: Option<Instant>,
}

/// What to do with the lease as read.
#[derive(Debug, PartialEq)]
pub enum Step {
    /// No lease yet: create it, holding it.
    Create(Lease),
    /// Ours to renew, or free to take: replace it (with its resourceVersion).
    Take(Lease),
    /// Someone else holds it and renews it.
    Follow,
}

/// Decides the next step from the lease (None: it does not exist).
pub fn step(
    lease: Option<&Lease>,
    seen: &mut Observed,
    s: &LeaseSettings,
    now: Instant,
    wall: MicroTime,
) -> Step {
    let Some(lease) = lease else {
        return Step::Create(held(Lease::default(), s, wall, 0));
    };
    let spec = lease.spec.clone().unwrap_or_default();
    let holder = spec.holder_identity.clone().unwrap_or_default();
    let transitions = spec.lease_transitions.unwrap_or(0);
    if holder == s.identity {
        let mut renewed = lease.clone();
        if let Some(spec) = renewed.spec.as_mut() {
            spec.renew_time = Some(wall);
            spec.lease_duration_seconds = Some(seconds(s.duration));
        }
        return Step::Take(renewed);
    }
    let record = Some((holder.clone(), spec.renew_time.clone()));
    if seen.record != record || seen.since.is_none() {
        *seen = Observed {
            record,
            since: Some(now),
        };
    }
    let duration = spec
        .lease_duration_seconds
        .map_or(s.duration, |d| Duration::from_secs(d.max(0) as u64));
    let expired = seen.since.is_some_and(|t| now >= t + duration);
    if holder.is_empty() || expired {
        return Step::Take(held(lease.clone(), s, wall, transitions + 1));
    }
    Step::Follow
}

fn seconds(d: Duration) -> i32 {
    i32::try_from(d.as_secs().max(1)).unwrap_or(i32::MAX)
}

fn held(mut lease: Lease, s: &LeaseSettings, wall: MicroTime, transitions: i32) -> Lease {
    lease.metadata.name = Some(s.name.clone());
    lease.metadata.namespace = Some(s.namespace.clone());
    lease.spec = Some(LeaseSpec {
        holder_identity: Some(s.identity.clone()),
        acquire_time: Some(wall.clone()),
        renew_time: Some(wall),
        lease_duration_seconds: Some(seconds(s.duration)),
        lease_transitions: Some(transitions),
        ..LeaseSpec::default()
    });
    lease
}

/// The lease given up by its holder, as client-go's `ReleaseOnCancel` writes it: no holder, a
/// one-second duration, renewed now, so that another replica takes it at its next retry instead
/// of waiting out the duration. None when this replica does not hold it.
pub fn released(lease: &Lease, s: &LeaseSettings, wall: MicroTime) -> Option<Lease> {
    let spec = lease.spec.as_ref()?;
    if spec.holder_identity.as_deref() != Some(s.identity.as_str()) {
        return None;
    }
    let mut given_up = lease.clone();
    given_up.spec = Some(LeaseSpec {
        holder_identity: None,
        acquire_time: Some(wall.clone()),
        renew_time: Some(wall),
        lease_duration_seconds: Some(1),
        ..spec.clone()
    });
    Some(given_up)
}

/// Gives the lease up if this replica holds it (on SIGTERM). The write carries the
/// resourceVersion read, so a lease another replica has taken meanwhile is left alone (409).
pub async fn release(api: &Api<Lease>, s: &LeaseSettings) -> Result<bool, kube::Error> {
    let Some(lease) = api.get_opt(&s.name).await? else {
        return Ok(false);
    };
    let wall = MicroTime(k8s_openapi::jiff::Timestamp::now());
    let Some(given_up) = released(&lease, s, wall) else {
        return Ok(false);
    };
    match api
        .replace(&s.name, &PostParams::default(), &given_up)
        .await
    {
        Ok(_) => Ok(true),
        Err(kube::Error::Api(e)) if e.code == 409 => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether this replica leads now; cheap to ask before every write.
#[derive(Clone, Debug)]
pub struct Leadership(watch::Receiver<Option<Instant>>);

impl Leadership {
    pub fn is_leading(&self) -> bool {
        self.0.borrow().is_some_and(|until| Instant::now() < until)
    }

    /// Waits for the next gain or loss of the lease.
    pub async fn changed(&mut self) {
        let before = self.is_leading();
        while self.0.changed().await.is_ok() {
            if self.is_leading() != before {
                return;
            }
        }
        std::future::pending::<()>().await;
    }
}

/// Runs the election until dropped; the receiver tells who leads.
pub fn elect(api: Api<Lease>, s: LeaseSettings) -> (Leadership, impl Future<Output = ()>) {
    let (tx, rx) = watch::channel(None);
    let run = async move {
        let mut seen = Observed::default();
        loop {
            let started = Instant::now();
            match attempt(&api, &s, &mut seen, started).await {
                Ok(true) => tx.send_replace(Some(started + s.renew_deadline())),
                Ok(false) => tx.send_replace(None),
                Err(e) => {
                    tracing::warn!("lease {}/{}: {e}", s.namespace, s.name);
                    *tx.borrow()
                }
            };
            let lost = tx.borrow().is_some_and(|until| Instant::now() >= until);
            if lost {
                tx.send_replace(None);
            }
            tokio::time::sleep(s.retry).await;
        }
    };
    (Leadership(rx), run)
}

/// One read and, when due, one write of the lease. Ok(true): this replica holds it now.
async fn attempt(
    api: &Api<Lease>,
    s: &LeaseSettings,
    seen: &mut Observed,
    now: Instant,
) -> Result<bool, kube::Error> {
    let lease = api.get_opt(&s.name).await?;
    let wall = MicroTime(k8s_openapi::jiff::Timestamp::now());
    let result = match step(lease.as_ref(), seen, s, now, wall) {
        Step::Follow => return Ok(false),
        Step::Create(l) => api.create(&PostParams::default(), &l).await,
        Step::Take(l) => api.replace(&s.name, &PostParams::default(), &l).await,
    };
    match result {
        Ok(_) => Ok(true),
        Err(kube::Error::Api(e)) if e.code == 409 => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(identity: &str) -> LeaseSettings {
        LeaseSettings {
            namespace: "ns".into(),
            name: "policy-controller".into(),
            identity: identity.into(),
            duration: Duration::from_secs(15),
            retry: Duration::from_secs(2),
        }
    }

    fn wall(second: i64) -> MicroTime {
        MicroTime(k8s_openapi::jiff::Timestamp::from_second(second).unwrap())
    }

    fn holder(step: &Step) -> Option<String> {
        match step {
            Step::Create(l) | Step::Take(l) => l.spec.clone()?.holder_identity,
            Step::Follow => None,
        }
    }

    #[test]
    fn a_missing_lease_is_created_held_by_this_replica() {
        let s = settings("a");
        let step = step(None, &mut Observed::default(), &s, Instant::now(), wall(1));
        assert!(matches!(step, Step::Create(_)));
        assert_eq!(holder(&step).as_deref(), Some("a"));
    }

    #[test]
    fn a_lease_renewed_by_another_is_followed_and_taken_once_silent_for_its_duration() {
        let s = settings("b");
        let Step::Create(lease) = step(
            None,
            &mut Observed::default(),
            &settings("a"),
            Instant::now(),
            wall(1),
        ) else {
            panic!("not created");
        };
        let mut seen = Observed::default();
        let t0 = Instant::now();
        assert_eq!(step(Some(&lease), &mut seen, &s, t0, wall(2)), Step::Follow);
        let later = t0 + Duration::from_secs(14);
        assert_eq!(
            step(Some(&lease), &mut seen, &s, later, wall(16)),
            Step::Follow
        );
        let expired = t0 + Duration::from_secs(15);
        let taken = step(Some(&lease), &mut seen, &s, expired, wall(17));
        assert_eq!(holder(&taken).as_deref(), Some("b"));
        let Step::Take(taken) = taken else { panic!() };
        assert_eq!(taken.spec.unwrap().lease_transitions, Some(1));
    }

    #[test]
    fn a_renewal_restarts_the_followers_wait() {
        let s = settings("b");
        let Step::Create(mut lease) = step(
            None,
            &mut Observed::default(),
            &settings("a"),
            Instant::now(),
            wall(1),
        ) else {
            panic!("not created");
        };
        let mut seen = Observed::default();
        let t0 = Instant::now();
        step(Some(&lease), &mut seen, &s, t0, wall(1));
        lease.spec.as_mut().unwrap().renew_time = Some(wall(10));
        let t1 = t0 + Duration::from_secs(10);
        assert_eq!(
            step(Some(&lease), &mut seen, &s, t1, wall(10)),
            Step::Follow
        );
        let t2 = t0 + Duration::from_secs(20);
        assert_eq!(
            step(Some(&lease), &mut seen, &s, t2, wall(20)),
            Step::Follow
        );
    }

    #[test]
    fn the_holder_renews_its_own_lease_keeping_its_resource_version() {
        let s = settings("a");
        let Step::Create(mut lease) =
            step(None, &mut Observed::default(), &s, Instant::now(), wall(1))
        else {
            panic!("not created");
        };
        lease.metadata.resource_version = Some("7".into());
        let Step::Take(renewed) = step(
            Some(&lease),
            &mut Observed::default(),
            &s,
            Instant::now(),
            wall(5),
        ) else {
            panic!("not renewed");
        };
        assert_eq!(renewed.metadata.resource_version.as_deref(), Some("7"));
        let spec = renewed.spec.unwrap();
        assert_eq!(
            (spec.renew_time, spec.acquire_time),
            (Some(wall(5)), Some(wall(1)))
        );
    }

    #[test]
    fn a_released_lease_has_no_holder_and_is_taken_at_the_next_retry() {
        let a = settings("a");
        let t0 = Instant::now();
        let Step::Create(lease) = step(None, &mut Observed::default(), &a, t0, wall(0)) else {
            panic!("not created");
        };
        assert_eq!(released(&lease, &settings("b"), wall(1)), None);
        let given_up = released(&lease, &a, wall(1)).expect("a holds it");
        let spec = given_up.spec.clone().unwrap();
        assert_eq!(spec.holder_identity, None);
        assert_eq!(spec.lease_duration_seconds, Some(1));
        assert_eq!(spec.lease_transitions, Some(0));
        // Another replica that has followed it for a moment only takes it at once.
        let step = step(
            Some(&given_up),
            &mut Observed::default(),
            &settings("b"),
            t0,
            wall(1),
        );
        assert_eq!(holder(&step).as_deref(), Some("b"));
    }

    #[test]
    fn the_renew_deadline_ends_before_others_may_take_over() {
        let s = settings("a");
        assert!(s.renew_deadline() < s.duration);
    }
}
