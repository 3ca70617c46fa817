// What a server costs, from Linux /proc: CPU time of all its threads and worker processes (live and
// exited) and its peak resident memory.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Clock ticks per second, the unit of utime and stime in /proc/PID/stat (`getconf CLK_TCK`; 100 on
 * Linux here, so a reading has 10 ms resolution). 100 if getconf is missing.
 */
export const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time of a process and its descendants (the server and its Lua worker processes), in clock ticks:
 * utime + stime of every thread, live or exited, plus cutime + cstime of children already reaped. The
 * kernel keeps each sum to the nanosecond and truncates it to ticks when read, so the CPU of a batch read
 * before and after it is within ±1 tick a process.
 */
export function cpuTicks(pid: number): number {
  const fields = statFields(pid);
  let ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  for (const child of childrenOf(pid)) ticks += cpuTicksOrZero(child);
  return ticks;
}

function cpuTicksOrZero(pid: number): number {
  try {
    return cpuTicks(pid);
  } catch {
    return 0; // exited meanwhile: its time is in its parent's cutime once reaped
  }
}

/** Fields after the command name, which is in parentheses and may hold spaces: state is the first here, utime (field 14) the 12th. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ')) if (child) children.push(Number(child));
    } catch {
      // the thread ended meanwhile
    }
  }
  return children;
}

/** The process and its live descendants. */
export function processTree(pid: number): number[] {
  return [pid, ...childrenOf(pid).flatMap((child) => processTree(child))];
}

/** Clock ticks to microseconds. */
export function ticksToMicroseconds(ticks: number): number {
  return (ticks * 1e6) / CLOCK_TICKS_PER_SECOND;
}

/** Peak resident memory of a process and its live descendants, summed (pages they share count once each). */
export function peakRssBytes(pid: number): number {
  let bytes = 0;
  for (const member of processTree(pid)) {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${member}/status`, 'utf8'));
      if (match) bytes += Number(match[1]) * 1024;
    } catch {
      // exited meanwhile
    }
  }
  return bytes;
}

/** The whole machine's CPU time from /proc/stat, in clock ticks: busy (all but idle, iowait and steal) and stolen by the hypervisor. */
export function machineTicks(): { busy: number; steal: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return { busy: user! + nice! + system! + irq! + softirq!, steal: steal ?? 0 };
}
