import { useEffect, useRef, useState } from "react";
import { getToken, setToken } from "../../lib/token";
import { OPEN_TOKEN_DIALOG } from "./token-dialog-events";

export function TokenDialog() {
  const ref = useRef<HTMLDialogElement>(null);
  const [value, setValue] = useState("");

  useEffect(() => {
    const open = () => {
      setValue(getToken());
      ref.current?.showModal();
    };
    window.addEventListener(OPEN_TOKEN_DIALOG, open);
    return () => window.removeEventListener(OPEN_TOKEN_DIALOG, open);
  }, []);

  return (
    <dialog ref={ref} className="dialog" aria-labelledby="token-title">
      <form
        method="dialog"
        onSubmit={() => {
          setToken(value);
        }}
      >
        <h2 id="token-title">API token</h2>
        <p>
          PerfAtlas reads need a token unless the server runs with <code>PERFATLAS_PUBLIC_READ=true</code>. Create a read token on the server:
        </p>
        <pre className="code">perfatlas token create --scope read --name my-browser -q</pre>
        <p className="muted">The token stays in this browser (localStorage) and is sent as a Bearer header to this server only.</p>
        <label className="field">
          <span>Token</span>
          <input
            name="token"
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder="pa_…"
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
        </label>
        <div className="dialog-actions">
          <button
            type="button"
            className="button"
            onClick={() => {
              setValue("");
              setToken("");
              ref.current?.close();
            }}
          >
            Forget token
          </button>
          <button type="button" className="button" onClick={() => ref.current?.close()}>
            Cancel
          </button>
          <button type="submit" className="button primary">
            Save
          </button>
        </div>
      </form>
    </dialog>
  );
}
