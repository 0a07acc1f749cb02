import { useEffect, useState } from "react";

/** The time now (ms), moving on every `ms`: for "12 s ago" texts that count on their own. */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
