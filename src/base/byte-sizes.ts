/** Byte counts as people read them, in every answer and report that names a size. */
import { NBSP } from "./text.js";

/** "512 B", "1.5 KiB", "2.0 MiB", a no-break space between number and unit (base/text.ts NBSP). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes}${NBSP}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}${NBSP}KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)}${NBSP}MiB`;
}
