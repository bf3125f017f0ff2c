/**
 * The seccomp filter of a sandboxed call, as the classic BPF program bwrap loads (`--seccomp FD`): `socket()` for
 * Unix sockets fails with EPERM, and so does `io_uring_setup()` (io_uring can open sockets without the `socket`
 * system call). So do `memfd_create()` and `shmget()`: memory held in a memfd or a System V segment is not mapped,
 * so `RLIMIT_AS` does not count it, and one process could hold many times its limit until the call ends (`/tmp`,
 * the other place for such memory, is a tmpfs of a fixed size; `/dev/shm` is read-only). The network namespace
 * already leaves only a loopback of the call's own, and abstract Unix sockets are per network namespace; what it
 * leaves open is a socket file on the read-only filesystem (a service's socket outside the hidden folders, a socket
 * in the workspace), which `connect()` reaches whatever the mount says. Other architectures' system calls (32-bit
 * x86 through `int 0x80`, x32) end the process: their numbers differ, so this program would not see them.
 * @module
 */

/** The architectures the filter knows: `AUDIT_ARCH_*` and their numbers of the system calls it names. */
const ARCHES: Readonly<
  Record<string, { audit: number; socket: number; memfdCreate: number; shmget: number }>
> = {
  x64: { audit: 0xc000003e, socket: 41, memfdCreate: 319, shmget: 29 },
  arm64: { audit: 0xc00000b7, socket: 198, memfdCreate: 279, shmget: 194 },
};

/** `io_uring_setup`, numbered alike on every architecture (new system calls share their numbers). */
const IO_URING_SETUP = 425;
const AF_UNIX = 1;
const X32_SYSCALL_BIT = 0x40000000;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
const RET_KILL_PROCESS = 0x80000000;

/** Offsets in `struct seccomp_data`: the system call number, the architecture, the first argument (low half). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

/**
 * The filter for an architecture, as the bytes of its `struct sock_filter` array, or undefined for an
 * architecture it does not know.
 * @param arch Node's name for it (`process.arch`)
 */
export function seccompFilter(arch: string = process.arch): Buffer | undefined {
  const known = ARCHES[arch];
  if (known === undefined) return undefined;
  // [code, jump if true, jump if false, k]; a jump counts the instructions it skips.
  const program: [number, number, number, number][] = [
    /* 0 */ [LD_W_ABS, 0, 0, ARCH],
    /* 1 */ [JEQ_K, 0, 10, known.audit], // another architecture: kill (12)
    /* 2 */ [LD_W_ABS, 0, 0, NR],
    /* 3 */ [JGE_K, 8, 0, X32_SYSCALL_BIT], // x32: kill (12)
    /* 4 */ [JEQ_K, 6, 0, IO_URING_SETUP], // deny (11)
    /* 5 */ [JEQ_K, 5, 0, known.memfdCreate], // deny (11)
    /* 6 */ [JEQ_K, 4, 0, known.shmget], // deny (11)
    /* 7 */ [JEQ_K, 0, 2, known.socket], // not socket: allow (10)
    /* 8 */ [LD_W_ABS, 0, 0, ARG0],
    /* 9 */ [JEQ_K, 1, 0, AF_UNIX], // deny (11), else allow (10)
    /* 10 */ [RET_K, 0, 0, RET_ALLOW],
    /* 11 */ [RET_K, 0, 0, RET_EPERM],
    /* 12 */ [RET_K, 0, 0, RET_KILL_PROCESS],
  ];
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}
