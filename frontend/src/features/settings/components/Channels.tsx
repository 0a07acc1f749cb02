import { useState } from "react";
import { Link } from "react-router-dom";
import { ApiError } from "../../../api/client";
import { Empty, Loading, ErrorState } from "../../../components/ui/States";
import { ScopeHelp, WriteError } from "../../../components/ui/WriteError";
import { formatTime, timeAgo } from "../../../lib/format";
import {
  useChannels,
  useCreateChannel,
  useDeleteChannel,
  useNotifications,
  useTestChannel,
  useUpdateChannel,
  type Channel,
  type ChannelCreate,
} from "../api/channels";
import { paths } from "../../../lib/paths";

/** A 401/403 on an admin-only read: say which token it takes. */
export function AdminNeeded({ error, what }: { error: unknown; what: string }) {
  if (error instanceof ApiError && error.needsToken) {
    return (
      <div className="state state-error" role="alert" data-testid="admin-needed">
        <strong>{what} need an admin token</strong> ({error.message}).
        <ScopeHelp scope="admin" action={`Seeing and changing ${what.toLowerCase()}`} />
      </div>
    );
  }
  return <ErrorState error={error} what={what.toLowerCase()} />;
}

function ChannelForm() {
  const create = useCreateChannel();
  const [kind, setKind] = useState<ChannelCreate["kind"]>("webhook");
  return (
    <form
      className="inline-form"
      data-testid="channel-form"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const data = new FormData(form);
        create.mutate(
          { name: String(data.get("name") ?? "").trim(), kind, target: String(data.get("target") ?? "").trim(), enabled: data.get("enabled") === "on" },
          { onSuccess: () => form.reset() },
        );
      }}
    >
      <h3>Add a channel</h3>
      <div className="form-row">
        <label className="field">
          <span>name</span>
          <input name="name" required maxLength={128} placeholder="team-storage" />
        </label>
        <label className="field">
          <span>kind</span>
          <select name="kind" value={kind} onChange={(e) => setKind(e.target.value as ChannelCreate["kind"])}>
            <option value="webhook">webhook (JSON POST)</option>
            <option value="email">email</option>
          </select>
        </label>
        <label className="field grow">
          <span>{kind === "webhook" ? "webhook URL (http:// or https://)" : "email addresses, separated by commas"}</span>
          <input
            name="target"
            required
            maxLength={2048}
            type={kind === "webhook" ? "url" : "text"}
            placeholder={kind === "webhook" ? "https://chat.example.com/hooks/T0123/secret" : "storage-team@example.com, oncall@example.com"}
          />
        </label>
        <label className="check">
          <input type="checkbox" name="enabled" defaultChecked /> enabled
        </label>
        <button type="submit" className="button primary" disabled={create.isPending}>
          Add channel
        </button>
      </div>
      <WriteError error={create.error} scope="admin" action="Adding a channel" />
    </form>
  );
}

function ChannelRow({ channel }: { channel: Channel }) {
  const update = useUpdateChannel();
  const remove = useDeleteChannel();
  const test = useTestChannel();
  const [confirming, setConfirming] = useState(false);
  const error = update.error ?? remove.error ?? test.error;
  return (
    <>
      <tr data-channel={channel.name}>
        <td className="strong">{channel.name}</td>
        <td>{channel.kind}</td>
        <td
          className="mono small ellipsis wide"
          title={channel.kind === "webhook" ? "the URL's path is a secret: only its scheme and host are shown" : channel.target}
        >
          {channel.target}
        </td>
        <td>
          <label className="check">
            <input
              type="checkbox"
              aria-label={`${channel.name} enabled`}
              checked={channel.enabled}
              disabled={update.isPending}
              onChange={(e) => update.mutate({ id: channel.id, body: { enabled: e.target.checked } })}
            />
            {channel.enabled ? "enabled" : "disabled"}
          </label>
        </td>
        <td className="nowrap">
          <button
            type="button"
            className="button small"
            disabled={test.isPending || !channel.enabled}
            title={channel.enabled ? "queue a test notification" : "enable the channel first"}
            onClick={() => test.mutate(channel.id)}
          >
            {test.isSuccess ? "Test queued ✓" : "Send test"}
          </button>{" "}
          {confirming ? (
            <>
              <button type="button" className="button small danger" disabled={remove.isPending} onClick={() => remove.mutate(channel.id)}>
                Delete with its log
              </button>{" "}
              <button type="button" className="button small" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </>
          ) : (
            <button type="button" className="button small" onClick={() => setConfirming(true)}>
              Delete…
            </button>
          )}
        </td>
      </tr>
      {error && (
        <tr>
          <td colSpan={5}>
            <WriteError error={error} scope="admin" action="Changing a channel" />
          </td>
        </tr>
      )}
    </>
  );
}

