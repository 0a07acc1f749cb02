import { describe, expect, it } from "vitest";
import { groupFieldErrors, formField } from "./field-errors";
import {
  createBody,
  emptyForm,
  formFromSchedule,
  missing,
  updateBody,
  paramsFromRows,
  parseLabels,
  parseValue,
  rowsFromParams,
  sweepCount,
  whenFromForm,
  type ScheduleRead,
} from "./form";

describe("parameter rows", () => {
  it("types values: whole and decimal numbers are numbers, the rest text", () => {
    expect(parseValue(" 1000 ")).toBe(1000);
    expect(parseValue("-3")).toBe(-3);
    expect(parseValue("0.5")).toBe(0.5);
    expect(parseValue("4k")).toBe("4k");
    expect(parseValue("auto")).toBe("auto");
    expect(parseValue("1.2.3")).toBe("1.2.3");
  });

  it("sweeps comma-separated values and keeps a single one as a value", () => {
    const params = paramsFromRows([
      { name: "size", values: "4k, 64k,1m" },
      { name: "count", values: "1000" },
      { name: "threads", values: "1,2" },
      { name: "", values: "ignored" },
      { name: "blank", values: " , " },
    ]);
    expect(params).toEqual({ size: ["4k", "64k", "1m"], count: 1000, threads: [1, 2] });
    expect(rowsFromParams(params)).toEqual([
      { name: "size", values: "4k, 64k, 1m" },
      { name: "count", values: "1000" },
      { name: "threads", values: "1, 2" },
    ]);
  });

  it("keeps a command's commas: cmd, archive and jobfile are one value each, as the agent takes them", () => {
    const cmd = `echo '{"read": 1, "write": 2}'`;
    const params = paramsFromRows([
      { name: "cmd", values: ` ${cmd} ` },
      { name: "archive", values: "linux,2.6.tar" },
      { name: "jobfile", values: "/etc/fio/a,b.fio" },
      { name: "k", values: "1, 2" },
    ]);
    expect(params).toEqual({ cmd, archive: "linux,2.6.tar", jobfile: "/etc/fio/a,b.fio", k: [1, 2] });
    expect(sweepCount(1, params)).toBe(2);
    expect(paramsFromRows(rowsFromParams(params))).toEqual(params); // an edit gives it back as it was
    expect(paramsFromRows([{ name: "cmd", values: "  " }])).toEqual({});
  });

  it("counts the runs per agent as targets × the product of the sweeps, like WorkloadSpec.points()", () => {
    const params = { size: ["4k", "64k", "1m"], count: 1000, threads: [1, 2] };
    // an independent count: every combination written out
    const combos: string[] = [];
    for (const target of ["/mnt/a", "/mnt/b"]) for (const size of params.size) for (const t of params.threads) combos.push(`${target} ${size} ${t}`);
    expect(sweepCount(2, params)).toBe(combos.length);
    expect(sweepCount(2, params)).toBe(12);
    expect(sweepCount(1, {})).toBe(1);
    expect(sweepCount(0, { a: [1, 2] })).toBe(0);
  });
});

describe("labels", () => {
  it("reads k=v pairs separated by commas or spaces", () => {
    expect(parseLabels("version=1.2, build=nightly disk=nvme")).toEqual({ version: "1.2", build: "nightly", disk: "nvme" });
    expect(parseLabels("junk, =x, ok=")).toEqual({ ok: "" });
  });
});

