import { useEffect, useRef } from "react";

/** The log tail, monospace; it follows new lines unless the reader scrolled up to read. */
export function JobLog({ lines, final = false }: { lines: string[]; final?: boolean }) {
  const ref = useRef<HTMLPreElement>(null);
  const follow = useRef(true);
  useEffect(() => {
    const el = ref.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [lines]);
  if (lines.length === 0) return <p className="muted">{final ? "No log lines." : "No log lines yet."}</p>;
  return (
    <pre
      ref={ref}
      className="log"
      data-testid="job-log"
      onScroll={(e) => {
        const el = e.currentTarget;
        follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {lines.join("\n")}
    </pre>
  );
}
