import { useRef, useState } from "react";
import { CopyButton } from "../../../components/ui/CopyButton";
import { WriteError } from "../../../components/ui/WriteError";
import { formatInZone, userTimeZone } from "../../../lib/time";
import { useCreateEnrollmentToken, type EnrollmentTokenCreated } from "../api/write-agents";
import { enrollCommand, parseLabelPairs } from "../liveness";

function Created({ token }: { token: EnrollmentTokenCreated }) {
  const command = enrollCommand(window.location.origin, token.token);
  return (
    <div data-testid="enrollment-created">
      <p>
        <strong>This token is shown only now.</strong> It enrolls one machine, once, until {formatInZone(token.expires_at, userTimeZone())} ({userTimeZone()}).
        On the test machine run:
      </p>
      <pre className="code wrap" data-testid="enroll-command">
        {command}
      </pre>
      <div className="actions">
        <CopyButton text={command} />
      </div>
      <p className="muted small">
        Then start <code>perfatlas-agent daemon</code> (or its systemd unit): it appears here online, with the labels{" "}
        {Object.keys(token.labels).length > 0
          ? Object.entries(token.labels)
              .map(([k, v]) => `${k}=${String(v)}`)
              .join(", ") + " and"
          : ""}{" "}
        any it adds.
      </p>
    </div>
  );
}

/** "New enrollment token": labels and lifetime in, the token (shown once) and the enroll command out. */
export function EnrollmentDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  const create = useCreateEnrollmentToken();
  const [labels, setLabels] = useState("");
  const [hours, setHours] = useState("24");
  const parsed = parseLabelPairs(labels);
  const open = () => {
    create.reset();
    setLabels("");
    setHours("24");
    ref.current?.showModal();
  };
  return (
    <>
      <button type="button" className="button primary" onClick={open}>
        New enrollment token
      </button>
      <dialog ref={ref} className="dialog" aria-labelledby="enroll-title" data-testid="enrollment-dialog">
        <h2 id="enroll-title">Enroll a test machine</h2>
        {create.data ? (
          <Created token={create.data} />
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (typeof parsed !== "string") create.mutate({ labels: parsed, expires_in_hours: Number(hours) || 24 });
            }}
          >
            <p>A one-time token a machine enrolls with; the agent then gets its own token and takes jobs from schedules.</p>
            <label className="field">
              <span>labels the agent gets (schedules pick agents by them)</span>
              <input
                value={labels}
                onChange={(e) => setLabels(e.target.value)}
                placeholder="role=nightly, disk=nvme"
                className="mono"
                data-testid="enroll-labels"
              />
            </label>
            {typeof parsed === "string" && <div className="field-error">{parsed}</div>}
            <label className="field small-input">
              <span>valid for (hours, 1 to 720)</span>
              <input type="number" min={1} max={720} value={hours} onChange={(e) => setHours(e.target.value)} />
            </label>
            <WriteError error={create.error} scope="admin" action="Creating an enrollment token" />
            <div className="dialog-actions">
              <button type="button" className="button" onClick={() => ref.current?.close()}>
                Cancel
              </button>
              <button type="submit" className="button primary" disabled={create.isPending || typeof parsed === "string"}>
                Create token
              </button>
            </div>
          </form>
        )}
        {create.data && (
          <div className="dialog-actions">
            <button type="button" className="button primary" onClick={() => ref.current?.close()}>
              Done
            </button>
          </div>
        )}
      </dialog>
    </>
  );
}
