use std::process::ExitCode;

use clap::Parser;
use keepalived_monitor::cli::Cli;

/// Large buffers (a 5,000-node keepalived.conf, a page of the Node list) get mappings of their
/// own, returned to the kernel when freed: otherwise glibc raises its mmap threshold (up to
/// 32 MiB) after the first such free and they stay in the heap for good.
fn bound_the_heap() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only tunes the allocator; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 * 1024);
    }
}

fn main() -> ExitCode {
    bound_the_heap();
    let cli = Cli::parse();
    selection::logging::init(&cli.verbosity, false);
    selection::app::exit("keepalived-monitor", keepalived_monitor::run(&cli))
}
