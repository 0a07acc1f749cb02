// How a run's attachments read on its page: sizes, short checksums, what each file is.
import { apiUrl } from "../../api/client";

/** Bytes in binary units, as `ls -h` would: 812 B, 1.5 KiB, 4.0 MiB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${bytes} B`;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** The first characters of a sha256, enough to tell files apart by eye (git's habit). */
export function shortSha(sha256: string, length = 12): string {
  return sha256.slice(0, length);
}

/** What the agent keeps under which name (README: attachments). */
export function attachmentKind(name: string): string {
  if (name === "command.txt") return "command line and checksums";
  if (name.startsWith("script-")) return "script";
  if (name === "stdout.txt" || name === "stderr.txt") return "tool output (tail)";
  if (name.startsWith("latencies")) return "raw per-operation latencies";
  return "";
}

/** The file name to save a download under: the attachment's, prefixed with the run's short uuid
 * so that files of several runs do not overwrite each other in a downloads folder. */
export function downloadName(runUuid: string, name: string): string {
  return `${runUuid.slice(0, 8)}-${name}`;
}

/** The run with its JSON and files as one zip (GET /runs/{uuid}/export). */
export function runExportUrl(runUuid: string): string {
  return apiUrl("/runs/{run_uuid}/export", { path: { run_uuid: runUuid } });
}
