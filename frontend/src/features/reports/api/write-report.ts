// Report writes (a person's token: upload or admin): create, change, add a block, delete.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiSend, type ApiBody } from "../../../api/client";
import type { Block } from "../blocks";
import { getReport, type Report } from "./get-report-data";
import { reportKeys } from "../../../api/query-keys";

export type ReportCreate = ApiBody<"/reports", "post">;
export type ReportUpdate = ApiBody<"/reports/{slug}", "patch">;

function useReportMutation<V, T>(send: (vars: V) => Promise<T>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: send, onSuccess: () => client.invalidateQueries({ queryKey: reportKeys.all }) });
}

export function useCreateReport() {
  return useReportMutation((body: ReportCreate) => apiSend("POST", "/reports", { body }));
}

export function useUpdateReport() {
  return useReportMutation(({ slug, body }: { slug: string; body: ReportUpdate }) => apiSend("PATCH", "/reports/{slug}", { path: { slug }, body }));
}

export function useDeleteReport() {
  return useReportMutation((slug: string) => apiSend("DELETE", "/reports/{slug}", { path: { slug } }));
}

/** A block added at the end of a report, new (slug and title) or existing (its current blocks first). */
export function useAddBlock() {
  return useReportMutation(async ({ slug, title, block }: { slug: string; title: string | null; block: Block }): Promise<Report> => {
    if (title !== null) return apiSend("POST", "/reports", { body: { slug, title, notes: "", blocks: [block] } });
    const report = await getReport(slug);
    return apiSend("PATCH", "/reports/{slug}", { path: { slug }, body: { blocks: [...report.blocks, block] } });
  });
}
