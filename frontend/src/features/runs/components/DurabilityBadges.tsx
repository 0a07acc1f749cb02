import type { RunSummary } from "../api/get-runs";

type Facts = Pick<RunSummary, "fsync_policy" | "o_direct" | "sync_mount" | "write_cache" | "cold_method">;

/** The durability facts in a few words; "unsafe" ones (no fsync, write cache on) stand out. */
export function DurabilityBadges({ run }: { run: Facts }) {
  const items: { text: string; warn?: boolean; title: string }[] = [];
  if (run.fsync_policy) items.push({ text: `fsync ${run.fsync_policy}`, warn: run.fsync_policy === "none", title: "fsync policy" });
  if (run.o_direct) items.push({ text: "O_DIRECT", title: "O_DIRECT I/O" });
  if (run.sync_mount) items.push({ text: "sync mount", title: "mounted with sync" });
  if (run.write_cache) items.push({ text: `write cache ${run.write_cache}`, warn: run.write_cache === "enabled", title: "device write cache" });
  if (run.cold_method) items.push({ text: `cold: ${run.cold_method}`, title: "how caches were made cold" });
  if (items.length === 0) return <span className="muted">not recorded</span>;
  return (
    <span className="badges">
      {items.map((i) => (
        <span key={i.text} className={i.warn ? "badge warn" : "badge"} title={i.title}>
          {i.text}
        </span>
      ))}
    </span>
  );
}