function DeliveryLog() {
  const log = useNotifications();
  if (log.isError) return <AdminNeeded error={log.error} what="The delivery log" />;
  if (log.isPending) return <Loading what="the delivery log" />;
  if (log.data.items.length === 0)
    return (
      <Empty title="Nothing sent yet.">
        <p className="state-body">
          Notifications go out when an alert or incident opens, changes status or resolves, and on <strong>Send test</strong>. The worker (
          <code>perfatlas worker</code>) delivers them and retries failures.
        </p>
      </Empty>
    );
  return (
    <table className="table" data-testid="delivery-log">
      <thead>
        <tr>
          <th>queued</th>
          <th>channel</th>
          <th>event</th>
          <th>about</th>
          <th>status</th>
          <th className="num">attempts</th>
          <th>sent / last error</th>
        </tr>
      </thead>
      <tbody>
        {log.data.items.map((n) => (
          <tr key={n.id}>
            <td className="nowrap" title={formatTime(n.created_at)}>
              {timeAgo(n.created_at)}
            </td>
            <td>{n.channel}</td>
            <td className="mono small">{n.event}</td>
            <td>
              {n.alert_id !== null && <Link to={paths.alert(n.alert_id)}>alert #{n.alert_id}</Link>}
              {n.incident_id !== null && <Link to={paths.incident(n.incident_id)}>incident #{n.incident_id}</Link>}
              {n.alert_id === null && n.incident_id === null && <span className="muted">test</span>}
            </td>
            <td>
              <span className={`badge delivery-${n.status}`}>{n.status}</span>
            </td>
            <td className="num">{n.attempts}</td>
            <td className="small">
              {n.last_error ? (
                <span className="error-text">{n.last_error}</span>
              ) : n.sent_at ? (
                formatTime(n.sent_at)
              ) : (
                <span className="muted">waiting for the worker (perfatlas worker) to send it</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Channels() {
  const channels = useChannels();
  if (channels.isError) return <AdminNeeded error={channels.error} what="Notification channels" />;
  return (
    <>
      <section className="card">
        <div className="card-head">
          <h2>Channels</h2>
          <span className="muted small">where alert and incident notifications go</span>
        </div>
        {channels.isPending ? (
          <Loading what="channels" />
        ) : channels.data.items.length === 0 ? (
          <Empty title="No channels yet: alerts open in this UI only.">
            <p className="state-body">Add a webhook (Slack, Mattermost, a chat bridge or your own service gets a JSON POST) or email addresses below.</p>
          </Empty>
        ) : (
          <table className="table" data-testid="channels-table">
            <thead>
              <tr>
                <th>name</th>
                <th>kind</th>
                <th>target</th>
                <th>enabled</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {channels.data.items.map((c) => (
                <ChannelRow key={c.id} channel={c} />
              ))}
            </tbody>
          </table>
        )}
        <ChannelForm />
      </section>
      <section className="card">
        <div className="card-head">
          <h2>Delivery log</h2>
          <span className="muted small">newest first; refreshes every 10 s</span>
        </div>
        <DeliveryLog />
      </section>
    </>
  );
}
