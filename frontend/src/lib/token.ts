// The read token a browser user pasted into Settings, kept in localStorage and sent as Bearer.
const KEY = "perfatlas.token";
const listeners = new Set<() => void>();

export function getToken(): string {
  try {
    return localStorage.getItem(KEY) ?? "";
  } catch {
    return "";
  }
}

export function setToken(token: string): void {
  const value = token.trim();
  if (value) localStorage.setItem(KEY, value);
  else localStorage.removeItem(KEY);
  listeners.forEach((fn) => fn());
}

export function onTokenChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