describe("the form and the API bodies", () => {
  it("builds the create body: spec, selector, when and zone", () => {
    const form = {
      ...emptyForm("Europe/Paris"),
      name: " nightly ",
      workload: "smallfile",
      targets: ["/mnt/a", " "],
      params: [{ name: "size", values: "4k,64k" }],
      repetitions: "5",
      labels: "version=1.2",
      minSeconds: "1",
      agents: ["role=nightly"],
      cron: " 0  3 * * * ",
    };
    expect(createBody(form)).toEqual({
      name: "nightly",
      spec: {
        workload: "smallfile",
        targets: ["/mnt/a"],
        params: { size: ["4k", "64k"] },
        repetitions: 5,
        labels: { version: "1.2" },
        min_seconds: 1,
        warmup: true,
      },
      agents: ["role=nightly"],
      when: "cron:0 3 * * *",
      timezone: "Europe/Paris",
      paused: false,
    });
    expect(whenFromForm({ ...form, whenKind: "now" })).toBe("now");
    expect(whenFromForm({ ...form, whenKind: "once", onceAt: "2026-12-01T06:00" })).toBe("2026-12-01T06:00");
  });

  it("edits a schedule: the form from it gives back the same body", () => {
    const s = {
      id: 1,
      name: "nightly",
      when: "cron:0 6 * * 1-5",
      timezone: "America/New_York",
      paused: true,
      agents: ["lab-1", "disk=nvme"],
      spec: {
        workload: "seqio",
        targets: ["/mnt/x", "/mnt/y"],
        params: { bs: ["4k", "1m"], count: 10 },
        repetitions: 2,
        labels: { v: "1" },
        min_seconds: 0.5,
        warmup: true,
      },
    } as unknown as ScheduleRead;
    const form = formFromSchedule(s);
    expect(form.whenKind).toBe("cron");
    expect(form.cron).toBe("0 6 * * 1-5");
    expect(createBody(form)).toEqual({ name: s.name, spec: s.spec, agents: s.agents, when: s.when, timezone: s.timezone, paused: true });
    const once = formFromSchedule({ ...s, when: "2026-12-01T06:00:00" });
    expect(once.whenKind).toBe("once");
    expect(once.onceAt).toBe("2026-12-01T06:00");
  });

  it("patches only what an edit changed", () => {
    const before = { ...emptyForm("UTC"), name: "a", workload: "w", targets: ["/t"], agents: ["x"], whenKind: "now" as const };
    expect(updateBody(before, before)).toEqual({});
    expect(updateBody(before, { ...before, name: "b" })).toEqual({ name: "b" });
    expect(updateBody(before, { ...before, params: [{ name: "n", values: "1,2" }] })).toEqual({
      spec: { workload: "w", targets: ["/t"], params: { n: [1, 2] }, repetitions: 3, labels: {}, min_seconds: 0.5, warmup: true },
    });
    expect(updateBody(before, { ...before, whenKind: "cron", timezone: "Europe/Paris" })).toEqual({ when: "cron:0 3 * * *", timezone: "Europe/Paris" });
  });

  it("says what is missing before a preview", () => {
    expect(missing(emptyForm("UTC"))).toEqual(["a workload", "a target", "an agent selector"]);
    expect(missing({ ...emptyForm("UTC"), workload: "w", targets: ["/t"], agents: ["a"], whenKind: "once" })).toEqual(["a date and time"]);
  });
});

describe("422 fields to form inputs", () => {
  it("maps the API's paths to the inputs", () => {
    expect(formField("body.when")).toBe("when");
    expect(formField("body.timezone")).toBe("timezone");
    expect(formField("body.spec.targets[0]")).toBe("targets");
    expect(formField("body.spec.workload")).toBe("workload");
    expect(formField("body.spec.params.size")).toBe("params");
    expect(formField("body.spec")).toBe("params");
    expect(formField("body.agents[1]")).toBe("agents");
    expect(formField("body.name")).toBe("name");
    expect(formField("body.spec.warmup")).toBe("other");
    expect(formField("query.x")).toBe("other");
  });

  it("groups messages by input, naming the field for the rest", () => {
    expect(
      groupFieldErrors([
        { field: "body.when", message: "in the past" },
        { field: "body.when", message: "again" },
        { field: "body.spec.warmup", message: "bad" },
      ]),
    ).toEqual({ when: ["in the past", "again"], other: ["spec.warmup: bad"] });
  });
});
