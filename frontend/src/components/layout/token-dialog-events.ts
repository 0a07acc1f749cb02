// Any component may open the token dialog (an empty or 401 state offers it).
export const OPEN_TOKEN_DIALOG = "perfatlas:open-token-dialog";

export function openTokenDialog(): void {
  window.dispatchEvent(new Event(OPEN_TOKEN_DIALOG));
}
