// "Download CSV": the button, and the error of a failed download shown where the page wants it.
import { useCallback, useState } from "react";
import { downloadCsv } from "../../api/client";
import { ErrorState } from "./States";

type CsvQuery = Parameters<typeof downloadCsv>[1];

/** Start a download; `error` holds why the last one failed (null while none has). */
export function useCsvDownload() {
  const [error, setError] = useState<unknown>(null);
  const download = useCallback((path: string, query: CsvQuery, filename: string) => {
    setError(null);
    downloadCsv(path, query, filename).catch(setError);
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
export function CsvDownload({ path, query, filename }: { path: string; query: CsvQuery; filename: string }) {
  const { error, download } = useCsvDownload();
  return (
    <>
      <CsvButton onClick={() => download(path, query, filename)} />
      <CsvError error={error} />
    </>
  );
}
