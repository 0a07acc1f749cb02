// What a picker offers: stored values, each with the text people read (sizes in their units).
import { humanValue, unitOf } from "../../lib/units";
import { naturalSorted } from "../../lib/natural";

/** One offered value; `label` is shown beside it when it says more (128 KiB for 131072). */
export type Choice = { value: string; label?: string };

/** Plain names as choices, in natural order, once each. */
export function choicesOf(names: readonly string[]): Choice[] {
  return naturalSorted([...new Set(names.filter((n) => n !== ""))]).map((value) => ({ value }));
}

/** A dimension's stored values as choices, in the order given (the catalog's natural order),
 * a size or duration labelled in its unit. */
export function valueChoices(dimension: string, values: readonly string[]): Choice[] {
  const unit = unitOf(dimension);
  return [...new Set(values)].map((value) => {
    const human = unit ? humanValue(dimension, value) : value;
    return human !== value ? { value, label: human } : { value };
  });
}

/** Choices for a comma-separated field: what is typed before the last comma, then each choice
 * not already in it, so that the browser's list completes the last item ("4096, 13" offers
 * "4096, 131072"). */
export function commaCompletions(text: string, choices: readonly Choice[]): Choice[] {
  const done = text
    .split(",")
    .slice(0, -1)
    .map((s) => s.trim())
    .filter(Boolean);
  const head = done.length > 0 ? `${done.join(", ")}, ` : "";
  return choices.filter((c) => !done.includes(c.value)).map((c) => ({ ...c, value: head + c.value }));
}
