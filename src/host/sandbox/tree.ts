/**
 * The processes of a call, by identity: a pid together with its start time (`/proc/PID/stat`), so that a pid
 * the kernel has since given to another process is never waited for or killed in the call's name.
 *
 * Why the runner needs more than killing bwrap: bwrap's first process inside the namespace arms
 * `--die-with-parent` only once its setup is done. Killed during setup, bwrap would leave that process behind,
 * blocked or, worse, going on to start the command with nobody to end it. So the runner kills bwrap's process
 * group (which holds that process until its `--new-session`) and that process itself by identity (bwrap reports
 * its pid on the status descriptor before letting it run).
 * @module
 */
import { readFileSync } from 'node:fs';

/** A process by pid and start time. */
export interface ProcessIdentity {
  pid: number;
  /** Clock ticks after boot at which it started (field 22 of `/proc/PID/stat`). */
  start: string;
}

/** The state and start time of a pid, or undefined when there is no such process. */
function stat(pid: number): { state: string; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may itself hold spaces and parentheses: read from the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** The identity of a running pid, or undefined when it is gone. */
export function identify(pid: number): ProcessIdentity | undefined {
  const found = stat(pid);
  return found && found.state !== 'Z' ? { pid, start: found.start } : undefined;
}

/** Whether that very process still runs (present, same start time, not a zombie). */
export function isRunning(process: ProcessIdentity): boolean {
  const found = stat(process.pid);
  return found !== undefined && found.start === process.start && found.state !== 'Z';
}

/** SIGKILL to that very process, if it still runs. */
export function killProcess(target: ProcessIdentity): void {
  if (!isRunning(target)) return;
  try {
    process.kill(target.pid, 'SIGKILL');
  } catch {
    // gone between the check and the kill
  }
}

/** SIGKILL to a process group (a negative pid), if any member is left. */
export function killGroup(leader: number): void {
  try {
    process.kill(-leader, 'SIGKILL');
  } catch {
    // no member left
  }
}

/**
 * Waits until a process is gone, at a 1 ms grain, at most `attempts` times. For the first process of a PID
 * namespace, gone means the whole namespace is: the kernel lets it finish exiting only after every other one.
 */
export async function waitGone(target: ProcessIdentity, attempts = 5000): Promise<void> {
  for (let i = 0; i < attempts && isRunning(target); i++) await new Promise((r) => setTimeout(r, 1));
}
