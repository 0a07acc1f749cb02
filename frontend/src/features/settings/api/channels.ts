// Notification channels and their delivery log (admin only: a webhook URL is a secret).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiGet, apiSend, type ApiBody, type Schemas } from "../../../api/client";
import { channelKeys, notificationKeys } from "../../../api/query-keys";

export type Channel = Schemas["ChannelRead"];
export type ChannelCreate = ApiBody<"/channels", "post">;
// PATCH: a field left out stays as it is.
export type ChannelUpdate = ApiBody<"/channels/{channel_id}", "patch">;
export type Notification = Schemas["NotificationRead"];

export function useChannels() {
  return useQuery({ queryKey: channelKeys.list(), queryFn: ({ signal }) => apiGet("/channels", { signal }) });
}

export function useNotifications(limit = 50) {
  return useQuery({
    queryKey: notificationKeys.list(limit),
    queryFn: ({ signal }) => apiGet("/notifications", { query: { limit }, signal }),
    // deliveries move on their own (the worker sends them): keep the log fresh while it is open
    refetchInterval: 10_000,
  });
}

function useChannelMutation<V, T>(send: (vars: V) => Promise<T>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: () => Promise.all([channelKeys.all, notificationKeys.all].map((queryKey) => client.invalidateQueries({ queryKey }))),
  });
}

export function useCreateChannel() {
  return useChannelMutation((body: ChannelCreate) => apiSend("POST", "/channels", { body }));
}

export function useUpdateChannel() {
  return useChannelMutation(({ id, body }: { id: number; body: ChannelUpdate }) =>
    apiSend("PATCH", "/channels/{channel_id}", { path: { channel_id: id }, body }),
  );
}

export function useDeleteChannel() {
  return useChannelMutation((id: number) => apiSend("DELETE", "/channels/{channel_id}", { path: { channel_id: id } }));
}

export function useTestChannel() {
  return useChannelMutation((id: number) => apiSend("POST", "/channels/{channel_id}/test", { path: { channel_id: id } }));
}
