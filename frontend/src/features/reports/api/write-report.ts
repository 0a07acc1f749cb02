// Report writes (a person's token: upload or admin): create, change, add a block, delete.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiSend } from "../../../api/client";
import type { Block } from "../blocks";
import { getReport, type Report } from "./get-report-data";

export type ReportCreate = { slug: string; title: string; notes?: string; blocks?: Block[]; pinned_at?: string | null };
export type ReportUpdate = { title?: string; notes?: string; blocks?: Block[]; pinned_at?: string | null };

function useReportMutation<V, T>(send: (vars: V) => Promise<T>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: send, onSuccess: () => client.invalidateQueries({ queryKey: ["reports"] }) });
}

export function useCreateReport() {
  return useReportMutation((body: ReportCreate) => apiSend<Report>("POST", "/reports", body));
}

export function useUpdateReport() {
  return useReportMutation(({ slug, body }: { slug: string; body: ReportUpdate }) => apiSend<Report>("PATCH", `/reports/${encodeURIComponent(slug)}`, body));
}

export function useDeleteReport() {
  return useReportMutation((slug: string) => apiSend<null>("DELETE", `/reports/${encodeURIComponent(slug)}`));
}

/** A block added at the end of a report, new (slug and title) or existing (its current blocks first). */
export function useAddBlock() {
  return useReportMutation(async ({ slug, title, block }: { slug: string; title: string | null; block: Block }): Promise<Report> => {
    if (title !== null) return apiSend<Report>("POST", "/reports", { slug, title, blocks: [block] } satisfies ReportCreate);
    const report = await getReport(slug);
    return apiSend<Report>("PATCH", `/reports/${encodeURIComponent(slug)}`, { blocks: [...report.blocks, block] } satisfies ReportUpdate);
  });
}
