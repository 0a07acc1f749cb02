import type { UseQueryResult } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import { AgentHelp } from "../../../components/ui/AgentHelp";
import { Empty, QueryView } from "../../../components/ui/States";
import type { RunPage } from "../api/get-runs";
import { RunsTable } from "./RunsTable";

type Props = {
  runs: UseQueryResult<RunPage>;
  filtered: boolean;
  selected: string[];
  onToggle: (uuid: string) => void;
  /** the address of the page at a cursor, "" for the newest */
  pageLink: (cursor: string) => string;
  /** whether this is a later page (then "← Newest" leads back) */
  paged: boolean;
};

/** One page of runs to select from, with links to the newest and older ones, or why there are none. */
export function RunsList({ runs, filtered, selected, onToggle, pageLink, paged }: Props) {
  return (
    <QueryView query={runs} what="runs">
      {(page) =>
        page.items.length === 0 ? (
          <Empty title={filtered ? "No run matches these filters." : "No runs yet."}>{!filtered && <AgentHelp />}</Empty>
        ) : (
          <>
            <RunsTable runs={page.items} selected={selected} onToggle={onToggle} />
            <div className="pager">
              {paged && (
                <Link className="button small" to={pageLink("")}>
                  ← Newest
                </Link>
              )}
              {page.next_cursor && (
                <Link className="button small" to={pageLink(page.next_cursor)}>
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
