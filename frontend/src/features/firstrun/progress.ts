// The first run of `make up` (the quick studies, run by a local agent labelled firstrun=true), as
// the Overview tells it: the jobs done so far, then a link per study to its report.

/** What this module reads of an agent and of a job (the API's AgentRead and JobRead have more). */
export type AgentLike = { name: string; labels: Record<string, unknown>; revoked?: boolean };
export type JobLike = { status: string; spec: Record<string, unknown> };

export type StudyLink = { study: string; slug: string; exists: boolean; succeeded: number; total: number };

export type FirstRun =
  | { state: "none" }
  | { state: "running"; agent: string; done: number; failed: number; total: number; studies: string[] }
  | { state: "done"; agent: string; succeeded: number; failed: number; total: number; studies: StudyLink[] };

const FINAL: readonly string[] = ["succeeded", "failed", "cancelled", "expired"];

/** The first run's agent: the (unrevoked) agent labelled firstrun=true, if any. */
export function firstRunAgent<A extends AgentLike>(agents: readonly A[]): A | null {
  return agents.find((a) => a.labels.firstrun === "true" && !a.revoked) ?? null;
}

/** The study a job runs (its spec's `study` label), or null. */
export function studyOf(job: JobLike): string | null {
  const labels = job.spec.labels;
  if (!labels || typeof labels !== "object" || Array.isArray(labels)) return null;
  const study = (labels as Record<string, unknown>).study;
  return typeof study === "string" && study ? study : null;
}

/** The report slug a study's default report has: study-smallfiles-000. */
export function reportSlug(study: string): string {
  return `study-${study}`;
}

/** The seeds' order: smallfiles-000 before bonnie-001 (by the number at the end, then name). */
export function bySeed(a: string, b: string): number {
  const seed = (s: string) => Number(/(\d+)$/.exec(s)?.[1] ?? Infinity);
  return seed(a) - seed(b) || a.localeCompare(b);
}

/** Where the first run stands, from its agent's jobs and the reports' slugs. */
export function firstRunState(agent: string | null, jobs: readonly JobLike[], reportSlugs: readonly string[]): FirstRun {
  const mine = jobs.filter((j) => studyOf(j) !== null);
  if (agent === null || mine.length === 0) return { state: "none" };
  const order = [...new Set(mine.map((j) => studyOf(j) as string))].sort(bySeed);
  const final = mine.filter((j) => FINAL.includes(j.status));
  const failed = final.filter((j) => j.status !== "succeeded").length;
  if (final.length < mine.length) return { state: "running", agent, done: final.length, failed, total: mine.length, studies: order };
  const slugs = new Set(reportSlugs);
  const studies = order.map((study) => ({
    study,
    slug: reportSlug(study),
    exists: slugs.has(reportSlug(study)),
    succeeded: mine.filter((j) => studyOf(j) === study && j.status === "succeeded").length,
    total: mine.filter((j) => studyOf(j) === study).length,
  }));
  return { state: "done", agent, succeeded: final.length - failed, failed, total: mine.length, studies };
}

const WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];

/** "the five studies", "the study smallfiles-000". */
export function studiesText(studies: readonly string[]): string {
  if (studies.length === 1) return `the study ${studies[0]}`;
  return `the ${WORDS[studies.length] ?? studies.length} studies`;
}
