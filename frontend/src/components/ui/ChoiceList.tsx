import { useId, type ReactNode } from "react";
import type { Choice } from "./choices";

/** A datalist of choices for an `<input list=…>`: the browser offers them as the field is typed
 * in or on arrow down, and any other text can still be typed. Returns the list's id (undefined
 * when there is nothing to offer) and the element to render beside the input. */
export function useChoiceList(choices: readonly Choice[], testId?: string): [string | undefined, ReactNode] {
  const id = useId();
  if (choices.length === 0) return [undefined, null];
  return [
    id,
    <datalist id={id} key={id} data-testid={testId}>
      {choices.map((c) => (
        <option key={c.value} value={c.value} label={c.label} />
      ))}
    </datalist>,
  ];
}
