// Pieces of the schedule form: a field's errors, the parameter rows, the `when` inputs.
import { useId } from "react";
import { useChoiceList } from "../../../components/ui/ChoiceList";
import { commaCompletions } from "../../../components/ui/choices";
import { timeZones } from "../../../lib/time";
import { usePickers, type Pickers } from "../../explore";
import { CRON_PRESETS, describeCron, type WhenKind } from "../cron";
import { parseValues, type ParamRow, type ScheduleForm } from "../form";

export function FieldErrors({ messages, testId }: { messages: string[] | undefined; testId?: string }) {
  if (!messages || messages.length === 0) return null;
  return (
    <div className="field-error" role="alert" data-testid={testId}>
      {messages.join("; ")}
    </div>
  );
}

function ParamRowFields({
  row,
  index,
  pickers,
  set,
  onRemove,
}: {
  row: ParamRow;
  index: number;
  pickers: Pickers | undefined;
  set: (patch: Partial<ParamRow>) => void;
  onRemove: () => void;
}) {
  const n = parseValues(row.values, row.name).length;
  const [names, nameList] = useChoiceList(pickers?.parameters ?? [], `param-${index + 1}-name-choices`);
  const [values, valueList] = useChoiceList(
    commaCompletions(row.values, pickers?.values(row.name.trim(), "parameter") ?? []),
    `param-${index + 1}-value-choices`,
  );
  return (
    <div className="param-row">
      <input
        aria-label={`parameter ${index + 1} name`}
        placeholder="name (size)"
        value={row.name}
        onChange={(e) => set({ name: e.target.value })}
        list={names}
      />
      {nameList}
      <input
        aria-label={`parameter ${index + 1} values`}
        className="grow"
        placeholder="values, comma-separated (4k, 64k)"
        value={row.values}
        onChange={(e) => set({ values: e.target.value })}
        list={values}
      />
      {valueList}
      <span className="muted small sweep-note">{n > 1 ? `sweeps ${n} values` : n === 1 ? "fixed" : ""}</span>
      <button type="button" className="button small" aria-label={`remove parameter ${index + 1}`} onClick={onRemove}>
        ×
      </button>
    </div>
  );
}

/** Parameters as rows of name + comma-separated values; several values sweep. The names and
 * values the workload's runs have are offered (sizes in their units), any other typed. */
export function ParamRows({ rows, workload, onChange }: { rows: ParamRow[]; workload: string; onChange: (rows: ParamRow[]) => void }) {
  const pickers = usePickers(workload.trim()).data;
  const set = (i: number, patch: Partial<ParamRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div className="param-rows" data-testid="param-rows">
      {rows.map((row, i) => (
        <ParamRowFields
          key={i}
          row={row}
          index={i}
          pickers={workload.trim() ? pickers : undefined}
          set={(patch) => set(i, patch)}
          onRemove={() => onChange(rows.length > 1 ? rows.filter((_, j) => j !== i) : [{ name: "", values: "" }])}
        />
      ))}
      <button type="button" className="button small" onClick={() => onChange([...rows, { name: "", values: "" }])}>
        + parameter
      </button>
    </div>
  );
}

const KINDS: { kind: WhenKind; label: string }[] = [
  { kind: "now", label: "now" },
  { kind: "once", label: "once at…" },
  { kind: "cron", label: "repeatedly (cron)" },
];

/** Now, once at a local date and time, or a cron with presets; and the time zone they are read in. */
export function WhenFields({
  form,
  set,
  errors,
}: {
  form: ScheduleForm;
  set: (patch: Partial<ScheduleForm>) => void;
  errors: { when?: string[]; timezone?: string[] };
}) {
  const zonesId = useId();
  const words = form.whenKind === "cron" ? describeCron(form.cron) : null;
  return (
    <>
      <div className="segmented when-kind" role="radiogroup" aria-label="when">
        {KINDS.map((k) => (
          <label key={k.kind} className={form.whenKind === k.kind ? "on" : undefined}>
            <input type="radio" name="when-kind" value={k.kind} checked={form.whenKind === k.kind} onChange={() => set({ whenKind: k.kind })} />
            {k.label}
          </label>
        ))}
      </div>
      {form.whenKind === "now" && <p className="muted small">The jobs are queued as soon as you save.</p>}
      {form.whenKind === "once" && (
        <label className="field">
          <span>date and time (in {form.timezone || "the time zone below"})</span>
          <input type="datetime-local" value={form.onceAt} onChange={(e) => set({ onceAt: e.target.value })} data-testid="once-at" />
        </label>
      )}
      {form.whenKind === "cron" && (
        <>
          <div className="presets">
            {CRON_PRESETS.map((p) => (
              <button key={p.cron} type="button" className={`chip chip-add${form.cron.trim() === p.cron ? " on" : ""}`} onClick={() => set({ cron: p.cron })}>
                {p.label}
              </button>
            ))}
          </div>
          <label className="field">
            <span>cron: minute hour day-of-month month day-of-week</span>
            <input className="mono" value={form.cron} onChange={(e) => set({ cron: e.target.value })} placeholder="0 3 * * *" data-testid="cron" />
          </label>
          <p className="small muted" data-testid="cron-words">
            {words ? `${words}, ${form.timezone} time` : "a cron the preview checks"}
          </p>
        </>
      )}
      <FieldErrors messages={errors.when} testId="error-when" />
      <label className="field">
        <span>time zone</span>
        <input value={form.timezone} onChange={(e) => set({ timezone: e.target.value })} list={zonesId} data-testid="timezone" />
        <datalist id={zonesId}>
          {timeZones().map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
      </label>
      <FieldErrors messages={errors.timezone} testId="error-timezone" />
    </>
  );
}
