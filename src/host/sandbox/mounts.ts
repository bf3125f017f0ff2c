/**
 * The filesystem a sandboxed command sees, as `bwrap` arguments. The host's root is bound read-only, with its
 * submounts. Over it:
 * - `/tmp` is a fresh tmpfs of a fixed size, writable, mode 1777: the only place the command can write, and it
 *   lives in the call's own mount namespace, so it is gone when the call ends;
 * - the hidden folders ({@link hiddenFolders}: `/home`, `/root`, the host user's home, `/run`, `/var/tmp`) are
 *   empty read-only tmpfs: no home files (keys, tokens, shell history), no sockets of the host's services (the
 *   Docker and D-Bus sockets live under `/run`), no secrets a container runtime mounts in `/run/secrets`;
 * - `/dev` is bwrap's minimal one (`null`, `zero`, `full`, `random`, `urandom`, `tty`, `pts`), read-only, and
 *   `/proc` is the call's own (its PID namespace's processes only), with `/proc/sys` read-only;
 * - the workspace is bound back, read-only, when it lies inside `/tmp` or a hidden folder.
 * A hidden folder inside the workspace (a workspace of `/`) stays hidden.
 *
 * Everything else stays readable, as the host user can read it: `/usr`, `/etc`, `/opt`, `/var` (but `/var/tmp`),
 * `/srv`, `/mnt`, `/media`, `/sys`, and the workspace. The namespaces: mount, PID, IPC, UTS, network (only a
 * loopback of its own), cgroup where the kernel has it, and user (the host's user mapped to itself; for a host
 * that is not root, `RLIMIT_NPROC` then counts the call's own processes), with no further user namespace. All capabilities are dropped, and the seccomp filter of
 * `seccomp.ts` (read from {@link SECCOMP_FD}) refuses Unix sockets.
 * @module
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { sep } from 'node:path';

/** The file descriptor bwrap writes its JSON status lines to (the runner's fourth stdio slot). */
export const STATUS_FD = 3;
/** The file descriptor bwrap reads the seccomp program from (`seccomp.ts`; the fifth slot). */
export const SECCOMP_FD = 4;

/** What {@link bwrapArgs} needs, resolved: real paths only. */
export interface MountPlan {
  /** The workspace's real path. */
  workspace: string;
  /** Real paths of existing folders to hide, none inside another ({@link hiddenFolders}). */
  hidden: readonly string[];
  /** Size of the private `/tmp` in bytes. */
  tmpBytes: number;
}

/** Whether `path` is `folder` or inside it (both absolute and normalised). */
export function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder === sep ? folder : folder + sep);
}

/**
 * The folders to hide, as real paths of existing folders, without one that lies inside another.
 * @param home the host user's home folder (`$HOME`), hidden wherever it is
 */
export function hiddenFolders(home: string | undefined): string[] {
  const candidates = ['/home', '/root', '/run', '/var/tmp', ...(home ? [home] : [])];
  const real: string[] = [];
  for (const folder of candidates) {
    try {
      if (!existsSync(folder) || !statSync(folder).isDirectory()) continue;
      const path = realpathSync(folder);
      // Hiding the root or a system folder would hide the programs themselves: only a plain folder qualifies.
      if (path === sep || ['/usr', '/etc', '/bin', '/lib', '/tmp', '/proc', '/dev'].includes(path)) continue;
      real.push(path);
    } catch {
      // unreadable: nothing to hide that the command could read either
    }
  }
  const unique = [...new Set(real)].sort();
  return unique.filter((f) => !unique.some((other) => other !== f && isInside(f, other)));
}

/** The `bwrap` arguments before the command (the command's argv follows `--`). */
export function bwrapArgs(plan: MountPlan): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  // bwrap leaves the fresh /proc/sys writable, and for a root host it is the host's kernel settings.
  args.push('--ro-bind', '/proc/sys', '/proc/sys');
  args.push('--perms', '1777', '--size', String(plan.tmpBytes), '--tmpfs', '/tmp');
  for (const folder of plan.hidden) args.push('--tmpfs', folder);
  const covered = ['/tmp', ...plan.hidden].some((folder) => isInside(plan.workspace, folder));
  if (covered) args.push('--ro-bind', plan.workspace, plan.workspace);
  for (const folder of plan.hidden) args.push('--remount-ro', folder);
  // bwrap's /dev is a tmpfs of unbounded size: read-only, it is no second place to write (devices still work).
  args.push('--remount-ro', '/dev');
  args.push('--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try');
  // A user namespace of its own, and no further ones inside: a nested user namespace would give the command
  // capabilities over mount namespaces of its own making (bwrap needs --unshare-user for --disable-userns).
  args.push('--unshare-user', '--disable-userns');
  // As root bwrap keeps every capability unless told: with CAP_SYS_ADMIN a command could unmount the hiding tmpfs.
  args.push('--cap-drop', 'ALL');
  args.push('--die-with-parent', '--new-session', '--chdir', plan.workspace);
  args.push('--json-status-fd', String(STATUS_FD), '--seccomp', String(SECCOMP_FD));
  return args;
}
