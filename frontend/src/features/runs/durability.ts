import type { RunSummary } from "./api/get-runs";

export type Facts = Pick<RunSummary, "fsync_policy" | "o_direct" | "sync_mount" | "write_cache" | "cold_method"> &
  Partial<Pick<RunSummary, "memory_backed" | "flush_to_device">>;

export type Badge = { text: string; warn?: boolean; title: string };

/** The durability facts in a few words. What makes a result not durable stands out: memory
 * media, flushes that never reach the device, no fsync at all. A write-back cache whose flushes
 * are honoured is the normal, safe case and is not marked. */
export function durabilityBadges(run: Facts): Badge[] {
  const items: Badge[] = [];
  if (run.memory_backed)
    items.push({ text: "on memory", warn: true, title: "the target is memory (tmpfs, ramfs): nothing written is durable, and an fsync flushes nothing" });
  if (run.fsync_policy)
    items.push({ text: `fsync ${run.fsync_policy}`, warn: run.fsync_policy === "none", title: "fsync policy: none, per file, once at the end" });
  if (run.o_direct) items.push({ text: "O_DIRECT", title: "O_DIRECT I/O" });
  if (run.sync_mount) items.push({ text: "sync mount", title: "mounted with sync" });
  if (run.write_cache) items.push({ text: `write cache: ${run.write_cache}`, title: "the kernel's write-cache mode for the device" });
  if (run.flush_to_device === false && !run.memory_backed) {
    items.push({
      text: "flushes dropped",
      warn: true,
      title: "flushes do not reach stable storage (a volatile cache in write-through mode): the unsafe service of seed 004",
    });
  } else if (run.flush_to_device === true) {
    items.push({ text: "flushes reach the device", title: "an fsync reaches stable storage" });
  }
  if (run.cold_method) items.push({ text: `cold: ${run.cold_method}`, title: "how caches were made cold" });
  return items;
}
