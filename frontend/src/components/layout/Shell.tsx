import { NavLink, Outlet } from "react-router-dom";
import { useSyncExternalStore } from "react";
import { getToken, onTokenChange } from "../../lib/token";
import { useTheme } from "../../lib/use-theme";
import { TokenDialog } from "./TokenDialog";
import { openTokenDialog } from "./token-dialog-events";

// Schedules, Jobs and Alerts join this list when their issues land (no empty pages until then).
const NAV = [
  { to: "/", label: "Overview", end: true },
  { to: "/explore", label: "Explore" },
  { to: "/heatmap", label: "Heatmap" },
  { to: "/series", label: "Series" },
  { to: "/runs", label: "Runs" },
  { to: "/compare", label: "Compare" },
  { to: "/agents", label: "Agents" },
];

export function Shell() {
  const { theme, toggle } = useTheme();
  const token = useSyncExternalStore(onTokenChange, getToken);
  return (
    <div className="shell">
      <header className="topbar">
        <NavLink to="/" className="brand">
          PerfAtlas
        </NavLink>
        <nav aria-label="Main">
          {NAV.map((item) => (
            <NavLink key={item.to} to={item.to} end={item.end} className={({ isActive }) => (isActive ? "nav active" : "nav")}>
              {item.label}
            </NavLink>
          ))}
        </nav>
        <div className="topbar-actions">
          <button type="button" className="button small" onClick={openTokenDialog} title="API token for reading">
            {token ? "Token ✓" : "Set token"}
          </button>
          <button type="button" className="button small" onClick={toggle} aria-label={`Switch to ${theme === "dark" ? "light" : "dark"} theme`}>
            {theme === "dark" ? "☀ Light" : "☾ Dark"}
          </button>
        </div>
      </header>
      <main className="content">
        <Outlet />
      </main>
      <TokenDialog />
    </div>
  );
}
