//! The daemon's heap given back to the system after each read and write. glibc keeps what a
//! program frees for its next allocations, and a document's transient copies (its YAML, the
//! parsed state, a request body) would otherwise stay resident between changes that may be
//! hours apart.

#[cfg(target_env = "gnu")]
unsafe extern "C" {
    /// glibc: releases free memory at the top of the heap and the free pages inside it.
    fn malloc_trim(pad: usize) -> i32;
}

/// Returns the heap's free memory to the system (a no-op off glibc).
pub fn give_back() {
    // SAFETY: malloc_trim only walks glibc's own heap structures, under its locks.
    #[cfg(target_env = "gnu")]
    unsafe {
        malloc_trim(0);
    }
}
