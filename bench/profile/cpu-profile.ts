/**
 * The parts of a V8 .cpuprofile (from `node --cpu-prof`) the profile tools read, and reading
 * one from a file: one definition for bench/pipeline/profile-summary.ts and
 * bench/stalls/long-tasks.ts.
 */
import { readFileSync } from "node:fs";

export interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
  columnNumber: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds since the previous sample. */
  timeDeltas: number[];
}

export function readCpuProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
}
