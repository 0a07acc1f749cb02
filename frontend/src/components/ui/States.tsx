import type { ReactNode } from "react";
import { ApiError } from "../../api/client";
import { openTokenDialog } from "../layout/token-dialog-events";

export function Loading({ what }: { what: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <strong>{title}</strong>
      {children && <div className="state-body">{children}</div>}
    </div>
  );
}

export function TokenHelp() {
  return (
    <div className="state-body">
      <p>
        This PerfAtlas server needs a read token. Create one on the server and paste it into{" "}
        <button type="button" className="link-button" onClick={openTokenDialog}>
          Token settings
        </button>
        :
      </p>
      <pre className="code">perfatlas token create --scope read --name my-browser -q</pre>
      <p>
        <code>make up</code> prints an admin token, which works too. Or let anyone read by starting the server with <code>PERFATLAS_PUBLIC_READ=true</code>.
      </p>
    </div>
  );
}

export function ErrorState({ error, what }: { error: unknown; what: string }) {
  if (error instanceof ApiError && error.needsToken) {
    return (
      <div className="state state-error" role="alert">
        <strong>{error.status === 401 ? "A token is needed to read " + what : "This token may not read " + what}</strong> ({error.message})
        <TokenHelp />
      </div>
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="state state-error" role="alert">
      <strong>Could not load {what}.</strong> {message}
      {error instanceof ApiError && error.fields.length > 0 && (
        <ul>
          {error.fields.map((f) => (
            <li key={f.field + f.message}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

type QueryLike<T> = { data: T | undefined; error: unknown; isPending: boolean; isError: boolean };

/** Loading, error or the content: the three states every data view has. */
export function QueryView<T>({ query, what, children }: { query: QueryLike<T>; what: string; children: (data: T) => ReactNode }) {
  if (query.isError) return <ErrorState error={query.error} what={what} />;
  if (query.isPending || query.data === undefined) return <Loading what={what} />;
  return <>{children(query.data)}</>;
}
