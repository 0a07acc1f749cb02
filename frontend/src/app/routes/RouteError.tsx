import { Link, useRouteError } from "react-router-dom";
import { paths } from "../../lib/paths";

export function RouteError() {
  const error = useRouteError();
  return (
    <div className="page">
      <h1>Something went wrong</h1>
      <div className="state state-error" role="alert">
        {error instanceof Error ? error.message : String(error)}
      </div>
      <p>
        <Link to={paths.overview()}>Back to the overview</Link>
      </p>
    </div>
  );
}
