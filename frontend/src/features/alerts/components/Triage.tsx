// The triage buttons of an alert or an incident: acknowledge, mark expected (with a note saying
// why), reopen, resolve. Writing needs an upload token; the error says so.
import { useState } from "react";
import type { UseMutationResult } from "@tanstack/react-query";
import { WriteError } from "../../../components/ui/WriteError";
import type { AlertStatus } from "../api/get-alerts";
import type { StatusUpdate } from "../api/set-status";

type Props = {
  /** the alert's status; for an incident, the status its alerts would leave (null: mixed) */
  status: AlertStatus | null;
  mutation: UseMutationResult<unknown, Error, StatusUpdate>;
  /** "all" for an incident's buttons */
  scope?: "one" | "all";
  note?: string | null;
};

export function Triage({ status, mutation, scope = "one", note }: Props) {
  const [writing, setWriting] = useState(false);
  const [text, setText] = useState(note ?? "");
  const all = scope === "all" ? " all" : "";
  const send = (update: StatusUpdate) =>
    mutation.mutate(update, {
      onSuccess: () => setWriting(false),
    });
  return (
    <div className="triage" data-testid="triage">
      <div className="actions">
        {status !== "acknowledged" && (
          <button type="button" className="button" disabled={mutation.isPending} onClick={() => send({ status: "acknowledged" })}>
            Acknowledge{all}
          </button>
        )}
        {status !== "expected" && (
          <button type="button" className="button" disabled={mutation.isPending} onClick={() => setWriting((w) => !w)} aria-expanded={writing}>
            Mark{all} expected…
          </button>
        )}
        {status !== null && status !== "open" && (
          <button type="button" className="button" disabled={mutation.isPending} onClick={() => send({ status: "open" })}>
            Reopen{all}
          </button>
        )}
        {status !== "resolved" && (
          <button type="button" className="button" disabled={mutation.isPending} onClick={() => send({ status: "resolved" })}>
            Resolve{all}
          </button>
        )}
      </div>
      {writing && (
        <form
          className="note-form"
          onSubmit={(e) => {
            e.preventDefault();
            send({ status: "expected", note: text.trim() });
          }}
        >
          <label className="field">
            <span>Why is this change expected? (required; shown to everyone who opens the alert)</span>
            <textarea
              name="note"
              rows={3}
              value={text}
              maxLength={2000}
              placeholder="e.g. fs_version 6.2 turns on a journal checksum; the slowdown is the price of it"
              onChange={(e) => setText(e.target.value)}
            />
          </label>
          <div className="actions">
            <button type="submit" className="button primary" disabled={mutation.isPending || text.trim() === ""}>
              Mark{all} expected
            </button>
            <button type="button" className="button" onClick={() => setWriting(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {mutation.isError && <WriteError error={mutation.error} scope="upload" action="Triage" />}
    </div>
  );
}
