import { durabilityBadges, type Facts } from "../durability";

export function DurabilityBadges({ run }: { run: Facts }) {
  const items = durabilityBadges(run);
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
