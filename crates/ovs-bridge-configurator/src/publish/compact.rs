//! The document as the publisher holds it until it is in the API: `status.currentState` as
//! compact JSON text, with what the status, the log and the write-only-on-change check need.
//! Parsed, the state of a node with many interfaces takes several times the memory of its
//! text, and the daemon holds a document from its read until it is written, as long as the API
//! server is away; the text is spliced into the request unparsed, so a write makes no copy of
//! the state beyond its body.

use std::time::SystemTime;

use super::document::{self, Document, Shortened, Versions};

/// A [`Document`] held as text.
#[derive(Debug, Clone)]
pub struct CompactDocument {
    current: String,
    interfaces: usize,
    versions: Versions,
    cut: Vec<Shortened>,
    fingerprint: u64,
}

impl From<Document> for CompactDocument {
    fn from(doc: Document) -> CompactDocument {
        let (current, versions, cut, fingerprint) = doc.into_parts();
        let interfaces = current["interfaces"].as_array().map_or(0, Vec::len);
        CompactDocument {
            current: current.to_string(),
            interfaces,
            versions,
            cut,
            fingerprint,
        }
    }
}

impl CompactDocument {
    /// [`Document::fingerprint`].
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// `status.currentState` parsed again (to lay a change over it).
    pub fn state(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(&self.current)
    }

    /// The versions it reports.
    pub fn versions(&self) -> &Versions {
        &self.versions
    }

    /// The interfaces in `status.currentState`.
    pub fn interfaces(&self) -> usize {
        self.interfaces
    }

    /// The length of `status.currentState` as JSON text.
    pub fn json_len(&self) -> usize {
        self.current.len()
    }

    /// [`Document::cut`].
    pub fn cut(&self) -> &[Shortened] {
        &self.cut
    }

    /// [`Document::status`] as JSON text.
    pub fn status_json(&self, at: SystemTime) -> String {
        let mut out = String::new();
        self.push_status(&mut out, at);
        out
    }

    /// [`document::status_update`] as JSON text: the request body of a status write.
    pub fn status_update_json(&self, node: &str, resource_version: &str, at: SystemTime) -> String {
        let metadata = serde_json::json!({"name": node, "resourceVersion": resource_version});
        let head = format!(
            "{{\"apiVersion\":\"{}\",\"kind\":\"{}\",\"metadata\":{metadata},\"status\":",
            document::API_VERSION,
            document::KIND,
        );
        let mut out = head;
        self.push_status(&mut out, at);
        out.push('}');
        out
    }

    /// Appends the status, sized once (the state is most of it).
    fn push_status(&self, out: &mut String, at: SystemTime) {
        let rest = document::status_besides_state(&self.versions, &self.cut, at).to_string();
        out.reserve(self.current.len() + rest.len() + 20);
        out.push_str("{\"currentState\":");
        out.push_str(&self.current);
        // `rest` is a non-empty object: `{"lastSuccessfulUpdateTime":...}`.
        out.push(',');
        out.push_str(&rest[1..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const STATE: &str = "interfaces:\n- name: ens3\n  type: ethernet\n  state: up\n\
                         - name: ens4\n  type: ethernet\n  state: down\n";

    fn versions(nm: Option<&str>) -> Versions {
        Versions {
            network_manager: nm.map(str::to_owned),
            nmstate: "2.2.62".into(),
        }
    }

    #[test]
    fn the_text_is_the_status_the_parsed_document_gives() {
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_795_000_000);
        for (nm, limit) in [(Some("1.52.0"), 1_000_000), (None, 60)] {
            let doc = Document::with_limit(STATE, versions(nm), limit).unwrap();
            let status = doc.status(at);
            let fingerprint = doc.fingerprint();
            let compact = CompactDocument::from(doc);
            let text: Value = serde_json::from_str(&compact.status_json(at)).unwrap();
            assert_eq!(text, status);
            assert_eq!(compact.fingerprint(), fingerprint);
        }
    }

    #[test]
    fn the_request_body_is_the_status_update_object() {
        let at = SystemTime::UNIX_EPOCH;
        let doc = Document::new(STATE, versions(Some("1.52.0"))).unwrap();
        let object = document::status_update("worker-0", "42", &doc, at);
        let compact = CompactDocument::from(doc);
        assert_eq!(compact.interfaces(), 2);
        let body: Value =
            serde_json::from_str(&compact.status_update_json("worker-0", "42", at)).unwrap();
        assert_eq!(body, object);
    }
}
