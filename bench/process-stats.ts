// What a server process costs, from Linux /proc: CPU time of all its threads (live and exited) and its
// peak resident memory.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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
 * utime + stime of the whole process (every thread, including threads that have exited), in clock
 * ticks. The kernel keeps the sum to the nanosecond and truncates it to ticks when read, so the CPU of a
 * batch read before and after it is within ±1 tick.
 */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, so
  // utime (field 14) and stime (field 15) are the 12th and 13th here.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Clock ticks to microseconds. */
export function ticksToMicroseconds(ticks: number): number {
  return (ticks * 1e6) / CLOCK_TICKS_PER_SECOND;
}

export function peakRssBytes(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** The whole machine's CPU time from /proc/stat, in clock ticks: busy (all but idle, iowait and steal) and stolen by the hypervisor. */
export function machineTicks(): { busy: number; steal: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return { busy: user! + nice! + system! + irq! + softirq!, steal: steal ?? 0 };
}
