import type { UseQueryResult } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import { AgentHelp } from "../../../components/ui/AgentHelp";
import { Empty, QueryView } from "../../../components/ui/States";
import { describePage } from "../../../lib/format";
import type { RunPage } from "../api/get-runs";
import { RunsTable } from "./RunsTable";

type Props = {
  runs: UseQueryResult<RunPage>;
  filtered: boolean;
  selected: string[];
  onToggle: (uuid: string) => void;
  /** the address of the page at a cursor ("" for the newest) whose first run is the `from`th */
  pageLink: (cursor: string, from: number | null) => string;
  /** whether this is a later page (then "← Newest" leads back) */
  paged: boolean;
  /** where this page starts in the whole list (1 on the newest page; null when not known) */
  at: number | null;
  /** the address of the list filtered on a run's label too */
  labelLink?: (pair: string) => string;
};

/** One page of runs to select from, with links to the newest and older ones, or why there are none. */
export function RunsList({ runs, filtered, selected, onToggle, pageLink, paged, at, labelLink }: Props) {
  return (
    <QueryView query={runs} what="runs">
      {(page) =>
        page.items.length === 0 ? (
          <Empty title={filtered ? "No run matches these filters." : "No runs yet."}>{!filtered && <AgentHelp />}</Empty>
        ) : (
          <>
            <p className="muted" data-testid="runs-count">
              {describePage({ noun: ["run", "runs"], total: page.total ?? null, at, shown: page.items.length, filtered, order: "newest first" })}
            </p>
            <RunsTable runs={page.items} selected={selected} onToggle={onToggle} labelLink={labelLink} />
            <div className="pager">
              {paged && (
                <Link className="button small" to={pageLink("", 1)}>
                  ← Newest
                </Link>
              )}
              {page.next_cursor && (
                <Link className="button small" to={pageLink(page.next_cursor, at === null ? null : at + page.items.length)}>
                  Older →
                </Link>
              )}
            </div>
          </>
        )
      }
    </QueryView>
  );
}
