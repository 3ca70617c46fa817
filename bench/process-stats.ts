// Peak resident memory of a process (the kernel's high-water mark, Linux /proc).
import { readFileSync } from 'node:fs';

export function peakRssBytes(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}
