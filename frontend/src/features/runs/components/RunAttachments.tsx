import { useState } from "react";
import { downloadFile } from "../../../api/client";
import { CopyButton } from "../../../components/ui/CopyButton";
import { ErrorState } from "../../../components/ui/States";
import type { Run } from "../api/get-run";
import { attachmentKind, downloadName, formatBytes, runExportUrl, shortSha } from "../attachments";

/** The files kept with the run (script, raw latencies, tool output), each downloadable, and the
 * whole run (its JSON and its files) as one zip. */
export function RunAttachments({ run }: { run: Run }) {
  const [error, setError] = useState<unknown>(null);
  const files = run.attachments ?? [];
  const total = files.reduce((sum, f) => sum + f.size, 0);
  return (
    <section className="card" data-testid="attachments">
      <div className="card-head">
        <h2>Attachments</h2>
        <button
          type="button"
          className="button small"
          onClick={() => {
            setError(null);
            downloadFile(runExportUrl(run.uuid), `run-${run.uuid}.zip`).catch(setError);
          }}
        >
          Download run (zip)
        </button>
      </div>
      {files.length === 0 ? (
        <p className="muted">No files were kept with this run.</p>
      ) : (
        <>
          <table className="table" data-testid="attachments-table">
            <thead>
              <tr>
                <th>name</th>
                <th>what</th>
                <th className="num">size</th>
                <th>sha256</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {files.map((f) => (
                <tr key={f.name}>
                  <td className="mono">{f.name}</td>
                  <td className="muted">{attachmentKind(f.name) || f.media_type}</td>
                  <td className="num" title={`${f.size} bytes`}>
                    {formatBytes(f.size)}
                  </td>
                  <td>
                    <span className="mono" title={f.sha256}>
                      {shortSha(f.sha256)}
                    </span>{" "}
                    <CopyButton text={f.sha256} label="Copy sha256" />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="button small"
                      onClick={() => {
                        setError(null);
                        downloadFile(f.url, downloadName(run.uuid, f.name)).catch(setError);
                      }}
                    >
                      Download
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted small">
            {files.length} file(s), {formatBytes(total)}. Also with the API: <span className="mono">GET /api/v1/runs/{run.uuid}/attachments</span>
          </p>
        </>
      )}
      {error !== null && <ErrorState error={error} what="the attachment" />}
    </section>
  );
}
