import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useMemo, useState, type ReactNode } from "react";
import { ApiError } from "../api/client";
import { onTokenChange } from "../lib/token";
import { currentTheme, setTheme, type Theme } from "../lib/theme";
import { ThemeContext } from "../lib/use-theme";

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // A 4xx will not change by asking again; a dropped connection might.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
    },
  },
});

export function Providers({ children }: { children: ReactNode }) {
  const [theme, setThemeState] = useState<Theme>(currentTheme);
  useEffect(() => onTokenChange(() => void queryClient.resetQueries()), []);
  const value = useMemo(
    () => ({
      theme,
      toggle: () => {
        const next = theme === "dark" ? "light" : "dark";
        setTheme(next);
        setThemeState(next);
      },
    }),
    [theme],
  );
  return (
    <QueryClientProvider client={queryClient}>
      <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>
    </QueryClientProvider>
  );
}
