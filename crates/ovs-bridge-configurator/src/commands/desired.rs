//! The desired state a command reads: a file, or stdin for `-`.

use std::path::Path;

use selection::app::UsageError;

use crate::nmstate::live::Desired;

/// The desired state named on the command line: a file, or stdin for `-`. Unreadable is a
/// usage error (exit 2).
pub fn read_desired(file: &Path) -> anyhow::Result<Desired> {
    let (origin, content) = if file == Path::new("-") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| UsageError(format!("cannot read stdin: {e}")))?;
        ("stdin".to_owned(), text)
    } else {
        let text = std::fs::read_to_string(file)
            .map_err(|e| UsageError(format!("cannot read {}: {e}", file.display())))?;
        (file.display().to_string(), text)
    };
    Ok(Desired { origin, content })
}
