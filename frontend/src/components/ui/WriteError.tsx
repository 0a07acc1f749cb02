import { ApiError } from "../../api/client";
import { openTokenDialog } from "../layout/token-dialog-events";

type Scope = "upload" | "admin";

/** What a token without the scope an action needs may do about it. */
export function ScopeHelp({ scope, action }: { scope: Scope; action: string }) {
  return (
    <div className="state-body">
      <p>
        {action} needs a token with the <strong>{scope}</strong> scope{scope === "upload" ? " (or admin)" : ""}. Create one on the server and paste it into{" "}
        <button type="button" className="link-button" onClick={openTokenDialog}>
          Token settings
        </button>
        :
      </p>
      <pre className="code">{`perfatlas token create --scope ${scope} --name my-browser -q`}</pre>
      {scope === "admin" && (
        <p>
          <code>make up</code> prints an admin token.
        </p>
      )}
    </div>
  );
}

/** A failed write: a missing scope explained, a 422 with its fields, anything else as said. */
export function WriteError({ error, scope, action }: { error: unknown; scope: Scope; action: string }) {
  if (!error) return null;
  if (error instanceof ApiError && error.needsToken) {
    return (
      <div className="state state-error" role="alert" data-testid="scope-error">
        <strong>{error.status === 401 ? `${action} needs a token.` : `This browser's token may not do this.`}</strong> ({error.message})
        <ScopeHelp scope={scope} action={action} />
      </div>
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="state state-error" role="alert">
      <strong>{action} failed.</strong> {message}
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
