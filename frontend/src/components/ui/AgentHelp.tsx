// What to do when there is nothing to show yet: run the agent against this server.
export function AgentHelp() {
  const server = window.location.origin;
  return (
    <div className="state-body">
      <p>Runs arrive from the agent on a test machine. Create an upload token on the server, then run a workload:</p>
      <pre className="code">{`perfatlas token create --scope upload --name lab-1 -q     # on the server
pip install ./agent                                        # on the test machine
export PERFATLAS_SERVER=${server} PERFATLAS_TOKEN=pa_...
perfatlas-agent run smallfile --target /mnt/ext4/bench --param nfiles=1000 --label fs_version=6.1`}</pre>
      <p>
        Or upload JSON with <code>POST /api/v1/runs</code> (see <a href="/docs">the API documentation</a>), or import fio and bonnie++ output with{" "}
        <code>POST /api/v1/import/fio</code> and <code>/import/bonnie</code>.
      </p>
    </div>
  );
}
