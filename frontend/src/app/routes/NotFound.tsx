import { Link } from "react-router-dom";
import { paths } from "../../lib/paths";

export function NotFound() {
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. Go to the <Link to={paths.overview()}>overview</Link>.
      </p>
    </div>
  );
}
