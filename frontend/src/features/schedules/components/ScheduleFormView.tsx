import { useMemo, useState } from "react";
import { ApiError } from "../../../api/client";
import { useChoiceList } from "../../../components/ui/ChoiceList";
import { ChipsInput } from "../../../components/ui/ChipsInput";
import { commaCompletions } from "../../../components/ui/choices";
import { WriteError } from "../../../components/ui/WriteError";
import { useDebounced } from "../../../lib/use-debounced";
import { isTimeZone } from "../../../lib/time";
import { useAgents } from "../../agents";
import { usePickers } from "../../explore";
import type { Schedule } from "../api/get-schedules";
import { usePreview } from "../api/preview-schedule";
import { useSaveSchedule } from "../api/write-schedule";
import { groupFieldErrors } from "../field-errors";
import { createBody, missing, previewBody, sweepCount, specFromForm, updateBody, type ScheduleForm } from "../form";
import { parseSelectorItem, selectorSuggestions } from "../selector";
import { FieldErrors, ParamRows, WhenFields } from "./FormParts";
import { PreviewPanel } from "./PreviewPanel";

function selectorCheck(item: string): string | null {
  const parsed = parseSelectorItem(item);
  return typeof parsed === "string" ? parsed : null;
}

/** Create or edit a schedule. The preview is asked as the form changes; Save waits for the
 * preview of what the form says now, so what is saved is what was previewed. */
