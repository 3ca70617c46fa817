// Resident memory and CPU time of a process, read from /proc (Linux): peak RSS while a case runs, and
// how busy the server was (a server near 100% of one core is saturated; far below it, the load
// generator was the limit).
import { readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

export function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** Peak RSS over the process's whole life (the kernel's high-water mark). */
export function peakRssBytes(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** User + system CPU seconds used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

export interface Sampled<T> {
  result: T;
  peakRss: number;
  /** CPU seconds used per wall second (1 = one core fully busy). */
  cpuCores: number;
  /** The same for this process (the load generator). */
  generatorCpuCores: number;
}

/** Runs `work` while sampling the RSS of `pids` (summed) every 50 ms. */
export async function sampled<T>(pids: number[], work: () => Promise<T>): Promise<Sampled<T>> {
  const total = () => pids.reduce((sum, pid) => sum + rssBytes(pid), 0);
  const cpu = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  let peakRss = total();
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, total());
  }, 50);
  const cpuStart = cpu();
  const generatorStart = process.cpuUsage();
  const started = performance.now();
  try {
    const result = await work();
    peakRss = Math.max(peakRss, total());
    const wallSeconds = (performance.now() - started) / 1000;
    const generator = process.cpuUsage(generatorStart);
    return { result, peakRss, cpuCores: (cpu() - cpuStart) / wallSeconds, generatorCpuCores: (generator.user + generator.system) / 1e6 / wallSeconds };
  } finally {
    clearInterval(timer);
  }
}
