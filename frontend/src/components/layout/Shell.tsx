import { NavLink, Outlet } from "react-router-dom";
import { Suspense, useEffect, useRef, useState, useSyncExternalStore, type KeyboardEvent, type ReactNode } from "react";
import { getToken, onTokenChange } from "../../lib/token";
import { useTheme } from "../../lib/use-theme";
import { Loading } from "../ui/States";
import { TokenDialog } from "./TokenDialog";
import { openTokenDialog } from "./token-dialog-events";
import { paths } from "../../lib/paths";

const NAV = [
  { to: paths.overview(), label: "Overview", end: true },
  { to: paths.explore(), label: "Explore" },
  { to: paths.heatmap(), label: "Heatmap" },
  { to: paths.seriesList(), label: "Series" },
  { to: paths.runs(), label: "Runs" },
  { to: paths.compare(), label: "Compare" },
  { to: paths.reports(), label: "Reports" },
  { to: paths.schedules(), label: "Schedules" },
  { to: paths.jobs(), label: "Jobs" },
  { to: paths.agents(), label: "Agents" },
  { to: paths.alerts(), label: "Alerts" },
  { to: paths.settings(), label: "Settings" },
];

/** The page frame. `badges` puts something beside a nav item (by its path): the app passes the
 * open alerts' count for paths.alerts(), so this shared frame knows no feature. */
export function Shell({ badges = {} }: { badges?: Record<string, ReactNode> }) {
  const { theme, toggle } = useTheme();
  const token = useSyncExternalStore(onTokenChange, getToken);
  // On narrow screens (styles.css) the links hide behind this button; wide screens never see it.
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const header = useRef<HTMLElement>(null);
  const closeMenu = () => setMenuOpen(false);
  // A tap on the page below an open menu closes it, as a phone's menus do.
  useEffect(() => {
    if (!menuOpen) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!header.current?.contains(event.target as Node)) setMenuOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [menuOpen]);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape" && menuOpen) {
      setMenuOpen(false);
      menuButton.current?.focus();
    }
  };
  return (
    <div className="shell">
      <header ref={header} className="topbar" onKeyDown={onKeyDown}>
        <NavLink to={paths.overview()} className="brand" onClick={closeMenu}>
          PerfAtlas
        </NavLink>
        <button
          ref={menuButton}
          type="button"
          className="button menu-button"
          aria-label="Menu"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true">{menuOpen ? "✕" : "☰"}</span> Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={menuOpen ? "open" : undefined}>
          {NAV.map((item) => (
            <NavLink key={item.to} to={item.to} end={item.end} onClick={closeMenu} className={({ isActive }) => (isActive ? "nav active" : "nav")}>
              {item.label}
              {badges[item.to]}
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
        {/* the pages' code is loaded lazily (app/router.tsx): the frame shows while the first one's is on its way */}
        <Suspense fallback={<Loading what="the page" />}>
          <Outlet />
        </Suspense>
      </main>
      <TokenDialog />
    </div>
  );
}
