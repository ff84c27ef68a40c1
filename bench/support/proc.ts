/**
 * What a bench reads of a process from /proc (Linux): the CPU time it has used and its
 * resident memory. Shared by bench/load.ts and bench/rooms.ts.
 */
import { readFileSync } from "node:fs";

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux; clock ticks of 10 ms). */
export function cpuMsOf(pid: number, thread?: number): number {
  // The command name (field 2) may hold spaces; the fields after its closing ")" are fixed.
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the line, i.e. 11 and 12 after the state field.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Peak and current resident set of a process, from /proc (Linux). */
export function rssOf(pid: number): { peakMiB: number; nowMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? Number.NaN);
  return { peakMiB: kb("VmHWM") / 1024, nowMiB: kb("VmRSS") / 1024 };
}
