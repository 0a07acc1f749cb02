import { useState } from "react";

/** The pages of a cursor-paged list walked in place (kept in the component, not the address):
 * the cursors so far ("" for the newest page), the one shown, and how deep it is. */
export type CursorStack = {
  cursor: string;
  depth: number;
  older: (next: string) => void;
  newer: () => void;
  reset: () => void;
};

export function useCursorStack(): CursorStack {
  const [cursors, setCursors] = useState<string[]>([""]);
  return {
    cursor: cursors[cursors.length - 1] ?? "",
    depth: cursors.length - 1,
    older: (next) => setCursors((c) => [...c, next]),
    newer: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
    reset: () => setCursors([""]),
  };
}

/** "← Newer" back up the stack, and "Older →" to the page at `next` when there is one. */
export function CursorPager({ stack, next }: { stack: CursorStack; next: string | null | undefined }) {
  return (
    <div className="pager">
      {stack.depth > 0 && (
        <button type="button" className="button small" onClick={stack.newer}>
          ← Newer
        </button>
      )}
      {next && (
        <button type="button" className="button small" onClick={() => stack.older(next)}>
          Older →
        </button>
      )}
    </div>
  );
}
