import { Link } from "react-router-dom";

export function NotFound() {
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. Go to the <Link to="/">overview</Link>.
      </p>
    </div>
  );
}
