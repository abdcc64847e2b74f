//! User-Mode Linux on a host whose XSAVE area is larger than UML knows.
//!
//! UML 6.1 moves a guest thread's FPU state with `PTRACE_{GET,SET}REGSET NT_X86_XSTATE` and a
//! buffer of `struct _xstate` (832 bytes: the legacy area, the header, AVX's upper halves). The
//! host kernel takes a `SETREGSET` only with its whole user XSAVE size, so on a CPU whose area is
//! larger (AVX-512, AMX) every guest `execve` fails ("ptrace set fp regs failed, errno = 14") and
//! init dies before it prints a line. UML decides once, at boot, whether to use that regset: by
//! whether `PTRACE_GETREGSET NT_X86_XSTATE` succeeds. On such a host the `linux` process gets a
//! seccomp filter, installed between fork and exec, that answers exactly that request with EIO;
//! UML then moves the x87 and SSE state with `PTRACE_{GET,SET}FPREGS`, which every x86-64 host
//! takes. AVX state is then not kept across the guest's thread switches, so the guest's glibc is
//! told not to use AVX ([`GUEST_GLIBC_TUNABLES`]); nothing else changes for the guest.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// `sizeof(struct _xstate)` on x86-64: the XSAVE area UML 6.1 moves.
const UML_XSTATE_SIZE: u32 = 832;

/// `PTRACE_GETREGSET`.
const PTRACE_GETREGSET: u32 = 0x4204;
/// `NT_X86_XSTATE`: the regset of the whole XSAVE area.
const NT_X86_XSTATE: u32 = 0x202;

/// The guest's glibc keeps to SSE in its string and memory functions (`glibc.cpu.hwcaps`).
pub const GUEST_GLIBC_TUNABLES: &str = "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-AVX512F,\
-AVX512VL,-AVX512BW,-AVX512DQ,-AVX_Fast_Unaligned_Load";

/// Whether this host's XSAVE area differs from the one UML moves (CPUID leaf 0xD, sub-leaf 0:
/// ECX is the size for every feature XCR0 can enable, the size the host kernel asks for).
pub fn host_area_differs() -> bool {
    host_area_size().is_some_and(|size| size != UML_XSTATE_SIZE)
}

#[cfg(target_arch = "x86_64")]
fn host_area_size() -> Option<u32> {
    // Leaf 0xD is read only where the CPU has it.
    let max_leaf = std::arch::x86_64::__cpuid(0).eax;
    (max_leaf >= 0xD).then(|| std::arch::x86_64::__cpuid_count(0xD, 0).ecx)
}

#[cfg(not(target_arch = "x86_64"))]
fn host_area_size() -> Option<u32> {
    None
}

/// Makes `cmd`'s process answer `PTRACE_GETREGSET NT_X86_XSTATE` with EIO, and only that.
pub fn without_xstate_regset(cmd: &mut Command) {
    // SAFETY: the closure runs in the child between fork and exec and makes only the two
    // async-signal-safe prctl calls, on memory it owns.
    unsafe {
        cmd.pre_exec(install_filter);
    }
}

/// The seccomp filter: `ptrace(PTRACE_GETREGSET, _, NT_X86_XSTATE, _)` fails with EIO.
fn install_filter() -> io::Result<()> {
    use libc::{
        BPF_ABS, BPF_JEQ, BPF_JMP, BPF_K, BPF_LD, BPF_RET, BPF_W, SECCOMP_RET_ALLOW,
        SECCOMP_RET_ERRNO,
    };
    let load = |offset: u32| stmt((BPF_LD | BPF_W | BPF_ABS) as u16, offset);
    let jump_unless = |value: u32, skip: u8| libc::sock_filter {
        code: (BPF_JMP | BPF_JEQ | BPF_K) as u16,
        jt: 0,
        jf: skip,
        k: value,
    };
    // seccomp_data: nr at 0, arch at 4, instruction pointer at 8, args from 16 (8 bytes each;
    // the low half first on little-endian x86-64).
    let filter = [
        load(0),
        jump_unless(libc::SYS_ptrace as u32, 5),
        load(16),
        jump_unless(PTRACE_GETREGSET, 3),
        load(16 + 2 * 8),
        jump_unless(NT_X86_XSTATE, 1),
        stmt(
            (BPF_RET | BPF_K) as u16,
            SECCOMP_RET_ERRNO | libc::EIO as u32,
        ),
        stmt((BPF_RET | BPF_K) as u16, SECCOMP_RET_ALLOW),
    ];
    let program = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr().cast_mut(),
    };
    // SAFETY: plain prctl calls; `program` outlives them and the kernel copies the filter.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            || libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &program as *const libc::sock_fprog,
            ) != 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    #[test]
    fn the_filter_refuses_only_the_xstate_regset() {
        // A child under the filter: ptrace(PTRACE_GETREGSET, pid 1, NT_X86_XSTATE) is EIO; the
        // same request for another regset (NT_PRSTATUS) goes to the kernel, which says ESRCH or
        // EPERM (no tracee), never EIO.
        let script = r#"
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def call(regset):
    libc.ptrace(0x4204, 1, regset, 0)
    return ctypes.get_errno()
print(call(0x202), call(1))
"#;
        let mut cmd = Command::new("python3");
        cmd.args(["-c", script]);
        super::without_xstate_regset(&mut cmd);
        let out = cmd.output().expect("python3");
        let text = String::from_utf8_lossy(&out.stdout);
        let errnos: Vec<i32> = text
            .split_whitespace()
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(errnos[0], libc::EIO, "{text}");
        assert_ne!(errnos[1], libc::EIO, "{text}");
    }
}