export function ScheduleFormView({
  initial,
  id,
  onSaved,
  onCancel,
}: {
  initial: ScheduleForm;
  id: number | null;
  onSaved: (s: Schedule) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState(initial);
  const save = useSaveSchedule();
  const set = (patch: Partial<ScheduleForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    if (save.error) save.reset();
  };
  const agents = useAgents();
  const [workloads, workloadList] = useChoiceList(usePickers("").data?.workloads ?? [], "workload-choices");
  // the labels the workload's runs have, as name=value, completing the last of the list
  const stored = usePickers(form.workload.trim()).data;
  const labelPairs = form.workload.trim()
    ? (stored?.dimensions ?? []).filter((d) => d.kind === "label").flatMap((d) => d.values.map((v) => ({ value: `${d.name}=${v}` })))
    : [];
  const [labelsList, labelChoices] = useChoiceList(commaCompletions(form.labels, labelPairs), "labels-choices");
  const suggestions = useMemo(() => selectorSuggestions(agents.data ?? []), [agents.data]);

  const spec = specFromForm(form);
  const lacking = missing(form);
  const localZoneError = form.timezone.trim() && !isTimeZone(form.timezone.trim()) ? `“${form.timezone}” is not a time zone this browser knows` : null;
  const body = lacking.length === 0 ? previewBody(form, spec) : null;
  const bodyKey = JSON.stringify(body);
  const settledKey = useDebounced(bodyKey, 400);
  const settled = useMemo(() => JSON.parse(settledKey) as ReturnType<typeof previewBody> | null, [settledKey]);
  const preview = usePreview(settled);
  const fresh = settledKey === bodyKey && !preview.isPlaceholderData && !preview.isFetching;

  const fieldErrors = groupFieldErrors([
    ...(preview.error instanceof ApiError && preview.error.status === 422 && fresh ? preview.error.fields : []),
    ...(save.error instanceof ApiError && save.error.status === 422 ? save.error.fields : []),
  ]);
  const uniq = (m: string[] | undefined) => (m ? [...new Set(m)] : m);
  const errs = (k: keyof typeof fieldErrors) => uniq(fieldErrors[k]);
  const canSave = fresh && preview.isSuccess && !preview.isError && form.name.trim() !== "" && !save.isPending;
  const points = sweepCount(spec.targets.length, spec.params ?? {});

  return (
    <form
      className="schedule-form"
      data-testid="schedule-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!canSave) return;
        if (id === null) save.mutate({ id: null, body: createBody(form) }, { onSuccess: onSaved });
        else save.mutate({ id, body: updateBody(initial, form) }, { onSuccess: onSaved });
      }}
    >
      <div className="grid-2">
        <div className="stack">
          <section className="card">
            <h2>What to run</h2>
            <label className="field">
              <span>name</span>
              <input value={form.name} onChange={(e) => set({ name: e.target.value })} maxLength={128} placeholder="nightly smallfile" data-testid="name" />
            </label>
            <FieldErrors messages={errs("name")} testId="error-name" />
            <label className="field">
              <span>workload</span>
              <input
                value={form.workload}
                onChange={(e) => set({ workload: e.target.value })}
                list={workloads}
                placeholder="smallfile"
                className="mono"
                data-testid="workload"
              />
              {workloadList}
            </label>
            <FieldErrors messages={errs("workload")} testId="error-workload" />
            <div className="field">
              <span>targets (directories on the test machine; each is measured)</span>
              <ChipsInput
                label="targets"
                values={form.targets}
                onChange={(targets) => set({ targets })}
                placeholder="/mnt/ext4/bench, then Enter"
                testId="targets"
              />
            </div>
            <FieldErrors messages={errs("targets")} testId="error-targets" />
            <div className="field">
              <span>parameters</span>
              <ParamRows rows={form.params} workload={form.workload} onChange={(params) => set({ params })} />
            </div>
            <FieldErrors messages={errs("params")} testId="error-params" />
            <p className="small muted" data-testid="sweep-count">
              {spec.targets.length} target{spec.targets.length === 1 ? "" : "s"} × the sweep = {points} run{points === 1 ? "" : "s"} per agent, each repeated{" "}
              {spec.repetitions} times
            </p>
            <div className="form-row">
              <label className="field small-input">
                <span>repetitions</span>
                <input
                  type="number"
                  min={1}
                  max={1000}
                  value={form.repetitions}
                  onChange={(e) => set({ repetitions: e.target.value })}
                  data-testid="repetitions"
                />
              </label>
              <label className="field small-input">
                <span>min seconds per sample</span>
                <input
                  type="number"
                  min={0}
                  max={3600}
                  step="any"
                  value={form.minSeconds}
                  onChange={(e) => set({ minSeconds: e.target.value })}
                  data-testid="min-seconds"
                />
              </label>
              <label className="field grow">
                <span>labels on every run</span>
                <input
                  value={form.labels}
                  onChange={(e) => set({ labels: e.target.value })}
                  placeholder="version=1.2, build=nightly"
                  className="mono"
                  data-testid="labels"
                  list={labelsList}
                />
                {labelChoices}
              </label>
            </div>
            <FieldErrors messages={[...(errs("repetitions") ?? []), ...(errs("min_seconds") ?? []), ...(errs("labels") ?? [])]} testId="error-spec" />
          </section>
          <section className="card">
            <h2>Where</h2>
            <p className="small muted">Agent names and label=value: an agent matches when it is one of the names given (if any) and has every label given.</p>
            <ChipsInput
              label="agents"
              values={form.agents}
              onChange={(a) => set({ agents: a })}
              placeholder="lab-1 or role=nightly, then Enter"
              suggestions={suggestions}
              offer={suggestions.length > 0 ? "enrolled:" : undefined}
              check={selectorCheck}
              testId="agents"
            />
            <FieldErrors messages={errs("agents")} testId="error-agents" />
          </section>
          <section className="card">
            <h2>When</h2>
            <WhenFields
              form={form}
              set={set}
              errors={{ when: errs("when"), timezone: localZoneError ? [localZoneError, ...(errs("timezone") ?? [])] : errs("timezone") }}
            />
            <label className="check">
              <input type="checkbox" checked={form.paused} onChange={(e) => set({ paused: e.target.checked })} /> paused (saved, but fires only when resumed)
            </label>
          </section>
        </div>
        <div className="stack form-side">
          <section className="card">
            <h2>Preview</h2>
            <PreviewPanel preview={preview} missing={lacking} fresh={fresh} timezone={form.timezone} />
          </section>
          <section className="card">
            <FieldErrors messages={errs("other")} testId="error-other" />
            <div className="actions">
              <button type="submit" className="button primary" disabled={!canSave} data-testid="save-schedule">
                {id === null ? (form.whenKind === "now" && !form.paused ? "Create and run now" : "Create schedule") : "Save changes"}
              </button>
              <button type="button" className="button" onClick={onCancel}>
                Cancel
              </button>
            </div>
            {!canSave && !save.isPending && (
              <p className="small muted">
                {!form.name.trim() ? "Give it a name. " : ""}
                {fresh && preview.isSuccess ? "" : "Saving waits for the preview of what the form says."}
              </p>
            )}
            {save.error && !(save.error instanceof ApiError && save.error.status === 422) && (
              <WriteError error={save.error} scope="admin" action="Saving a schedule" />
            )}
            {save.error instanceof ApiError && save.error.status === 422 && <p className="error-text">Not saved: see the fields marked in red.</p>}
          </section>
        </div>
      </div>
    </form>
  );
}
