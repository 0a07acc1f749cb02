import { Link } from "react-router-dom";
import { paths } from "../../../lib/paths";

/** Where alerts come from, for a list that has none yet. */
export function NoAlertsHelp() {
  return (
    <div className="state-body">
      <p>
        Alerts open when the worker finds a lasting change (a step) in a series: it checks every series after each upload and every night. Run it beside the
        server:
      </p>
      <pre className="code">{`perfatlas worker            # detection after uploads, the nightly pass, notifications
perfatlas check             # or check every series once, now`}</pre>
      <p>
        A series needs about 10 runs before a change can be told from noise. Thresholds and mutes are in{" "}
        <Link to={paths.settings({ tab: "rules" })}>Settings → Alert rules</Link>.
      </p>
    </div>
  );
}
