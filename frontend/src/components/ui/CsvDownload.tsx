// "Download CSV": the button, and the error of a failed download shown where the page wants it.
import { useCallback, useState } from "react";
import { downloadFile } from "../../api/client";
import { ErrorState } from "./States";

/** Start a download of an API address (apiUrl's); `error` holds why the last one failed (null
 * while none has). */
export function useCsvDownload() {
  const [error, setError] = useState<unknown>(null);
  const download = useCallback((url: string, filename: string) => {
    setError(null);
    downloadFile(url, filename).catch(setError);
  }, []);
  return { error, download };
}

export function CsvButton({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" className="button" onClick={onClick}>
      Download CSV
    </button>
  );
}

export function CsvError({ error }: { error: unknown }) {
  return error !== null ? <ErrorState error={error} what="the CSV" /> : null;
}

/** The button with its error beside it. */
export function CsvDownload({ url, filename }: { url: string; filename: string }) {
  const { error, download } = useCsvDownload();
  return (
    <>
      <CsvButton onClick={() => download(url, filename)} />
      <CsvError error={error} />
    </>
  );
}
